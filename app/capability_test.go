package app

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"sutura.dev/domain"
)

func ids(tools []Tool) []domain.Capability {
	out := make([]domain.Capability, len(tools))
	for i, t := range tools {
		out[i] = t.ID
	}
	return out
}

func TestToolsIsTheOneList(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts ToolOptions
		want []domain.Capability
	}{
		{"default", ToolOptions{}, []domain.Capability{domain.DescribeCatalog, domain.AskMetric}},
		{"run_sql enabled", ToolOptions{RunSQL: true}, []domain.Capability{domain.DescribeCatalog, domain.AskMetric, domain.RunSQL}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tools := Tools(tc.opts)
			assert.Equal(t, tc.want, ids(tools))
			for _, tool := range tools {
				assert.Equal(t, tool.ID.Scope(), tool.Scope, "the scope comes from the domain")
				assert.NotEmpty(t, tool.Description)
				assert.NotEmpty(t, tool.Title)
				assert.True(t, tool.ReadOnly, "%s is read-only", tool.ID)
				assert.True(t, tool.Idempotent, "%s is idempotent", tool.ID)
				assert.False(t, tool.Destructive, "%s is not destructive", tool.ID)
				assert.False(t, tool.OpenWorld, "%s works on a closed world", tool.ID)
			}
		})
	}
}

func TestToolGrants(t *testing.T) {
	ask := Tools(ToolOptions{})[1]
	assert.True(t, ask.Grants([]string{"sutura:catalog.read", "sutura:metrics.ask"}))
	assert.False(t, ask.Grants([]string{"sutura:catalog.read"}))
	assert.False(t, ask.Grants(nil))
}

func TestManifestVersionIsPositive(t *testing.T) {
	assert.Positive(t, ManifestVersion)
}

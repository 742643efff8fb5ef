package compose

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/cli/internal/config"
	"sutura.dev/domain"
	"sutura.dev/examples/demo"
)

// TestEveryKindIsServedOrAwaitsItsAdapter: every kind of source the
// configuration accepts has a row in sourceKinds or is named in
// awaitingAdapter, never both; a source of a kind that awaits its adapter
// stops the start naming the source, and doctor says so too.
func TestEveryKindIsServedOrAwaitsItsAdapter(t *testing.T) {
	for _, k := range config.SourceKinds() {
		_, served := sourceKinds[k]
		assert.True(t, served != awaitingAdapter[k], "kind %s must be served or await its adapter, not both or neither", k)
	}
	for k := range awaitingAdapter {
		cfg := &config.Config{Catalogs: []config.Catalog{{Name: "c"}}, Sources: map[string]config.Source{"wh": {Kind: k}}}
		_, err := openSources(context.Background(), cfg, emptyBundle(t), nil)
		require.ErrorIs(t, err, errNoAdapter)
		assert.ErrorContains(t, err, "sources.wh.kind")
		checks := CheckSources(context.Background(), cfg)
		require.Len(t, checks, 1)
		assert.ErrorIs(t, checks[0].Err, errNoAdapter)
	}
}

// emptyBundle is the demo bundle; its models live on the demo source, so
// opening a source of another alias gives it none.
func emptyBundle(t *testing.T) *domain.Bundle {
	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	return b
}

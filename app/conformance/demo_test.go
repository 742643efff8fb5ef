package conformance

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDemoMirrorsCatalogue checks DemoDefinitions against the catalogue's
// markdown: the same metrics, and the same models with the same columns
// and types. The corpus and the anchors, which every data system runs,
// check what the metrics compute.
func TestDemoMirrorsCatalogue(t *testing.T) {
	const catalog = "../../examples/demo/catalog"
	metricFiles, err := filepath.Glob(filepath.Join(catalog, "metrics", "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, metricFiles, "the demo catalogue is required")
	var want, got []string
	for _, f := range metricFiles {
		want = append(want, strings.TrimSuffix(filepath.Base(f), ".md"))
	}
	defs := DemoDefinitions("demo")
	for _, m := range defs.Metrics {
		got = append(got, m.Name)
	}
	slices.Sort(got)
	require.Equal(t, want, got)
	column := regexp.MustCompile(`(?m)^  - \{name: (\w+), type: (\w+)`)
	for _, m := range defs.Models {
		raw, err := os.ReadFile(filepath.Join(catalog, "models", m.Name+".md"))
		require.NoError(t, err)
		var declared []string
		for _, sm := range column.FindAllStringSubmatch(string(raw), -1) {
			declared = append(declared, sm[1]+" "+sm[2])
		}
		var mirrored []string
		for _, c := range m.Columns {
			mirrored = append(mirrored, c.Name+" "+string(c.Type))
		}
		require.Equal(t, declared, mirrored, "model %s", m.Name)
	}
	_, err = DemoBundle("demo")
	require.NoError(t, err, "the mirror pins")
}

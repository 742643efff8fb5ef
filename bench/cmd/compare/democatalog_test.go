package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/app"
	"sutura.dev/examples/demo"
)

// TestDemoCatalogAnchorsFromDuckDB writes the demo catalogue over the
// committed demo data, whose anchors the catalogue already states: every
// anchor DuckDB computes, as sutura compiles it at start, must be the
// committed one, and the rest of the catalogue must load as it is.
func TestDemoCatalogAnchorsFromDuckDB(t *testing.T) {
	d := dataSet{work: t.TempDir(), rows: 12000, shape: "demo"}
	require.NoError(t, os.MkdirAll(d.dir("csv"), 0o755))
	for _, table := range []string{"orders", "customers", "regions", "products"} {
		body, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "demo", "data", table+".csv"))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(d.dir("csv"), table+".csv"), body, 0o644))
	}
	require.NoError(t, writeDemoCatalog(context.Background(), d, "csv"))

	committed, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	written, err := mdcatalog.LoadDir(d.catalogDir(), demo.Version)
	require.NoError(t, err)
	names := app.AnchoredMetrics(committed)
	require.NotEmpty(t, names)
	assert.Equal(t, names, app.AnchoredMetrics(written))
	for _, name := range names {
		want, _ := committed.Metric(name)
		got, _ := written.Metric(name)
		assert.Equal(t, *want.Anchor, *got.Anchor, name)
	}
	assert.Equal(t, committed.Digest(), written.Digest(), "the same catalogue, byte for byte")
}

// TestWithAnchorValue replaces the value of a named metric's anchor
// only.
func TestWithAnchorValue(t *testing.T) {
	doc := "---\nkind: metric\nname: m\nanchor:\n  range: {start: \"2025-01-01\", end: \"2026-01-01\"}\n  value: \"1\"\naudience: open\n---\nvalue: \"1\"\n"
	out, ok := withAnchorValue(doc, map[string]string{"m": "42"})
	assert.True(t, ok)
	assert.Equal(t, "---\nkind: metric\nname: m\nanchor:\n  range: {start: \"2025-01-01\", end: \"2026-01-01\"}\n  value: \"42\"\naudience: open\n---\nvalue: \"1\"\n", out)
	_, ok = withAnchorValue(doc, map[string]string{"other": "42"})
	assert.False(t, ok, "another metric's value")
	_, ok = withAnchorValue("---\nname: m\n---\n", map[string]string{"m": "42"})
	assert.False(t, ok, "no anchor")
}

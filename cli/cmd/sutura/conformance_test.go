package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/app"
	"sutura.dev/app/conformance"
	"sutura.dev/examples/demo"
	engine "sutura.dev/exec-arrow"
)

var _ app.DataSystem = filesSystem{}

// TestEngineConformance runs the data-system contract suite against the
// embedded engine on the demo: every answer, cell and refusal must match
// the corpus DuckDB computed from the same files.
func TestEngineConformance(t *testing.T) {
	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	conformance.Run(t, b, demo.SourceAlias, func(t *testing.T) app.DataSystem {
		eng, err := engine.New(context.Background(), engine.Config{Source: demo.SourceAlias, Files: demo.Data(), Models: b.Definitions().Models})
		require.NoError(t, err)
		return filesSystem{eng}
	})
}

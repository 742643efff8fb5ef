package mdcatalog_test

import (
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
)

// demoCatalog is the demo catalogue the contract suites are written over.
const demoCatalog = "../../examples/demo/catalog"

// demoDefinitionsFile is the contract suite's copy of the demo definitions.
const demoDefinitionsFile = "../../app/conformance/testdata/demo-definitions.json"

var updateDemo = flag.Bool("update-demo", false, "rewrite app/conformance's copy of the demo definitions")

// TestCatalogConformance runs the catalogue contract suite against this
// reader over the demo catalogue.
func TestCatalogConformance(t *testing.T) {
	conformance.RunCatalog(t, func(version string) (*domain.Bundle, error) {
		return mdcatalog.LoadDir(demoCatalog, version)
	})
}

// TestDemoDefinitionsAreTheCatalogues keeps app/conformance's copy of the
// demo definitions (which adapters' tests read instead of this reader)
// equal to the demo catalogue; -update-demo rewrites it.
func TestDemoDefinitionsAreTheCatalogues(t *testing.T) {
	b, err := mdcatalog.LoadDir(demoCatalog, conformance.DemoVersion)
	require.NoError(t, err)
	if *updateDemo {
		js, err := json.MarshalIndent(b.Definitions(), "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(demoDefinitionsFile, append(js, '\n'), 0o644))
	}
	copied, err := conformance.DemoBundle()
	require.NoError(t, err)
	want, err := domain.NewBundle(conformance.DemoVersion, *b.Definitions(), domain.Knowledge{})
	require.NoError(t, err)
	assert.Equal(t, want.Digest(), copied.Digest(), "app/conformance/testdata/demo-definitions.json is stale: run go test -run TestDemoDefinitionsAreTheCatalogues -update-demo here")
}

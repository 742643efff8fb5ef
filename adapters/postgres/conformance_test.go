package postgres_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"sutura.dev/adapters/postgres/pgtest"
	"sutura.dev/app/conformance"
)

// TestConformance runs the data-system contract suite (app/conformance)
// against the adapter from this module, on the demo tables pgtest creates
// from the suite's own copy of the demo definitions: every answer, cell and
// refusal must match the corpus DuckDB computed from the same files.
func TestConformance(t *testing.T) {
	d := pgtest.New(t)
	defs, err := conformance.DemoDefinitions()
	require.NoError(t, err)
	d.Load(t, os.DirFS(dataDir), defs.Models)
	db := open(t, d.Config(conformance.DemoSource, defs.Models))
	require.NoError(t, db.Validate(context.Background()))
	conformance.RunDataSystem(t, db)
}

//go:build cgo

package duckdb_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/app/conformance"
)

// TestCorpus runs the data-system conformance suite on a DuckDB file of
// the demo tables: every question of the corpus, compiled over the
// mirrored demo catalogue and executed by the adapter, gives the rows and
// refusals DuckDB computed from the CSV files when the corpus was made.
func TestCorpus(t *testing.T) {
	db := openDemo(t)
	require.NoError(t, db.Validate(context.Background()))
	conformance.RunSystem(t, db, source)
}

// TestFederatedLegs runs the legs of federated plans (a base leg of
// partials, a lookup leg) on a DuckDB file of the demo tables: added up,
// they give the file's own single-statement answers.
func TestFederatedLegs(t *testing.T) {
	conformance.RunLegs(t, openDemo(t), source)
}

// TestAnchors re-runs every anchor of the demo catalogue, as start-up
// validation does: the metric alone over the anchor's range at its
// coarsest grain, one cell, compared as canonical text.
func TestAnchors(t *testing.T) {
	db := openDemo(t)
	b := demoBundle(t)
	require.Equal(t, 13, sqltest.Anchors(t, b, db.Execute))
}

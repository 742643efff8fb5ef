//go:build cgo

package duckdb_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
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
	n := 0
	for _, m := range b.Definitions().Metrics {
		if m.Anchor == nil {
			continue
		}
		n++
		t.Run(m.Name, func(t *testing.T) {
			q := domain.Question{Metrics: []string{m.Name}, Grain: m.Grains[len(m.Grains)-1],
				Range: domain.TimeSpan{Fixed: &m.Anchor.Range}}
			plan := compileQuestion(t, b, q)
			rs, err := db.Execute(context.Background(), plan)
			require.NoError(t, err)
			require.Len(t, rs.Rows, 1)
			assert.Equal(t, m.Anchor.Value, rs.Rows[0][1].Render())
		})
	}
	require.Equal(t, 13, n)
}

package engine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/cache"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/kernel"
)

// TestFitWorkers: a cached question whose distinct counts' bitsets do
// not fit once per worker in what the working set has free shares one
// set between its workers when one fits and its terms allow it, and
// otherwise runs on as many workers as fit, at least one; one that fits,
// or holds no bitsets, keeps its workers.
func TestFitWorkers(t *testing.T) {
	const codes, groups = 1 << 20, 100
	b := column.NewBuilder(domain.TypeInteger, false)
	for i := range codes {
		require.NoError(t, b.AppendInt(int64(i)))
	}
	col := b.Finish("n")
	tp, err := kernel.NewTermPlan(context.Background(), domain.Term{Aggregate: domain.CountDistinct, Column: "n"}, 0,
		column.NewDerived(col, nil), groups, true)
	require.NoError(t, err)
	per := tp.Bitsets()
	require.Equal(t, int64(groups*(codes+64)/64*8), per, "a bit per code (and null) per group")
	sum, err := kernel.NewTermPlan(context.Background(), domain.Term{Aggregate: domain.Sum, Column: "n"}, 0,
		column.NewDerived(col, nil), groups, true)
	require.NoError(t, err)
	require.Zero(t, sum.Bitsets())

	workers := func(terms []*kernel.TermPlan, free int64) (int, bool) {
		q := &query{}
		q.Parallel = 4
		q.Metrics = []*kernel.MetricPlan{{Terms: terms}}
		q.fitWorkers(cache.Stats{Limit: 1 << 40, Used: 1<<40 - free})
		return q.Parallel, q.ShareCodes
	}
	for _, c := range []struct {
		name    string
		terms   []*kernel.TermPlan
		free    int64
		workers int
		share   bool
	}{
		{"four sets fit", []*kernel.TermPlan{tp}, 4 * per, 4, false},
		{"three fit: four share one", []*kernel.TermPlan{tp}, 4*per - 1, 4, true},
		{"one fits: four share it", []*kernel.TermPlan{tp}, per + per/2, 4, true},
		{"none fits: one worker tries", []*kernel.TermPlan{tp}, per / 2, 1, false},
		{"two terms' sets, shared", []*kernel.TermPlan{tp, tp}, 4 * per, 4, true},
		{"a sum beside: no sharing, two workers fit", []*kernel.TermPlan{tp, sum}, 2 * per, 2, false},
		{"no bitsets", []*kernel.TermPlan{sum}, 0, 4, false},
	} {
		n, share := workers(c.terms, c.free)
		assert.Equal(t, c.workers, n, c.name)
		assert.Equal(t, c.share, share, c.name)
	}
}

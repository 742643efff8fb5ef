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
// not fit once per worker in what the working set has free runs on as
// many workers as fit, at least one; one that fits, or holds no bitsets,
// keeps its workers.
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

	workers := func(terms []*kernel.TermPlan, free int64) int {
		q := &query{}
		q.Parallel = 4
		q.Metrics = []*kernel.MetricPlan{{Terms: terms}}
		q.fitWorkers(cache.Stats{Limit: 1 << 40, Used: 1<<40 - free})
		return q.Parallel
	}
	assert.Equal(t, 4, workers([]*kernel.TermPlan{tp}, 4*per), "four fit")
	assert.Equal(t, 3, workers([]*kernel.TermPlan{tp}, 4*per-1), "three fit")
	assert.Equal(t, 1, workers([]*kernel.TermPlan{tp}, per+per/2), "one fits")
	assert.Equal(t, 1, workers([]*kernel.TermPlan{tp}, per/2), "none fits: one is tried")
	assert.Equal(t, 2, workers([]*kernel.TermPlan{tp, tp}, 4*per), "two terms' bitsets a worker")
	assert.Equal(t, 4, workers([]*kernel.TermPlan{sum}, 0), "no bitsets")
}

package engine

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

// TestPrepareFallsBackToExecute: what Prepare answered is taken once, by
// an equal plan, while the files are those it scanned, and reports the
// scan's cost; a plan it did not answer (alone on its table, changed
// files, taken already) is executed as before, and a scan that fails (a
// value one plan's rows hold does not parse) leaves each plan to its own
// execution: the plan that does not read that value answers, the other
// fails as it would alone.
func TestPrepareFallsBackToExecute(t *testing.T) {
	ctx := context.Background()
	const events = "t,kind,amount\n" +
		"2025-01-05T10:00:00Z,sale,5\n" +
		"2025-02-06T10:00:00Z,refund,3\n" +
		"2025-01-07T10:00:00Z,sale,7\n"
	cols := []domain.ModelColumn{col("t", domain.TypeTimestamp), col("kind", domain.TypeText), col("amount", domain.TypeInteger)}
	sale := domain.RequiredFilter{Op: domain.Equals, Column: "kind", Value: "sale"}
	events0 := tbl("events", "t0", cols...)
	sales := domain.Leg{Base: events0, TimeColumn: "t", Metrics: []domain.MetricRef{metric("sales", sum("amount"), sale)}}
	all := domain.Leg{Base: events0, TimeColumn: "t", Metrics: []domain.MetricRef{metric("amount", sum("amount"))}}
	january := mkPlan(t, domain.Month, "2025-01-01", "2025-02-01", sales)
	year := mkPlan(t, domain.Year, "2025-01-01", "2026-01-01", all)
	other := mkPlan(t, domain.Month, "2025-01-01", "2025-03-01", all)

	dir := t.TempDir()
	write(t, dir, "events.csv", events)
	e, err := New(ctx, Config{Source: "files", Files: os.DirFS(dir), NoCacheFill: true})
	require.NoError(t, err)

	e.Prepare(ctx, []*domain.Plan{january, year})
	require.Equal(t, int64(1), e.cache.Stats().Reads)
	rs, cost, err := e.ExecuteWithCost(ctx, mkPlan(t, domain.Month, "2025-01-01", "2025-02-01", sales))
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"2025-01-01", "12"}}, rendered(rs), "an equal plan takes the prepared answer")
	assert.Equal(t, int64(1), e.cache.Stats().Reads)
	assert.Equal(t, domain.Cost{RowsScanned: 3, BytesRead: int64(len(events)), Cache: domain.CacheMiss}, cost, "the scan that answered both")
	assert.Equal(t, [][]string{{"2025-01-01", "12"}}, run(t, e, january), "taken already: executed again")
	assert.Equal(t, int64(2), e.cache.Stats().Reads)
	assert.Equal(t, [][]string{{"2025-01-01", "12"}, {"2025-02-01", "3"}}, run(t, e, other), "not prepared")
	assert.Equal(t, int64(3), e.cache.Stats().Reads)

	e.Prepare(ctx, []*domain.Plan{january})
	assert.Equal(t, int64(3), e.cache.Stats().Reads, "a plan alone on its table is left to Execute")

	e.Prepare(ctx, []*domain.Plan{january, year})
	write(t, dir, "events.csv", events+"2025-03-01T10:00:00Z,sale,100\n")
	assert.Equal(t, [][]string{{"2025-01-01", "115"}}, run(t, e, year), "the files changed after Prepare")

	write(t, dir, "events.csv", events+"2025-03-01T10:00:00Z,refund,oops\n")
	reads := e.cache.Stats().Reads
	e.Prepare(ctx, []*domain.Plan{january, year})
	assert.Equal(t, reads+1, e.cache.Stats().Reads, "the scan ran, and failed")
	assert.Equal(t, [][]string{{"2025-01-01", "12"}}, run(t, e, january))
	_, err = e.Execute(ctx, year)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "amount")
	assert.NotContains(t, err.Error(), "oops")
	assert.Equal(t, reads+3, e.cache.Stats().Reads, "each plan executed alone")
}

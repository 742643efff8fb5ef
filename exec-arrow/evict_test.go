package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/fillsize"
)

// permutations calls f with every order of 0..n-1 (Heap's algorithm).
func permutations(n int, f func([]int)) {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	c := make([]int, n)
	f(p)
	for i := 0; i < n; {
		if c[i] < i {
			if i%2 == 0 {
				p[0], p[i] = p[i], p[0]
			} else {
				p[c[i]], p[i] = p[i], p[c[i]]
			}
			f(p)
			c[i]++
			i = 0
			continue
		}
		c[i] = 0
		i++
	}
}

// TestSixQuestionsInEveryOrderUnderEviction asks the six questions of
// issue 10 in all 720 orders, one after another in one engine whose
// working set holds any one question (streaming) but not every column the
// six read, so columns are evicted and read again as the questions turn.
// Every answer equals the one computed without eviction, and no question
// is refused because of what other questions left in the cache.
func TestSixQuestionsInEveryOrderUnderEviction(t *testing.T) {
	if testing.Short() {
		t.Skip("NOT RUN: -short skips asking 4320 questions")
	}
	dir := t.TempDir()
	writeShop(t, dir, shopOptions{rows: 40_000, rowGroup: 10_000})
	ctx := context.Background()
	plans := sixQuestions(t)
	// One worker: a question's own memory is small beside the columns.
	cfg := func(limit int64, fill bool) Config {
		return Config{Source: "files", Files: os.DirFS(dir), WorkingSetMaxBytes: limit, Parallelism: 1, NoCacheFill: !fill}
	}

	big, err := New(ctx, cfg(0, true))
	require.NoError(t, err)
	want := answers(t, big, plans, true)
	all := big.cache.Stats().Used // every column the six read, and their derived structures
	var need int64                // the most one question holds while streaming
	for _, p := range plans {
		s, err := New(ctx, cfg(0, false))
		require.NoError(t, err)
		run(t, s, p)
		need = max(need, s.cache.Stats().Peak)
	}
	limit := need + all/3
	require.Less(t, limit, need+all, "the working set cannot hold every column beside a question")
	e, err := New(ctx, cfg(limit, true))
	require.NoError(t, err)

	orders := 0
	permutations(len(plans), func(order []int) {
		orders++
		for _, i := range order {
			rs, err := e.Execute(ctx, plans[i])
			require.NoError(t, err, "order %v, question %d", order, i)
			require.Equal(t, want[i], rendered(rs), "order %v, question %d", order, i)
		}
	})
	require.NoError(t, e.Settle(ctx))
	assert.Equal(t, 720, orders)
	// Every byte accounted is a cached column's: nothing leaked.
	s := e.cache.Stats()
	assert.Zero(t, s.Pinned, "no column is still pinned")
	assert.Equal(t, s.Columns, s.Used)
	assert.Positive(t, e.cache.Stats().Evicted, "columns were evicted")
	assert.LessOrEqual(t, e.cache.Stats().Peak, limit)
	t.Logf("working set %d bytes (one question streaming: %d, every column: %d); %d columns evicted", limit, need, all, e.cache.Stats().Evicted)
}

// TestTableLargerThanTheWorkingSet: a table whose columns are larger than
// the working set is answered by streaming, with the working set as the
// ceiling, and is never read into the cache.
func TestTableLargerThanTheWorkingSet(t *testing.T) {
	if testing.Short() {
		t.Skip("NOT RUN: -short skips writing a large table")
	}
	dir := t.TempDir()
	writeShop(t, dir, shopOptions{rows: 1_000_000, rowGroup: 100_000})
	ctx := context.Background()
	plans := sixQuestions(t)
	big := newEngine(t, os.DirFS(dir))
	want := answers(t, big, plans, true)
	columns := big.cache.Stats().Used

	const limit = 20 << 20
	require.Greater(t, columns, int64(limit)*5/4, "the columns the questions read are larger than the working set by a quarter")
	e, err := New(ctx, Config{Source: "files", Files: os.DirFS(dir), WorkingSetMaxBytes: limit})
	require.NoError(t, err)
	for round := 0; round < 2; round++ {
		for i, p := range plans {
			rs, err := e.Execute(ctx, p)
			require.NoError(t, err, "question %d", i)
			require.Equal(t, want[i], rendered(rs), "question %d", i)
			require.NoError(t, e.Settle(ctx))
		}
	}
	assert.LessOrEqual(t, e.cache.Stats().Peak, int64(limit))
	used, _ := e.WorkingSet()
	assert.Less(t, used, int64(limit))
}

// TestGroupsThatCannotFitAreRefused: a question whose own groups cannot
// fit in the working set is refused with resources_exhausted, streamed or
// cached, and leaves nothing held.
func TestGroupsThatCannotFitAreRefused(t *testing.T) {
	dir := t.TempDir()
	writeShop(t, dir, shopOptions{rows: 300_000, rowGroup: 50_000})
	ctx := context.Background()
	leg := shopLeg(false, metric("n", count("status")))
	leg.Dimensions = []domain.DimensionRef{dim("order", "t0", "order_id")} // 300 000 groups a day
	plan := mkPlan(t, domain.Day, "2024-01-01", "2026-01-01", leg)
	plan.Top = &domain.Top{N: 3, By: domain.ByMetric, Direction: "desc"}
	small := mkPlan(t, domain.Year, "2024-01-01", "2026-01-01", shopLeg(false, metric("n", count("status"))))

	const limit = 16 << 20
	e, err := New(ctx, Config{Source: "files", Files: os.DirFS(dir), WorkingSetMaxBytes: limit})
	require.NoError(t, err)
	_, err = e.Execute(ctx, plan)
	assert.Equal(t, domain.ResourcesExhausted, refusal(t, err), "streamed")
	run(t, e, small)
	require.NoError(t, e.Settle(ctx))
	used, _ := e.WorkingSet()
	_, err = e.Execute(ctx, plan)
	assert.Equal(t, domain.ResourcesExhausted, refusal(t, err))
	after, _ := e.WorkingSet()
	assert.LessOrEqual(t, after, used, "a refused question holds nothing after")
	assert.LessOrEqual(t, e.cache.Stats().Peak, int64(limit))

	// With room, the same question is answered.
	roomy := newEngine(t, os.DirFS(dir))
	assert.Len(t, run(t, roomy, plan), 3)
}

// TestCachedQuestionWhoseCodesDoNotFitStreams: a question whose columns
// the fill cached, and whose distinct count then needs codes for every row
// (four bytes a row) that the working set cannot hold beside them, is
// asked again streaming its file: answered as it was the first time, not
// refused because the cache holds its columns.
func TestCachedQuestionWhoseCodesDoNotFitStreams(t *testing.T) {
	const n = 3_000_000
	plan, cfg, want, need := countDistinctOf(t, n, "amount", domain.TypeInteger, func(i int) (int32, string, string, int64) {
		return 19_723 + int32(i%366), "web", "", int64(i%1_000) * 1_000_003 // too sparse to lend its values as codes
	})
	ctx := context.Background()
	big, err := New(ctx, cfg(0, true))
	require.NoError(t, err)
	run(t, big, plan)
	require.NoError(t, big.Settle(ctx))
	columns := big.cache.Stats().Used
	run(t, big, plan)
	require.Greater(t, big.cache.Stats().Used, columns, "the cached question built its codes")

	// Room for the fill (the columns as scheduleFill estimates them, and
	// the question's working memory), not for the codes beside them.
	seen := fillsize.New(2)
	seen.Rows.Store(n)
	// The dates span a year and the amounts fit 32 bits: both narrow.
	limit := seen.Bytes([]fillsize.Slot{{Col: &column.Column{Type: domain.TypeDate}, Narrow: true},
		{Col: &column.Column{Type: domain.TypeInteger}, Narrow: true}}) + need + need/4
	require.Less(t, limit, columns+4*n, "the codes cannot fit beside the columns")
	e, err := New(ctx, cfg(limit, true))
	require.NoError(t, err)
	assert.Equal(t, want, run(t, e, plan), "streamed")
	require.NoError(t, e.Settle(ctx))
	used, _ := e.WorkingSet()
	require.Equal(t, columns, used, "the fill cached the question's columns")
	reads := e.cache.Stats().Reads
	rs, err := e.Execute(ctx, plan)
	require.NoError(t, err, "not refused")
	assert.Equal(t, want, rendered(rs))
	assert.Greater(t, e.cache.Stats().Reads, reads, "answered by streaming the file")
	assert.LessOrEqual(t, e.cache.Stats().Peak, limit)
}

// TestFillCountsTheDictionariesMet: the fill of a text column whose
// streamed batches held few distinct values is estimated at its indexes
// and those values, not at a dictionary of a sixteenth of its rows, so a
// working set that holds the column and the question's memory caches it.
// Estimating the dictionary from the rows alone leaves it streamed.
func TestFillCountsTheDictionariesMet(t *testing.T) {
	const n = 2_000_000
	kinds := []string{"web", "shop", "phone"}
	plan, cfg, want, need := countDistinctOf(t, n, "kind", domain.TypeText, func(i int) (int32, string, string, int64) {
		return 19_723 + int32(i%366), kinds[i%3], "", int64(i)
	})
	ctx := context.Background()

	// Room for a date and a text column's indexes (five and four bytes a
	// row) and the question, not for a dictionary of n/16 entries beside.
	limit := int64(9*n) + need + need/2
	require.Less(t, limit, int64(14*n)+need, "a dictionary of a sixteenth of the rows does not fit")
	e, err := New(ctx, cfg(limit, true))
	require.NoError(t, err)
	assert.Equal(t, want, run(t, e, plan))
	require.NoError(t, e.Settle(ctx))
	used, _ := e.WorkingSet()
	assert.Positive(t, used, "the columns were cached")
	reads := e.cache.Stats().Reads
	assert.Equal(t, want, run(t, e, plan))
	assert.Equal(t, reads, e.cache.Stats().Reads, "answered from the cache")
	assert.LessOrEqual(t, e.cache.Stats().Peak, limit)
}

// countDistinctOf writes n orders (row gives each: writeOrdersParquet) and
// returns the plan of the distinct count of their column c (of type typ)
// by quarter over 2024, the configuration of an engine over them (one
// worker; a working set of limit, 0 for the default; filling the cache or
// not), and the answer and peak working memory of the question streamed.
func countDistinctOf(t *testing.T, n int, c string, typ domain.ColumnType, row func(i int) (int32, string, string, int64)) (*domain.Plan, func(limit int64, fill bool) Config, [][]string, int64) {
	t.Helper()
	dir := t.TempDir()
	writeOrdersParquet(t, filepath.Join(dir, "orders.parquet"), n, row)
	leg := domain.Leg{Base: tbl("orders", "t0", col("d", domain.TypeDate), col(c, typ)), TimeColumn: "d",
		Metrics: []domain.MetricRef{metric("distinct", simple(domain.CountDistinct, c))}}
	plan := mkPlan(t, domain.Quarter, "2024-01-01", "2025-01-01", leg)
	cfg := func(limit int64, fill bool) Config {
		return Config{Source: "files", Files: os.DirFS(dir), WorkingSetMaxBytes: limit, Parallelism: 1, NoCacheFill: !fill}
	}
	streaming, err := New(context.Background(), cfg(0, false))
	require.NoError(t, err)
	return plan, cfg, run(t, streaming, plan), streaming.cache.Stats().Peak
}

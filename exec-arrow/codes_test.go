package engine

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/answer"
	"sutura.dev/exec-arrow/internal/gate"
	"sutura.dev/exec-arrow/internal/kernel"
	"sutura.dev/exec-arrow/internal/number"
)

// TestDistinctTextCachedAsNumbers: a text column questions read only to
// count its distinct values is cached, once they pass number.DictMax, as
// each row's number instead of its text — a fraction of the memory — and
// the answers from it equal the streamed ones: grouped by a dimension,
// with an is_not_null filter on the column, beside a count of another
// column, over Parquet and CSV. A column of few values stays text; a
// question that reads the column's values reads it whole.
func TestDistinctTextCachedAsNumbers(t *testing.T) {
	d := number.DictMax
	number.DictMax = 1_000
	t.Cleanup(func() { number.DictMax = d })
	byChannel := shopLeg(false, metric("ids", simple(domain.CountDistinct, "order_id")),
		metric("statuses", simple(domain.CountDistinct, "status")))
	byChannel.Dimensions = []domain.DimensionRef{dim("channel", "t0", "channel")}
	filtered := shopLeg(false, metric("ids", simple(domain.CountDistinct, "order_id"),
		domain.RequiredFilter{Op: domain.IsNotNull, Column: "order_id"}), metric("customers", count("customer_id")))
	values := shopLeg(false, metric("first", simple(domain.Min, "order_id")), metric("ids", simple(domain.CountDistinct, "order_id")))
	plans := []*domain.Plan{
		mkPlan(t, domain.Quarter, "2024-01-01", "2026-01-01", byChannel),
		mkPlan(t, domain.Month, "2024-03-01", "2025-03-01", filtered),
		mkPlan(t, domain.Year, "2024-01-01", "2026-01-01", values),
	}
	for _, csv := range []bool{false, true} {
		dir := t.TempDir()
		writeShop(t, dir, shopOptions{rows: 30_000, rowGroup: 7_000, csv: csv})
		ctx := context.Background()
		ref, err := New(ctx, Config{Source: "files", Files: os.DirFS(dir), NoCacheFill: true})
		require.NoError(t, err)
		e := newEngine(t, os.DirFS(dir))
		for i, p := range plans {
			want := run(t, ref, p)
			require.NotEmpty(t, want)
			assert.Equal(t, want, run(t, e, p), "csv %v, question %d streamed", csv, i)
			require.NoError(t, e.Settle(ctx))
			reads := e.cache.Stats().Reads
			assert.Equal(t, want, run(t, e, p), "csv %v, question %d cached", csv, i)
			assert.Equal(t, reads, e.cache.Stats().Reads, "csv %v, question %d answered from the cache", csv, i)
		}
		var numbers, whole, statuses int
		var numbersBytes, wholeBytes int64
		for w, ce := range e.cache.Cached("orders") {
			switch {
			case w.Name == "order_id" && w.Codes:
				require.Equal(t, domain.TypeInteger, ce.Col.Type, "csv %v: order_id's numbers", csv)
				assert.Less(t, ce.Col.Bytes, int64(30_000*5), "csv %v: about four bytes a row", csv)
				numbersBytes = ce.Bytes
				numbers++
			case w.Name == "order_id" && !w.ValidOnly:
				assert.Equal(t, domain.TypeText, ce.Col.Type)
				wholeBytes = ce.Bytes
				whole++
			case w.Name == "status" && w.Codes:
				assert.Equal(t, domain.TypeText, ce.Col.Type, "csv %v: three statuses stay text", csv)
				statuses++
			}
		}
		assert.Equal(t, 1, numbers, "csv %v: order_id cached as numbers", csv)
		assert.Equal(t, 1, whole, "csv %v: min(order_id) read the text whole", csv)
		assert.Equal(t, 1, statuses, "csv %v", csv)
		assert.Less(t, numbersBytes, wholeBytes, "csv %v: the numbers and their codes hold less than the text and its", csv)
	}
}

// TestSharedCodesAnswerAsOneSet: a cached question whose workers share
// the codes of its distinct counts (kernel.Query.ShareCodes: every worker
// reads every batch, each keeps its share of the codes) answers as the
// same question with a set a worker does, over a dimension and a
// required filter, and counts each row it visits once.
func TestSharedCodesAnswerAsOneSet(t *testing.T) {
	d := number.DictMax
	number.DictMax = 1_000
	t.Cleanup(func() { number.DictMax = d })
	dir := t.TempDir()
	writeShop(t, dir, shopOptions{rows: 30_000, rowGroup: 4_000})
	ctx := context.Background()
	e, err := New(ctx, Config{Source: "files", Files: os.DirFS(dir), Parallelism: 3})
	require.NoError(t, err)
	byDay := shopLeg(false, metric("ids", simple(domain.CountDistinct, "order_id")))
	byChannel := shopLeg(false, metric("ids", simple(domain.CountDistinct, "order_id"),
		domain.RequiredFilter{Op: domain.IsNotNull, Column: "order_id"}), metric("customers", simple(domain.CountDistinct, "customer_id")))
	byChannel.Dimensions = []domain.DimensionRef{dim("channel", "t0", "channel")}
	for i, plan := range []*domain.Plan{
		mkPlan(t, domain.Day, "2024-02-01", "2024-09-01", byDay),
		mkPlan(t, domain.Month, "2024-01-01", "2026-01-01", byChannel),
	} {
		run(t, e, plan)
		require.NoError(t, e.Settle(ctx))
		var alone kernel.Meter
		rs, cached, err := e.attempt(ctx, plan, &alone, false)
		require.NoError(t, err)
		require.True(t, cached, "question %d cached", i)
		want := rendered(rs)

		q, err := e.bind(ctx, plan, nil, false)
		require.NoError(t, err)
		require.False(t, q.streamed)
		require.True(t, q.CanShareCodes(), "question %d", i)
		q.ShareCodes = true
		var shared kernel.Meter
		mem := &gate.Reservation{Budget: e.cache}
		src, err := e.producer(ctx, q, mem, &shared)
		require.NoError(t, err)
		p, err := kernel.Scan(ctx, &q.Query, src, mem, &shared)
		require.NoError(t, err)
		got, err := answer.Rows(ctx, q.plan, &q.Query, p, mem)
		require.NoError(t, err)
		p.Close()
		mem.Done()
		q.release()
		assert.Equal(t, want, rendered(got), "question %d", i)
		assert.Equal(t, alone.Visited.Load(), shared.Visited.Load(), "question %d: every row visited once", i)
	}
}

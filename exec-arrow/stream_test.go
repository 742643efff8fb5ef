package engine

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/cache"
	"sutura.dev/exec-arrow/internal/format"
)

// shopQuestions are the six questions and more shapes besides: filters on
// base and joined columns, min and max of text, count_distinct of text, a
// top, a dimension of integers, is_not_null.
func shopQuestions(t testing.TB) []*domain.Plan {
	plans := sixQuestions(t)
	filtered := shopLeg(true, metric("net", sum("net_amount")), metric("n", count("customer_id")))
	filtered.Filters = []domain.FilterRef{filter(domain.OpIn, "t2", "region_name", "North", "West"), filter(domain.OpNotIn, "t0", "status", "pending")}
	filtered.Dimensions = []domain.DimensionRef{dim("region", "t2", "region_name")}
	texts := shopLeg(false, metric("first", simple(domain.Min, "order_id")), metric("last", simple(domain.Max, "status")),
		metric("ids", simple(domain.CountDistinct, "order_id")), metric("price", simple(domain.Max, "price")))
	texts.Dimensions = []domain.DimensionRef{dim("channel", "t0", "channel"), dim("paid", "t0", "is_paid")}
	top := shopLeg(false, metric("net", sum("net_amount"), shopCompleted))
	top.Dimensions = []domain.DimensionRef{dim("customer", "t0", "customer_id")}
	eq := shopLeg(false, metric("with_customer", count("order_id"), domain.RequiredFilter{Op: domain.IsNotNull, Column: "customer_id"}))
	eq.Filters = []domain.FilterRef{filter(domain.OpEq, "t0", "channel", "online")}
	topPlan := mkPlan(t, domain.Year, "2024-03-01", "2025-10-01", top)
	topPlan.Top = &domain.Top{N: 7, By: domain.ByMetric, Direction: "desc"}
	return append(plans,
		mkPlan(t, domain.Month, "2024-06-01", "2025-06-01", filtered),
		mkPlan(t, domain.Quarter, "2024-01-01", "2026-01-01", texts),
		topPlan,
		mkPlan(t, domain.Week, "2024-12-01", "2025-03-01", eq),
	)
}

func answers(t testing.TB, e *Engine, plans []*domain.Plan, settle bool) [][][]string {
	var out [][][]string
	for _, p := range plans {
		out = append(out, run(t, e, p))
		if settle {
			require.NoError(t, e.Settle(context.Background()))
		}
	}
	return out
}

// TestStreamedAndCachedAnswersAgree asks every question three ways —
// streamed from Parquet, from the cache, streamed from CSV — and over
// Parquet written without statistics (nothing pruned, nothing coded by
// span), over Parquet whose columns without nulls are required (their
// dictionary pages decoded directly, integer keys going on in PLAIN
// pages), streamed and loaded: the answers are the same, bit for bit.
func TestStreamedAndCachedAnswersAgree(t *testing.T) {
	const rows = 300_000
	pq, csv, bare, req := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	writeShop(t, pq, shopOptions{rows: rows, rowGroup: 40_000})
	writeShop(t, req, shopOptions{rows: rows, rowGroup: 50_000, required: true})
	writeShop(t, csv, shopOptions{rows: rows, csv: true})
	writeShop(t, bare, shopOptions{rows: rows, rowGroup: 70_000, noStats: true})
	plans := shopQuestions(t)
	ctx := context.Background()
	streaming := func(dir string) *Engine {
		e, err := New(ctx, Config{Source: "files", Files: os.DirFS(dir), NoCacheFill: true})
		require.NoError(t, err)
		return e
	}
	want := answers(t, streaming(pq), plans, false)
	for i, a := range want {
		require.NotEmpty(t, a, "question %d", i)
	}

	cached := newEngine(t, os.DirFS(pq))
	answers(t, cached, plans, true)
	assert.Equal(t, want, answers(t, cached, plans, false), "from the cache")
	assert.Equal(t, want, answers(t, streaming(csv), plans, false), "streamed from CSV")
	assert.Equal(t, want, answers(t, streaming(bare), plans, false), "streamed from Parquet without statistics")
	assert.Equal(t, want, answers(t, streaming(req), plans, false), "streamed from Parquet with required columns in small pages")
	orders, err := os.ReadFile(filepath.Join(req, "orders.parquet"))
	require.NoError(t, err)
	pf, err := file.NewParquetReader(bytes.NewReader(orders))
	require.NoError(t, err)
	require.Positive(t, plainPages(t, pf.MetaData(), "order_id"), "order_id fell back to PLAIN pages")
	cachedReq := newEngine(t, os.DirFS(req))
	answers(t, cachedReq, plans, true)
	assert.Equal(t, want, answers(t, cachedReq, plans, false), "from the cache, loaded from Parquet with required columns")

	// One worker gives the same answers as two.
	one, err := New(ctx, Config{Source: "files", Files: os.DirFS(pq), NoCacheFill: true, Parallelism: 1})
	require.NoError(t, err)
	assert.Equal(t, want, answers(t, one, plans, false), "one worker")
}

// plainPages counts the row groups of a Parquet file, by its footer, in
// which column name has PLAIN data pages.
func plainPages(t *testing.T, md *metadata.FileMetaData, name string) int {
	leaf := md.Schema.ColumnIndexByName(name)
	require.GreaterOrEqual(t, leaf, 0)
	n := 0
	for rg := range md.NumRowGroups() {
		cc, err := md.RowGroup(rg).ColumnChunk(leaf)
		require.NoError(t, err)
		for _, st := range cc.EncodingStats() {
			if st.PageType == format.PageData && st.Encoding == parquet.Encodings.Plain {
				n++
				break
			}
		}
	}
	return n
}

// TestRowGroupStatisticsSkipRowGroups: a question over one month of two
// years reads the row groups of that month and not the others.
func TestRowGroupStatisticsSkipRowGroups(t *testing.T) {
	dir := t.TempDir()
	writeShop(t, dir, shopOptions{rows: 240_000, rowGroup: 10_000}) // 24 row groups, one a month
	e, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), NoCacheFill: true})
	require.NoError(t, err)
	month := mkPlan(t, domain.Month, "2025-03-01", "2025-04-01", shopLeg(false, metric("net", sum("net_amount"))))
	_, cost, err := e.ExecuteWithCost(context.Background(), month)
	require.NoError(t, err)
	st, err := os.Stat(filepath.Join(dir, "orders.parquet"))
	require.NoError(t, err)
	assert.LessOrEqual(t, cost.RowsScanned, int64(2*10_000), "the row groups holding March 2025 and no other")
	assert.Less(t, cost.BytesRead, st.Size()/5, "the other row groups' pages were never read")

	whole := mkPlan(t, domain.Month, "2024-01-01", "2026-01-01", shopLeg(false, metric("net", sum("net_amount"))))
	_, all, err := e.ExecuteWithCost(context.Background(), whole)
	require.NoError(t, err)
	assert.EqualValues(t, 240_000, all.RowsScanned)
}

// TestCountReadsOnlyValidity: a count of a text column whose values are
// all distinct (and an is_not_null filter on it) holds nothing that grows
// with its distinct values — streamed or cached.
func TestCountReadsOnlyValidity(t *testing.T) {
	const rows = 400_000
	dir := t.TempDir()
	writeShop(t, dir, shopOptions{rows: rows, rowGroup: 50_000})
	ctx := context.Background()
	e := newEngine(t, os.DirFS(dir))
	plan := mkPlan(t, domain.Year, "2024-01-01", "2026-01-01", shopLeg(false,
		metric("orders", count("order_id")),
		metric("identified", count("customer_id"), domain.RequiredFilter{Op: domain.IsNotNull, Column: "order_id"})))
	got := run(t, e, plan)
	require.NoError(t, e.Settle(ctx))
	assert.Equal(t, got, run(t, e, plan))

	// The reference: the same counts from the full text column.
	ref := newEngine(t, os.DirFS(dir))
	full := mkPlan(t, domain.Year, "2024-01-01", "2026-01-01", shopLeg(false,
		metric("orders", simple(domain.CountDistinct, "order_id")),
		metric("identified", count("customer_id"), domain.RequiredFilter{Op: domain.IsNotNull, Column: "order_id"})))
	assert.Equal(t, run(t, ref, full), got, "every non-null order id is distinct, so the distinct count is the count")
	require.NoError(t, ref.Settle(ctx))
	var textBytes int64
	for w, ce := range ref.cache.Cached("orders") {
		if w.Name == "order_id" {
			textBytes = ce.Bytes
		}
	}
	require.Greater(t, textBytes, int64(rows*16), "the whole text column is large")

	var cached *cache.Entry
	for w, ce := range e.cache.Cached("orders") {
		if w.Name == "order_id" {
			assert.True(t, w.ValidOnly, "the cache holds the validity of order_id, not its text")
			cached = &ce
		}
	}
	require.NotNil(t, cached)
	assert.Less(t, cached.Bytes, int64(rows/8+1024))

	// Streamed, counting the distinct-valued text column holds what
	// counting a column of three values does.
	peak := func(column string) int64 {
		s, err := New(ctx, Config{Source: "files", Files: os.DirFS(dir), NoCacheFill: true})
		require.NoError(t, err)
		run(t, s, mkPlan(t, domain.Year, "2024-01-01", "2026-01-01", shopLeg(false, metric("n", count(column)))))
		return s.cache.Stats().Peak
	}
	// Each worker reads the column's pages through its own buffer (a read
	// buffer and one decompressed page): that much, and no more, may
	// differ.
	ids, statuses := peak("order_id"), peak("status")
	assert.Less(t, ids, statuses+2*(readBuffer+1<<20)+1<<16, "count(order_id) peaked at %d bytes, count(status) at %d", ids, statuses)
}

// TestCountDistinctOfManyTexts counts the distinct order ids (all
// distinct) by channel, streamed, against a count made here.
func TestCountDistinctOfManyTexts(t *testing.T) {
	dir := t.TempDir()
	writeShop(t, dir, shopOptions{rows: 200_000, csv: true})
	e, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), NoCacheFill: true})
	require.NoError(t, err)
	leg := shopLeg(false, metric("ids", simple(domain.CountDistinct, "order_id")), metric("orders", count("order_id")))
	leg.Dimensions = []domain.DimensionRef{dim("channel", "t0", "channel")}
	got := run(t, e, mkPlan(t, domain.Year, "2024-01-01", "2026-01-01", leg))
	require.Len(t, got, 4)
	for _, r := range got {
		assert.Equal(t, r[2], r[3], "%v: as many distinct ids as ids", r)
	}
}

// TestCancellationWhileStreaming: a question streaming a Parquet file
// stops within milliseconds of its context being cancelled (see
// stopsOnCancel for the bound on a busy machine).
func TestCancellationWhileStreaming(t *testing.T) {
	if testing.Short() {
		t.Skip("NOT RUN: -short skips writing a large table")
	}
	dir := t.TempDir()
	writeShop(t, dir, shopOptions{rows: 600_000, rowGroup: 20_000})
	e, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), NoCacheFill: true})
	require.NoError(t, err)
	// Every order id distinct, by day: far longer than 20 ms.
	leg := shopLeg(false, metric("ids", simple(domain.CountDistinct, "order_id")))
	leg.Dimensions = []domain.DimensionRef{dim("channel", "t0", "channel")}
	plan := mkPlan(t, domain.Day, "2024-01-01", "2026-01-01", leg)
	ask := func(ctx context.Context) error {
		_, err := e.Execute(ctx, plan)
		return err
	}
	stopsOnCancel(t, 100*time.Millisecond, func() error { return ask(context.Background()) }, ask, func() {
		used, _ := e.WorkingSet()
		assert.Zero(t, used, "a cancelled stream holds nothing")
	})
}

// TestTimestampStatisticsSkipRowGroups: a time column of timestamps skips
// row groups by their statistics as a date column does, in every unit
// Parquet writes (arrow-go gives the logical type as a value, so a switch
// on a pointer type never matched and no row group was ever skipped).
func TestTimestampStatisticsSkipRowGroups(t *testing.T) {
	for _, unit := range []arrow.TimeUnit{arrow.Millisecond, arrow.Microsecond, arrow.Nanosecond} {
		t.Run(unit.String(), func(t *testing.T) {
			typ := &arrow.TimestampType{Unit: unit, TimeZone: "UTC"}
			sch := arrow.NewSchema([]arrow.Field{{Name: "at", Type: typ}, {Name: "amount", Type: arrow.PrimitiveTypes.Int64}}, nil)
			b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
			defer b.Release()
			const perDay = 1000
			var want int64
			start := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
			for d := 0; d < 60; d++ { // one row group a day, 2025-01-01 .. 2025-03-01
				for i := 0; i < perDay; i++ {
					v, err := arrow.TimestampFromTime(start.AddDate(0, 0, d).Add(time.Duration(i)*time.Second), unit)
					require.NoError(t, err)
					b.Field(0).(*array.TimestampBuilder).Append(v)
					b.Field(1).(*array.Int64Builder).Append(int64(d*perDay + i))
					if d >= 31 && d < 59 { // February
						want += int64(d*perDay + i)
					}
				}
			}
			rec := b.NewRecordBatch()
			defer rec.Release()
			var buf bytes.Buffer
			w, err := pqarrow.NewFileWriter(sch, &buf, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(perDay)), pqarrow.DefaultWriterProps())
			require.NoError(t, err)
			require.NoError(t, w.Write(rec))
			require.NoError(t, w.Close())
			dir := t.TempDir()
			write(t, dir, "events.parquet", buf.String())

			cols := []domain.ModelColumn{col("at", domain.TypeTimestamp), col("amount", domain.TypeInteger)}
			e, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), NoCacheFill: true,
				Models: []domain.Model{{Name: "events", Source: "files", Table: "events", Columns: cols}}})
			require.NoError(t, err)
			leg := domain.Leg{Base: tbl("events", "t0", cols...), TimeColumn: "at", Metrics: []domain.MetricRef{metric("n", sum("amount"))}}
			rs, cost, err := e.ExecuteWithCost(context.Background(), mkPlan(t, domain.Month, "2025-02-01", "2025-03-01", leg))
			require.NoError(t, err)
			assert.Equal(t, [][]string{{"2025-02-01", strconv.FormatInt(want, 10)}}, rendered(rs))
			assert.LessOrEqual(t, cost.RowsScanned, int64(28*perDay), "only February's rows are scanned")
			// The other row groups' pages are never read: what is read is
			// February's share of the file, and the footer.
			assert.Less(t, cost.BytesRead, int64(buf.Len())*28/60+int64(buf.Len())/10, "only February's row groups are read")
			t.Logf("%d of %d bytes read", cost.BytesRead, buf.Len())
		})
	}
}

package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

// writeUntuned writes dir/events.parquet as DuckDB or Spark would leave
// it for the engine: every column OPTIONAL, snappy, timestamps in
// nanoseconds in no order (but the first 70 000 rows, a whole batch and
// more, all before the questions' ranges), a session key of many
// distinct texts in PLAIN pages only, a kind of few texts in dictionary
// pages, a DECIMAL(18,2) amount stored as INT64, a boolean; nulls and
// empty texts in each; with index, small pages and a page index.
func writeUntuned(t *testing.T, dir string, rows int, index bool) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "t", Type: &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "session", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "kind", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "amount", Type: &arrow.Decimal128Type{Precision: 18, Scale: 2}, Nullable: true},
		{Name: "flag", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	kinds := []string{"view", "click", "purchase", "view", "view", ""}
	const day = int64(86_400_000_000_000)
	y2024, y2025 := int64(19_723)*day, int64(20_089)*day
	for i := range rows {
		h := int64(i) * 2_654_435_761 % 1_000_003
		switch {
		case i%97 == 3:
			b.Field(0).AppendNull()
		case i < 70_000:
			b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(y2024 + h*300/1_000_003*day + h%86_400*1e9 + h))
		default:
			b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(y2025 + h*365/1_000_003*day + h%86_400*1e9 + h*7))
		}
		if i%11 == 5 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("s%06d", h%40_000))
		}
		if i%13 == 7 {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.StringBuilder).Append(kinds[h%int64(len(kinds))])
		}
		if i%5 == 1 {
			b.Field(3).AppendNull()
		} else {
			b.Field(3).(*array.Decimal128Builder).Append(decimal128.FromI64(h*37 - 9_000_000))
		}
		if i%17 == 2 {
			b.Field(4).AppendNull()
		} else {
			b.Field(4).(*array.BooleanBuilder).Append(h%3 == 0)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	f, err := os.Create(filepath.Join(dir, "events.parquet"))
	require.NoError(t, err)
	defer f.Close()
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(100_000), parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithDictionaryFor("session", false), parquet.WithStoreDecimalAsInteger(true), parquet.WithVersion(parquet.V2_LATEST),
		parquet.WithPageIndexEnabled(index), parquet.WithDataPageSize(map[bool]int64{false: 1 << 20, true: 8 << 10}[index]))
	w, err := pqarrow.NewFileWriter(sch, f, props, pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
}

// TestUntunedParquetStreamedAsLoaded asks questions of an untuned file
// (see writeUntuned) streamed — every column decoded from its pages, the
// time and filter columns first, a batch with no row in the range or
// past the filters skipped, PLAIN texts of rows that cannot count left
// out — and from the cache, which loads the file through pqarrow: the
// answers are the same, bit for bit, with selective and unselective
// ranges and filters, required filters per metric, distinct texts,
// decimal sums and boolean counts; and again with small pages and a page
// index, the skipped batches' pages sought past.
func TestUntunedParquetStreamedAsLoaded(t *testing.T) {
	for _, index := range []bool{false, true} {
		t.Run(fmt.Sprintf("page index %v", index), func(t *testing.T) { untunedStreamedAsLoaded(t, index) })
	}
}

func untunedStreamedAsLoaded(t *testing.T, index bool) {
	dir := t.TempDir()
	writeUntuned(t, dir, 260_000, index)
	cols := []domain.ModelColumn{col("t", domain.TypeTimestamp), col("session", domain.TypeText), col("kind", domain.TypeText),
		col("amount", domain.TypeDecimal), col("flag", domain.TypeBoolean)}
	leg := func(ms ...domain.MetricRef) domain.Leg {
		return domain.Leg{Base: tbl("events", "t0", cols...), TimeColumn: "t", Metrics: ms}
	}
	purchase := domain.RequiredFilter{Op: domain.Equals, Column: "kind", Value: "purchase"}
	sessions := leg(metric("sessions", simple(domain.CountDistinct, "session"), purchase))
	byKind := leg(metric("amount", sum("amount")), metric("flagged", countIf("flag")))
	byKind.Dimensions = []domain.DimensionRef{dim("kind", "t0", "kind")}
	filtered := leg(metric("sessions", simple(domain.CountDistinct, "session")), metric("n", count("session")))
	filtered.Filters = []domain.FilterRef{filter(domain.OpIn, "t0", "kind", "click", "purchase")}
	mixed := leg(metric("buyers", simple(domain.CountDistinct, "session"), purchase), metric("amount", sum("amount")),
		metric("last", simple(domain.Max, "session")))
	plans := []*domain.Plan{
		mkPlan(t, domain.Week, "2025-03-01", "2025-04-01", sessions),
		mkPlan(t, domain.Month, "2025-01-01", "2026-01-01", sessions),
		mkPlan(t, domain.Day, "2025-06-01", "2025-06-08", byKind),
		mkPlan(t, domain.Year, "2024-01-01", "2026-01-01", byKind),
		mkPlan(t, domain.Month, "2025-02-01", "2025-05-01", filtered),
		mkPlan(t, domain.Quarter, "2025-01-01", "2026-01-01", mixed),
		mkPlan(t, domain.Day, "2024-02-01", "2024-02-03", mixed),
	}
	streamedAsCached(t, dir, plans)
}

// streamedAsCached asks plans of the files in dir streamed, then from the
// cache (filled and settled), then all prepared together (one scan of
// their table: Engine.Prepare), and requires the same answers, none
// empty.
func streamedAsCached(t *testing.T, dir string, plans []*domain.Plan) {
	t.Helper()
	streamed, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), NoCacheFill: true})
	require.NoError(t, err)
	got := answers(t, streamed, plans, false)
	cached := newEngine(t, os.DirFS(dir))
	answers(t, cached, plans, true)
	want := answers(t, cached, plans, false)
	together, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), NoCacheFill: true})
	require.NoError(t, err)
	together.Prepare(context.Background(), plans)
	require.Equal(t, int64(1), together.cache.Stats().Reads, "Prepare reads the file once for every plan")
	prepared := answers(t, together, plans, false)
	require.Equal(t, int64(1), together.cache.Stats().Reads, "every plan is answered by the scan Prepare ran")
	for i := range plans {
		require.NotEmpty(t, want[i], "question %d", i)
		assert.Equal(t, want[i], got[i], "question %d", i)
		assert.Equal(t, want[i], prepared[i], "question %d, prepared with the others", i)
	}
}

// TestFilterStatisticsSkipRowGroups: over a file whose dates are in no
// order, but whose kind and key are clustered, a question whose required
// filter (or caller filter) no row of a row group can pass, by that row
// group's statistics, does not read the row group; the answers are the
// cache's.
func TestFilterStatisticsSkipRowGroups(t *testing.T) {
	const rows, group = 100_000, 10_000
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "kind", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "key", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	kinds := []string{"view", "click", "view", "purchase", "view"}
	for i := range rows {
		b.Field(0).(*array.Date32Builder).Append(arrow.Date32(20_089 + int32(i*7919%365)))
		if i%23 == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(kinds[i/group%len(kinds)])
		}
		b.Field(2).(*array.Int64Builder).Append(int64(i/group*100 + i%7))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "events.parquet"))
	require.NoError(t, err)
	w, err := pqarrow.NewFileWriter(sch, f, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(group)), pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close()) // closes f

	cols := []domain.ModelColumn{col("d", domain.TypeDate), col("kind", domain.TypeText), col("key", domain.TypeInteger)}
	purchase := domain.RequiredFilter{Op: domain.Equals, Column: "kind", Value: "purchase"}
	bought := domain.Leg{Base: tbl("events", "t0", cols...), TimeColumn: "d", Metrics: []domain.MetricRef{metric("n", count("key"), purchase)}}
	keyed := domain.Leg{Base: tbl("events", "t0", cols...), TimeColumn: "d", Metrics: []domain.MetricRef{metric("n", count("key"))}}
	keyed.Filters = []domain.FilterRef{filter(domain.OpIn, "t0", "key", "403", "404", "906")}
	mixed := domain.Leg{Base: tbl("events", "t0", cols...), TimeColumn: "d",
		Metrics: []domain.MetricRef{metric("n", count("key"), purchase), metric("all", count("key"))}}
	cases := []struct {
		plan *domain.Plan
		most int64
	}{
		{mkPlan(t, domain.Month, "2025-01-01", "2026-01-01", bought), 2 * group},
		{mkPlan(t, domain.Quarter, "2025-01-01", "2026-01-01", keyed), 2 * group},
		{mkPlan(t, domain.Year, "2025-01-01", "2026-01-01", mixed), rows},
	}
	streamed, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), NoCacheFill: true})
	require.NoError(t, err)
	cached := newEngine(t, os.DirFS(dir))
	for i, c := range cases {
		rs, cost, err := streamed.ExecuteWithCost(context.Background(), c.plan)
		require.NoError(t, err)
		assert.LessOrEqual(t, cost.RowsScanned, c.most, "question %d", i)
		run(t, cached, c.plan)
		require.NoError(t, cached.Settle(context.Background()))
		want := run(t, cached, c.plan)
		require.NotEmpty(t, want)
		assert.Equal(t, want, rendered(rs), "question %d", i)
	}
}

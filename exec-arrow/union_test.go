package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/kernel"
)

// TestUnionOverTwoTimeColumns: questions over one table by two time
// columns (an order date the file is sorted by, and a ship time in no
// order, sometimes null) are answered in one scan of its file (Prepare),
// CSV, NDJSON and Parquet alike, with the answers each has streamed alone
// and from the cache. Blocks and row groups outside one question's range
// by the order date still hold rows of the others' by the ship time, and
// a few days by the ship time narrows blocks by both columns, so a scan
// that skipped or narrowed by the first time column alone would lose
// rows and fail it. Each question by the order date is placed by its
// own zone over each block (none of its rows, all of them, all in one
// of its buckets): a placing that let in a row outside its range or put
// one in the wrong bucket would fail it too.
func TestUnionOverTwoTimeColumns(t *testing.T) {
	orders := sortedOrders(31, 3*column.ChunkRows+1_234, 900, 11)
	leg := ordersLeg
	byKind := func(l domain.Leg) domain.Leg {
		l.Dimensions = []domain.DimensionRef{dim("kind", "t0", "kind")}
		return l
	}
	web := domain.RequiredFilter{Op: domain.Equals, Column: "kind", Value: "web"}
	plans := []*domain.Plan{
		// By the order date: one month, a few blocks of the sorted file.
		mkPlan(t, domain.Day, "2024-02-01", "2024-03-01", leg("d", metric("orders", count("amount")))),
		// By the ship time: a year, rows in every block.
		mkPlan(t, domain.Month, "2025-01-01", "2026-01-01", leg("shipped", metric("shipped", count("amount")))),
		// By the ship time: three days, few rows of any block.
		mkPlan(t, domain.Day, "2024-05-06", "2024-05-09", byKind(leg("shipped", metric("value", sum("amount"))))),
		// By the order date again, another month.
		mkPlan(t, domain.Week, "2025-09-01", "2025-10-06", byKind(leg("d", metric("kinds", simple(domain.CountDistinct, "kind")), metric("value", sum("amount"))))),
		// By the order date, years and quarters: a block or row group
		// of the sorted file is wholly in one year, wholly in the range
		// across two, or outside it (placed by its zone: memberZones).
		mkPlan(t, domain.Year, "2024-01-01", "2026-01-01", leg("d", metric("value", sum("amount")), metric("orders", count("amount")))),
		mkPlan(t, domain.Year, "2024-01-01", "2026-01-01", leg("d", metric("web", sum("amount"), web), metric("web orders", count("amount"), web))),
		mkPlan(t, domain.Quarter, "2025-01-01", "2026-01-01", byKind(leg("d", metric("value", sum("amount"))))),
	}
	eachFormat(t, orders, func(t *testing.T, _, dir string) { streamedAsCached(t, dir, plans) })
}

// order is a row of the union tests' orders: a date the file is sorted
// by, a ship time in no order ("" for a null), a kind and an amount.
type order struct {
	d             time.Time
	shipped, kind string
	amount        int64
}

// ordersLeg is a leg over the union tests' orders (eachFormat's columns)
// by timeColumn, its metrics ms.
func ordersLeg(timeColumn string, ms ...domain.MetricRef) domain.Leg {
	cols := []domain.ModelColumn{col("d", domain.TypeDate), col("kind", domain.TypeText),
		col("shipped", domain.TypeTimestamp), col("amount", domain.TypeInteger)}
	return domain.Leg{Base: tbl("orders", "t0", cols...), TimeColumn: timeColumn, Metrics: ms}
}

// sortedOrders makes n orders over days days from 2024-01-01, sorted by
// date; those whose index is 4 modulo nullEvery have no ship time.
func sortedOrders(seed uint64, n, days, nullEvery int) []order {
	rng := rand.New(rand.NewPCG(seed, 7))
	first := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	kinds := []string{"web", "shop", "phone"}
	orders := make([]order, n)
	for i := range orders {
		o := &orders[i]
		o.d = first.AddDate(0, 0, i*days/n)
		if i%nullEvery != 4 {
			o.shipped = first.Add(time.Duration(rng.Int64N(int64(days)*86_400)) * time.Second).Format(time.RFC3339)
		}
		o.kind = kinds[rng.IntN(len(kinds))]
		o.amount = rng.Int64N(10_000) - 500
	}
	return orders
}

// eachFormat writes orders as orders.csv, orders.ndjson (the ship time
// after the date: narrowed by both) and orders.parquet (row groups of
// 20 000), each in a directory of its own, and runs check on each as a
// subtest named for its file.
func eachFormat(t *testing.T, orders []order, check func(t *testing.T, file, dir string)) {
	var csv, ndjson strings.Builder
	csv.WriteString("d,kind,shipped,amount\n")
	for _, o := range orders {
		fmt.Fprintf(&csv, "%s,%s,%s,%d\n", o.d.Format(time.DateOnly), o.kind, o.shipped, o.amount)
		obj := map[string]any{"d": o.d.Format(time.DateOnly), "kind": o.kind, "amount": o.amount}
		if o.shipped != "" {
			obj["shipped"] = o.shipped
		}
		line, err := json.Marshal(obj)
		require.NoError(t, err)
		ndjson.Write(append(line, '\n'))
	}
	for _, f := range []struct{ name, content string }{{"orders.csv", csv.String()}, {"orders.ndjson", ndjson.String()}, {"orders.parquet", ""}} {
		t.Run(f.name, func(t *testing.T) {
			dir := t.TempDir()
			if f.content != "" {
				write(t, dir, f.name, f.content)
			} else {
				writeOrdersParquet(t, filepath.Join(dir, f.name), len(orders), func(i int) (int32, string, string, int64) {
					o := orders[i]
					return int32(o.d.Unix() / 86_400), o.kind, o.shipped, o.amount
				})
			}
			check(t, f.name, dir)
		})
	}
}

// TestUnionSharesARangeTestedRowByRow: questions of one union over one
// time column and one range (anchors over one year, say), on times in no
// order with nulls, test that range once per batch (rangeShares) and
// answer as each does alone, CSV, NDJSON and Parquet alike: by the year
// (one bucket, one group: each starts from the first's rows and
// buckets), by months and by quarters (the same rows, their own
// buckets), under their own required filters, and beside a question over
// another range of the same column. A member that took another's rows
// where their ranges differ, or another's buckets where their grains
// differ, would fail it; so would one that let in a null time.
func TestUnionSharesARangeTestedRowByRow(t *testing.T) {
	orders := sortedOrders(5, 2*column.ChunkRows+3_210, 700, 13)
	leg := func(ms ...domain.MetricRef) domain.Leg { return ordersLeg("shipped", ms...) }
	byKind := func(l domain.Leg) domain.Leg {
		l.Dimensions = []domain.DimensionRef{dim("kind", "t0", "kind")}
		return l
	}
	web := domain.RequiredFilter{Op: domain.Equals, Column: "kind", Value: "web"}
	shop := domain.RequiredFilter{Op: domain.Equals, Column: "kind", Value: "shop"}
	plans := []*domain.Plan{
		mkPlan(t, domain.Year, "2025-01-01", "2026-01-01", leg(metric("value", sum("amount")))),
		mkPlan(t, domain.Year, "2025-01-01", "2026-01-01", leg(metric("web orders", count("amount"), web))),
		mkPlan(t, domain.Year, "2025-01-01", "2026-01-01", leg(metric("shop value", sum("amount"), shop), metric("largest", simple(domain.Max, "amount")))),
		mkPlan(t, domain.Month, "2025-01-01", "2026-01-01", byKind(leg(metric("value", sum("amount"))))),
		mkPlan(t, domain.Quarter, "2025-01-01", "2026-01-01", leg(metric("web value", sum("amount"), web))),
		mkPlan(t, domain.Week, "2024-03-04", "2024-06-03", leg(metric("orders", count("amount")))),
	}
	sharedInEachFormat(t, orders, plans, &kernel.SharedRangeHook, func(string) bool { return true })
}

// TestUnionNestsRanges: a member of a union over a range that an
// earlier member's range holds (an anchor's month in a question's
// quarter, on times in no order with nulls) tests its own only on the
// rows the other found, CSV, NDJSON and Parquet alike, and each answers
// as alone: a month and a week in a quarter (the week's narrowest holder
// is the month), a range overlapping the quarter but not inside it, and
// a month asked before the quarter that holds it (the members take a
// batch widest range first). A member that took rows of a range not
// holding its own, or let in rows outside its own, would fail it.
func TestUnionNestsRanges(t *testing.T) {
	orders := sortedOrders(9, 2*column.ChunkRows+4_321, 700, 13)
	leg := func(ms ...domain.MetricRef) domain.Leg { return ordersLeg("shipped", ms...) }
	web := domain.RequiredFilter{Op: domain.Equals, Column: "kind", Value: "web"}
	plans := []*domain.Plan{
		mkPlan(t, domain.Month, "2025-02-01", "2025-03-01", leg(metric("early month", sum("amount")))),
		mkPlan(t, domain.Day, "2025-01-01", "2025-04-01", leg(metric("orders", count("amount")))),
		mkPlan(t, domain.Month, "2025-02-01", "2025-03-01", leg(metric("web value", sum("amount"), web))),
		mkPlan(t, domain.Week, "2025-02-03", "2025-02-17", leg(metric("largest", simple(domain.Max, "amount")))),
		mkPlan(t, domain.Month, "2025-03-01", "2025-05-01", leg(metric("across", sum("amount")))),
		mkPlan(t, domain.Month, "2025-01-01", "2025-02-01", leg(metric("january web", count("amount"), web))),
	}
	sharedInEachFormat(t, orders, plans, &kernel.NestedRangeHook, func(string) bool { return true })
}

// TestUnionSharesARangesFilteredRows: questions of one union over one
// range of a time column in no order (with nulls) whose early filters are
// the same — required filters every metric needs, caller filters on the
// base table — start from the rows the first of them kept (memberShares'
// picks), CSV, NDJSON and Parquet alike, and answer as each does alone:
// web orders by year, web value by quarter (the same rows, its own
// buckets), and by month under a caller filter of the same test. Beside
// them are the same range under "shop" and under two filters, and
// another range under "web": a member that took the rows of another
// filter set or another range would fail it.
func TestUnionSharesARangesFilteredRows(t *testing.T) {
	orders := sortedOrders(5, 2*column.ChunkRows+3_210, 700, 17)
	leg := func(ms ...domain.MetricRef) domain.Leg { return ordersLeg("shipped", ms...) }
	web := domain.RequiredFilter{Op: domain.Equals, Column: "kind", Value: "web"}
	shop := domain.RequiredFilter{Op: domain.Equals, Column: "kind", Value: "shop"}
	notPhone := domain.RequiredFilter{Op: domain.NotEquals, Column: "kind", Value: "phone"}
	webByCaller := leg(metric("value", sum("amount")))
	webByCaller.Filters = []domain.FilterRef{filter(domain.OpEq, "t0", "kind", "web")}
	plans := []*domain.Plan{
		mkPlan(t, domain.Year, "2025-01-01", "2026-01-01", leg(metric("web orders", count("amount"), web))),
		mkPlan(t, domain.Quarter, "2025-01-01", "2026-01-01", leg(metric("web value", sum("amount"), web))),
		mkPlan(t, domain.Month, "2025-01-01", "2026-01-01", webByCaller),
		mkPlan(t, domain.Year, "2025-01-01", "2026-01-01", leg(metric("shop value", sum("amount"), shop))),
		mkPlan(t, domain.Year, "2025-01-01", "2026-01-01", leg(metric("shop orders", count("amount"), shop))),
		mkPlan(t, domain.Year, "2025-01-01", "2026-01-01", leg(metric("web, not phone", sum("amount"), web, notPhone))),
		mkPlan(t, domain.Month, "2024-03-01", "2024-09-01", leg(metric("web value", sum("amount"), web))),
	}
	sharedInEachFormat(t, orders, plans, &kernel.SharedFilterHook, func(string) bool { return true })
}

// sharedInEachFormat runs streamedAsCached over orders in each format
// (eachFormat), counting the calls of hook (a kernel test hook, reset
// after), and requires some call where shares says the format shares.
func sharedInEachFormat(t *testing.T, orders []order, plans []*domain.Plan, hook *func(), shares func(file string) bool) {
	var calls atomic.Int64
	*hook = func() { calls.Add(1) }
	defer func() { *hook = nil }()
	eachFormat(t, orders, func(t *testing.T, file, dir string) {
		calls.Store(0)
		streamedAsCached(t, dir, plans)
		if shares(file) {
			assert.Positive(t, calls.Load(), "the members share what they compute alike")
		}
	})
}

// TestUnionSharesADirectFilterSet: members of a union whose batches the
// direct kernel aggregates (a file sorted by date: batches wholly inside
// each year) under the same filters test them once per batch
// (memberShares), and each answers as alone, CSV, NDJSON and Parquet
// (Parquet's batches reach the direct kernel whole):
// three under "kind is not phone", one under it and a caller filter,
// one under "kind is not shop", one under none. A member that took the
// rows of another filter set would fail it.
func TestUnionSharesADirectFilterSet(t *testing.T) {
	orders := sortedOrders(8, 3*column.ChunkRows+777, 700, 9)
	cols := []domain.ModelColumn{col("d", domain.TypeDate), col("kind", domain.TypeText), col("amount", domain.TypeInteger)}
	leg := func(ms ...domain.MetricRef) domain.Leg {
		return domain.Leg{Base: tbl("orders", "t0", cols...), TimeColumn: "d", Metrics: ms}
	}
	notPhone := domain.RequiredFilter{Op: domain.NotEquals, Column: "kind", Value: "phone"}
	notShop := domain.RequiredFilter{Op: domain.NotEquals, Column: "kind", Value: "shop"}
	webOnly := leg(metric("value", sum("amount"), notPhone))
	webOnly.Filters = []domain.FilterRef{filter(domain.OpEq, "t0", "kind", "web")}
	plans := []*domain.Plan{
		mkPlan(t, domain.Year, "2024-01-01", "2026-01-01", leg(metric("value", sum("amount"), notPhone))),
		mkPlan(t, domain.Year, "2025-01-01", "2026-01-01", leg(metric("orders", count("amount"), notPhone))),
		mkPlan(t, domain.Quarter, "2024-01-01", "2026-01-01", leg(metric("largest", simple(domain.Max, "amount"), notPhone))),
		mkPlan(t, domain.Year, "2024-01-01", "2026-01-01", webOnly),
		mkPlan(t, domain.Year, "2024-01-01", "2026-01-01", leg(metric("value", sum("amount"), notShop))),
		mkPlan(t, domain.Year, "2024-01-01", "2026-01-01", leg(metric("value", sum("amount")))),
	}
	// Text blocks are selected before their columns are parsed (the
	// union's selector), so their members never reach the direct
	// kernel: they share nothing here, and must answer alike.
	sharedInEachFormat(t, orders, plans, &kernel.SharedFilterHook, func(file string) bool { return file == "orders.parquet" })
}

// TestUnionApartIsLogged: questions over one table that read a column of
// one name as different types (an integer, a decimal) cannot share a
// scan: each reads the file on its own, answers as alone, and the engine
// logs which table and why, so an operator can tell a slow start from a
// broken one.
func TestUnionApartIsLogged(t *testing.T) {
	dir := t.TempDir()
	var csv strings.Builder
	csv.WriteString("d,amount\n")
	for i := range 2_000 {
		fmt.Fprintf(&csv, "2025-%02d-%02d,%d\n", i%12+1, i%28+1, i)
	}
	write(t, dir, "orders.csv", csv.String())
	two := 2
	leg := func(amount domain.ModelColumn) domain.Leg {
		return domain.Leg{Base: tbl("orders", "t0", col("d", domain.TypeDate), amount), TimeColumn: "d",
			Metrics: []domain.MetricRef{metric("value", sum("amount"))}}
	}
	plans := []*domain.Plan{
		mkPlan(t, domain.Month, "2025-01-01", "2026-01-01", leg(col("amount", domain.TypeInteger))),
		mkPlan(t, domain.Quarter, "2025-01-01", "2026-01-01", leg(domain.ModelColumn{Name: "amount", Type: domain.TypeDecimal, Precision: 12, Scale: &two})),
	}
	alone, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), NoCacheFill: true})
	require.NoError(t, err)
	want := answers(t, alone, plans, false)
	var logged strings.Builder
	e, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), NoCacheFill: true,
		Logger: slog.New(slog.NewJSONHandler(&logged, nil))})
	require.NoError(t, err)
	e.Prepare(context.Background(), plans)
	got := answers(t, e, plans, false)
	assert.Equal(t, want, got)
	assert.Equal(t, int64(2), e.cache.Stats().Reads, "each question reads the file")
	var line struct {
		Level, Msg, Table, Why string
		Questions              int
	}
	require.NoError(t, json.Unmarshal([]byte(logged.String()), &line), "one line: %s", logged.String())
	assert.Equal(t, "WARN", line.Level)
	assert.Contains(t, line.Msg, "answered apart")
	assert.Equal(t, "orders", line.Table)
	assert.Equal(t, 2, line.Questions)
	assert.Contains(t, line.Why, "different types")
}

// writeOrdersParquet writes rows of (d, kind, shipped, amount) in row
// groups of 20 000, shipped an RFC 3339 time or empty for a null.
func writeOrdersParquet(t *testing.T, path string, rows int, row func(i int) (int32, string, string, int64)) {
	t.Helper()
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "kind", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "shipped", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "amount", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i := range rows {
		d, kind, shipped, amount := row(i)
		b.Field(0).(*array.Date32Builder).Append(arrow.Date32(d))
		b.Field(1).(*array.StringBuilder).Append(kind)
		if shipped == "" {
			b.Field(2).AppendNull()
		} else {
			ts, err := time.Parse(time.RFC3339, shipped)
			require.NoError(t, err)
			b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(ts.UnixMicro()))
		}
		b.Field(3).(*array.Int64Builder).Append(amount)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	f, err := os.Create(path)
	require.NoError(t, err)
	w, err := pqarrow.NewFileWriter(sch, f, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(20_000)), pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close()) // closes f
}

// TestUnionLeavesOutColumnsOfMembersOutOfRange: a union's block or batch
// whose time zone is outside one member's range is read without the
// columns only that member reads, as the member alone would skip it. Its
// price column holds, in the first half of a file sorted by date, a
// value its type refuses (text in an integer column; a coefficient past
// the declared precision): the member summing the price asks for the
// last weeks only, the other member counts rows over the whole range,
// and the one scan Prepare runs answers both. A union that decoded the
// price column in every block would fail there, and each question would
// then read the file on its own.
func TestUnionLeavesOutColumnsOfMembersOutOfRange(t *testing.T) {
	const n = 8 * column.ChunkRows
	first := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	date := func(i int) time.Time { return first.AddDate(0, 0, i*400/n) } // sorted: 400 days
	price := func(i int) int64 { return int64(i%97) + 1 }
	two := 2
	cols := []domain.ModelColumn{col("d", domain.TypeDate), col("amount", domain.TypeInteger)}
	textCols := append(cols, col("price", domain.TypeInteger))
	decCols := append(cols, domain.ModelColumn{Name: "price", Type: domain.TypeDecimal, Precision: 4, Scale: &two})
	plans := func(cols []domain.ModelColumn) []*domain.Plan {
		leg := func(ms ...domain.MetricRef) domain.Leg {
			return domain.Leg{Base: tbl("orders", "t0", cols...), TimeColumn: "d", Metrics: ms}
		}
		return []*domain.Plan{
			mkPlan(t, domain.Month, "2024-01-01", "2025-03-01", leg(metric("orders", count("amount")))),
			mkPlan(t, domain.Week, "2025-01-06", "2025-02-03", leg(metric("sales", sum("price")))),
		}
	}
	var csv, ndjson strings.Builder
	csv.WriteString("d,amount,price\n")
	for i := range n {
		p := strconv.FormatInt(price(i), 10)
		if i < n/2 {
			p = "x" // refused as an integer
		}
		d := date(i).Format(time.DateOnly)
		fmt.Fprintf(&csv, "%s,%d,%s\n", d, i, p)
		fmt.Fprintf(&ndjson, `{"d":%q,"amount":%d,"price":%q}`+"\n", d, i, p)
	}
	for _, f := range []struct{ name, content string }{{"orders.csv", csv.String()}, {"orders.ndjson", ndjson.String()}} {
		t.Run(f.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, f.name, f.content)
			oneScanAnswersAll(t, dir, plans(textCols))
		})
	}
	// Row groups of 20 000 rows: those before the last weeks are read
	// without the price column; one row group: its batches before them.
	for _, group := range []int64{20_000, n} {
		t.Run(fmt.Sprintf("orders.parquet/row groups of %d", group), func(t *testing.T) {
			dt := &arrow.Decimal128Type{Precision: 10, Scale: 2}
			sch := arrow.NewSchema([]arrow.Field{
				{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
				{Name: "amount", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
				{Name: "price", Type: dt, Nullable: true},
			}, nil)
			b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
			defer b.Release()
			for i := range n {
				p := price(i)
				if i < n/2 {
					p = 123_456 // 1234.56: past a precision of 4
				}
				b.Field(0).(*array.Date32Builder).Append(arrow.Date32(date(i).Unix() / 86_400))
				b.Field(1).(*array.Int64Builder).Append(int64(i))
				b.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(p))
			}
			rec := b.NewRecordBatch()
			defer rec.Release()
			dir := t.TempDir()
			writeDecimalParquet(t, filepath.Join(dir, "orders.parquet"), rec, group)
			oneScanAnswersAll(t, dir, plans(decCols))
		})
	}
}

// TestUnionRowGroupsLeaveOutMembersAfterTheZonesStopPaying: a row group
// whose statistics miss a member's range is read without that member's
// columns even after the batches' zones stopped paying on a worker (the
// first hundreds of row groups meet every member) and the member is no
// longer placed by its zone (its time column has nulls): the member must
// still pick no row of such a batch, and test none of its rows against
// its filter (a rare kind, which its pass rates test before the range).
// Its price column holds, past its range, a coefficient the declared
// precision refuses; one scan answers both members.
func TestUnionRowGroupsLeaveOutMembersAfterTheZonesStopPaying(t *testing.T) {
	const n = 200_000
	first := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	two := 2
	cols := []domain.ModelColumn{col("d", domain.TypeDate), col("amount", domain.TypeInteger),
		{Name: "price", Type: domain.TypeDecimal, Precision: 4, Scale: &two}, col("kind", domain.TypeText)}
	rare := domain.RequiredFilter{Op: domain.Equals, Column: "kind", Value: "rare"}
	leg := func(ms ...domain.MetricRef) domain.Leg {
		return domain.Leg{Base: tbl("orders", "t0", cols...), TimeColumn: "d", Metrics: ms}
	}
	plans := []*domain.Plan{
		mkPlan(t, domain.Year, "2024-01-01", "2025-03-01", leg(metric("orders", count("amount")))),
		mkPlan(t, domain.Month, "2024-01-01", "2024-12-01", leg(metric("sales", sum("price"), rare))),
	}
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "amount", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "price", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "kind", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i := range n {
		kind := "common"
		if i%61 == 3 {
			kind = "rare"
		}
		b.Field(3).(*array.StringBuilder).Append(kind)
		d := first.AddDate(0, 0, i*400/n) // sorted: 400 days, two a row group
		p := int64(i%97) + 1
		if d.After(time.Date(2024, 12, 7, 0, 0, 0, 0, time.UTC)) {
			p = 123_456 // past a precision of 4, in row groups past the second range
		}
		if i%50 == 7 {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.Date32Builder).Append(arrow.Date32(d.Unix() / 86_400))
		}
		b.Field(1).(*array.Int64Builder).Append(int64(i))
		b.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(p))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	dir := t.TempDir()
	writeDecimalParquet(t, filepath.Join(dir, "orders.parquet"), rec, 1_000)

	oneScanAnswersAll(t, dir, plans)
}

// oneScanAnswersAll prepares plans together over the files in dir and
// checks that one scan answered every plan, each as it answers alone.
func oneScanAnswersAll(t *testing.T, dir string, plans []*domain.Plan) {
	t.Helper()
	alone, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), NoCacheFill: true})
	require.NoError(t, err)
	want := answers(t, alone, plans, false)
	together, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), NoCacheFill: true})
	require.NoError(t, err)
	together.Prepare(context.Background(), plans)
	got := answers(t, together, plans, false)
	require.Equal(t, int64(1), together.cache.Stats().Reads, "one scan answers every plan: no column is read where its member cannot count a row")
	for i := range plans {
		require.NotEmpty(t, want[i], "question %d", i)
		assert.Equal(t, want[i], got[i], "question %d", i)
	}
}

// writeDecimalParquet writes rec to path in row groups of group rows,
// its decimals stored as integers (read from their pages).
func writeDecimalParquet(t *testing.T, path string, rec arrow.RecordBatch, group int64) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	w, err := pqarrow.NewFileWriter(rec.Schema(), f, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(group),
		parquet.WithStoreDecimalAsInteger(true)), pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close()) // closes f
}

// TestUnionOfManyMembersFitsTheWorkingSet: a catalogue's many anchors
// over one table (here 48 questions, month by month, on four workers)
// are answered in one scan of it within a working set of 192 MiB, CSV,
// NDJSON and Parquet alike, each as alone. A worker's members take
// turns with one set of per-row buffers (kernel.lendRows); were each
// member to hold its own set on every worker (48 × 4 of about 2.9 MiB),
// the shared scan would not fit, each question would read the file on
// its own, and the one read counted here would be 48.
func TestUnionOfManyMembersFitsTheWorkingSet(t *testing.T) {
	plans := monthlyPlans(t)
	eachFormat(t, sortedOrders(12, 3*column.ChunkRows+321, 730, 13), func(t *testing.T, _, dir string) {
		reads, logged := preparedAsAlone(t, dir, plans, 192<<20)
		assert.Empty(t, logged, "nothing is answered apart or in parts")
		require.Equal(t, int64(1), reads, "Prepare reads the file once for every plan")
	})
}

// TestUnionTooLargeIsAnsweredInParts: when the scan of all of a table's
// questions does not fit the working set (48 questions, four workers,
// 48 MiB, Parquet), they are answered in a few scans of halves of them,
// each as alone, and the engine says so; not one scan a question.
func TestUnionTooLargeIsAnsweredInParts(t *testing.T) {
	orders := sortedOrders(12, 3*column.ChunkRows+321, 730, 13)
	dir := t.TempDir()
	writeOrdersParquet(t, filepath.Join(dir, "orders.parquet"), len(orders), func(i int) (int32, string, string, int64) {
		o := orders[i]
		return int32(o.d.Unix() / 86_400), o.kind, o.shipped, o.amount
	})
	plans := monthlyPlans(t)
	reads, logged := preparedAsAlone(t, dir, plans, 48<<20)
	assert.Contains(t, logged, "questions over one table are answered in parts")
	assert.NotContains(t, logged, "answered apart")
	assert.Greater(t, reads, int64(1), "all of them do not fit one scan")
	assert.Less(t, reads, int64(len(plans)/4), "a few scans, not one a question")
}

// monthlyPlans are 48 questions over the union tests' orders: for each
// month of two years, the value and count by the order date, and the web
// value by the ship time.
func monthlyPlans(t *testing.T) []*domain.Plan {
	web := domain.RequiredFilter{Op: domain.Equals, Column: "kind", Value: "web"}
	var plans []*domain.Plan
	for m := range 24 {
		from := time.Date(2024, time.Month(1+m), 1, 0, 0, 0, 0, time.UTC)
		start, end := from.Format(time.DateOnly), from.AddDate(0, 1, 0).Format(time.DateOnly)
		plans = append(plans,
			mkPlan(t, domain.Month, start, end, ordersLeg("d", metric("value", sum("amount")), metric("orders", count("amount")))),
			mkPlan(t, domain.Month, start, end, ordersLeg("shipped", metric("web", sum("amount"), web))))
	}
	return plans
}

// preparedAsAlone prepares plans together (Engine.Prepare) on four
// workers within a working set of ws bytes and requires each answer to be
// the one it has alone, none empty; it returns the reads of the file the
// prepared engine counted and what it logged.
func preparedAsAlone(t *testing.T, dir string, plans []*domain.Plan, ws int64) (reads int64, logged string) {
	t.Helper()
	alone, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), NoCacheFill: true, Parallelism: 4})
	require.NoError(t, err)
	want := answers(t, alone, plans, false)
	var log strings.Builder
	together, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), NoCacheFill: true, Parallelism: 4,
		WorkingSetMaxBytes: ws, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	require.NoError(t, err)
	together.Prepare(context.Background(), plans)
	reads = together.cache.Stats().Reads
	got := answers(t, together, plans, false)
	require.Equal(t, reads, together.cache.Stats().Reads, "every plan is answered by the scans Prepare ran")
	for i := range plans {
		require.NotEmpty(t, want[i], "question %d", i)
		require.Equal(t, want[i], got[i], "question %d, prepared with the others", i)
	}
	return reads, log.String()
}

package engine

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
)

// factCols are the columns of the generated fact table.
var factCols = []domain.ModelColumn{
	col("day", domain.TypeDate), col("cust", domain.TypeInteger), col("amount", domain.TypeInteger),
	col("price", domain.TypeFloat), col("status", domain.TypeText), col("paid", domain.TypeBoolean),
}

var custCols = []domain.ModelColumn{col("cust_id", domain.TypeInteger), col("region", domain.TypeText)}

const (
	genCustomers = 100_000
	genDays      = 730 // 2024-01-01 .. 2025-12-31
)

// generated builds a fact table of n rows and a customer table in memory
// and puts them in e's cache as if they had been read from fsys, so
// questions over them read no file.
func generated(t testing.TB, n int) *Engine {
	fsys := fstest.MapFS{
		"fact.parquet":      {Data: []byte("generated"), ModTime: time.Unix(1, 0)},
		"customers.parquet": {Data: []byte("generated"), ModTime: time.Unix(1, 0)},
	}
	e, err := New(context.Background(), Config{Source: "files", Files: fsys, WorkingSetMaxBytes: 8 << 30})
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(1, 2))
	start := int32(day(t, "2024-01-01"))
	days, custs, amounts := column.NewBuilder(domain.TypeDate, false), column.NewBuilder(domain.TypeInteger, false), column.NewBuilder(domain.TypeInteger, false)
	prices, statuses, paid := column.NewBuilder(domain.TypeFloat, false), column.NewBuilder(domain.TypeText, false), column.NewBuilder(domain.TypeBoolean, false)
	status := []string{"completed", "pending", "cancelled"}
	for i := 0; i < n; i++ {
		_ = days.AppendDate(start + int32(i%genDays))
		if i%97 == 0 {
			custs.AppendNull()
		} else {
			_ = custs.AppendInt(int64(rng.IntN(genCustomers + 1000))) // some unmatched
		}
		_ = amounts.AppendInt(int64(rng.IntN(10000)))
		_ = prices.AppendFloat(float64(rng.IntN(1000)) / 8)
		_ = statuses.AppendText(status[rng.IntN(3)])
		_ = paid.AppendBool(rng.IntN(4) != 0)
	}
	inject(t, e, "fact", n, days.Finish("day"), custs.Finish("cust"), amounts.Finish("amount"),
		prices.Finish("price"), statuses.Finish("status"), paid.Finish("paid"))
	ids, regions := column.NewBuilder(domain.TypeInteger, false), column.NewBuilder(domain.TypeText, false)
	for i := 0; i < genCustomers; i++ {
		_ = ids.AppendInt(int64(i))
		if i%50 == 0 {
			regions.AppendNull()
		} else {
			_ = regions.AppendText("region-" + strconv.Itoa(i%8))
		}
	}
	inject(t, e, "customers", genCustomers, ids.Finish("cust_id"), regions.Finish("region"))
	return e
}

// inject caches cols as the table of the file of that name in e's fs, in
// segments of chunkRows rows.
func inject(t testing.TB, e *Engine, table string, rows int, cols ...*column.Column) {
	tf, err := files.Locate(e.cfg.Files, table)
	require.NoError(t, err)
	var segs []column.Segment
	for lo := 0; lo < rows; lo += column.ChunkRows {
		segs = append(segs, column.Segment{Lo: lo, Hi: min(lo+column.ChunkRows, rows), Group: lo / column.ChunkRows})
	}
	e.cache.Put(tf, rows, segs, cols...)
}

func factLeg(metrics ...domain.MetricRef) domain.Leg {
	return domain.Leg{Base: tbl("fact", "t0", factCols...), TimeColumn: "day", Metrics: metrics}
}

func withRegion(leg domain.Leg) domain.Leg {
	leg.Joins = []domain.Join{{Relationship: "fact_customer", To: tbl("customers", "t1", custCols...), FromAlias: "t0", FromColumn: "cust", ToColumn: "cust_id"}}
	leg.Dimensions = append(leg.Dimensions, dim("region", "t1", "region"))
	return leg
}

// TestParallelMatchesSerial checks that chunked parallel aggregation gives
// the single-worker answer.
func TestParallelMatchesSerial(t *testing.T) {
	e := generated(t, 600_000)
	leg := withRegion(factLeg(
		metric("amount", sum("amount"), domain.RequiredFilter{Op: domain.NotEquals, Column: "status", Value: "cancelled"}),
		metric("price", simple(domain.Avg, "price")),
		metric("customers", simple(domain.CountDistinct, "cust"), domain.RequiredFilter{Op: domain.IsTrue, Column: "paid"}),
		metric("top", simple(domain.Max, "status"))))
	p := mkPlan(t, domain.Quarter, "2024-02-01", "2025-11-01", leg)
	e.cfg.Parallelism = 1
	serial := run(t, e, p)
	e.cfg.Parallelism = 3
	parallel := run(t, e, p)
	require.Equal(t, serial, parallel)
	require.Len(t, serial, 8*9) // 8 quarters (partial ones at both ends) × 8 regions and null
}

// TestCancellation: a question over millions of rows stops within 100 ms
// of its context being cancelled (the median of five; on a busy machine,
// a quarter of the time a month of it takes there, see stopsOnCancel),
// with ctx.Err().
func TestCancellation(t *testing.T) {
	if testing.Short() {
		t.Skip("NOT RUN: -short skips generating a large table")
	}
	e := generated(t, 4_000_000)
	// Grouping by customer and day makes millions of groups: far longer
	// than 20 ms, however fast the machine.
	leg := withRegion(factLeg(metric("n", simple(domain.CountDistinct, "cust"))))
	leg.Dimensions = append(leg.Dimensions, dim("cust", "t0", "cust"))
	p := mkPlan(t, domain.Day, "2024-01-01", "2026-01-01", leg)
	p.Top = &domain.Top{N: 10, By: domain.ByMetric, Direction: "desc"}
	// Warm the derived structures (codes, join index) first.
	warm, cancelWarm := context.WithTimeout(context.Background(), 50*time.Millisecond)
	_, _ = e.Execute(warm, p)
	cancelWarm()

	// The scale of this machine's speed now: the same question over one
	// month, a few hundred milliseconds on a quiet machine (a quarter of
	// it under the 100 ms bound), where the whole question takes seconds.
	month := mkPlan(t, domain.Day, "2024-06-01", "2024-07-01", leg)
	month.Top = p.Top
	reference := func() error {
		_, err := e.Execute(context.Background(), month)
		return err
	}
	stopsOnCancel(t, 100*time.Millisecond, reference, func(ctx context.Context) error {
		_, err := e.Execute(ctx, p)
		return err
	}, nil)
}

// TestCancellationWhileLoading stops a cold load of a large CSV file.
func TestCancellationWhileLoading(t *testing.T) {
	if testing.Short() {
		t.Skip("NOT RUN: -short skips writing a large file")
	}
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("day,cust,amount,price,status,paid\n")
	for i := 0; i < 1_000_000; i++ {
		b.WriteString("2025-01-")
		b.WriteString(strconv.Itoa(10 + i%20))
		b.WriteString(",")
		b.WriteString(strconv.Itoa(i % 5000))
		b.WriteString(",100,1.5,completed,true\n")
	}
	write(t, dir, "fact.csv", b.String())
	e := newEngine(t, os.DirFS(dir))
	plan := mkPlan(t, domain.Month, "2025-01-01", "2025-02-01", factLeg(metric("amount", sum("amount"))))
	// The reference loads the file into an engine of its own.
	reference := func() error {
		_, err := newEngine(t, os.DirFS(dir)).Execute(context.Background(), plan)
		return err
	}
	stopsOnCancel(t, 100*time.Millisecond, reference, func(ctx context.Context) error {
		_, err := e.Execute(ctx, plan)
		return err
	}, func() { assert.Zero(t, e.cache.Stats().Used, "a cancelled load keeps nothing") })

	// The next question loads it whole.
	require.Equal(t, [][]string{{"2025-01-01", "100000000"}}, run(t, e, mkPlan(t, domain.Month, "2025-01-01", "2025-02-01", factLeg(metric("amount", sum("amount"))))))
}

const benchRows = 10_000_000

var benchEngine *Engine

func benchSetup(b *testing.B) *Engine {
	if benchEngine == nil {
		benchEngine = generated(b, benchRows)
	}
	return benchEngine
}

func bench(b *testing.B, p *domain.Plan) {
	e := benchSetup(b)
	run(b, e, p) // warm derived structures
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.Execute(context.Background(), p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
}

// BenchmarkSumByMonth: sum over 10M rows by month.
func BenchmarkSumByMonth(b *testing.B) {
	bench(b, mkPlan(b, domain.Month, "2024-01-01", "2026-01-01", factLeg(metric("amount", sum("amount")))))
}

// BenchmarkSumByMonthRequiredFilters: the demo's net_sales shape.
func BenchmarkSumByMonthRequiredFilters(b *testing.B) {
	bench(b, mkPlan(b, domain.Month, "2024-01-01", "2026-01-01", factLeg(metric("amount", sum("amount"),
		domain.RequiredFilter{Op: domain.NotEquals, Column: "status", Value: "cancelled"},
		domain.RequiredFilter{Op: domain.IsTrue, Column: "paid"}))))
}

// BenchmarkJoinedDimension: sum by a dimension of a joined table, by month.
func BenchmarkJoinedDimension(b *testing.B) {
	bench(b, mkPlan(b, domain.Month, "2024-01-01", "2026-01-01", withRegion(factLeg(metric("amount", sum("amount"))))))
}

// BenchmarkCountDistinct: distinct customers (100k) by month.
func BenchmarkCountDistinct(b *testing.B) {
	bench(b, mkPlan(b, domain.Month, "2024-01-01", "2026-01-01", factLeg(metric("customers", simple(domain.CountDistinct, "cust")))))
}

// BenchmarkDayGrainCount: a count under a required filter at day grain
// over one year of two.
func BenchmarkDayGrainCount(b *testing.B) {
	bench(b, mkPlan(b, domain.Day, "2025-01-01", "2026-01-01", factLeg(metric("n", count("amount"),
		domain.RequiredFilter{Op: domain.NotEquals, Column: "status", Value: "cancelled"}))))
}

package engine

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/kernel"
)

// sumBenchRows is the size of the summed table (docs/performance.md, Exact
// numbers): 10 M rows over two years.
const sumBenchRows = 10_000_000

// writeSumTable writes dir/amounts.parquet: a day, an amount as
// DECIMAL(18,2) (stored as INT64, as DuckDB and Spark write it) and the
// same amount as a double, in row groups of 1 M rows.
func writeSumTable(b *testing.B, dir string) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "day", Type: arrow.FixedWidthTypes.Date32},
		{Name: "amt_dec", Type: &arrow.Decimal128Type{Precision: 18, Scale: 2}},
		{Name: "amt_f", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	f, err := os.Create(filepath.Join(dir, "amounts.parquet"))
	require.NoError(b, err)
	defer f.Close()
	w, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(1<<20),
		parquet.WithStoreDecimalAsInteger(true)), pqarrow.DefaultWriterProps())
	require.NoError(b, err)
	rb := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer rb.Release()
	rng := rand.New(rand.NewPCG(23, 23))
	first := int32(domain.DateOf(2023, 1, 1))
	for done := 0; done < sumBenchRows; {
		n := min(1<<16, sumBenchRows-done)
		for i := range n {
			cents := rng.Int64N(1_000_000_00) - 1_000_00
			rb.Field(0).(*array.Date32Builder).Append(arrow.Date32(first + int32((done+i)*730/sumBenchRows)))
			rb.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(cents))
			rb.Field(2).(*array.Float64Builder).Append(float64(cents) / 100)
		}
		rec := rb.NewRecord()
		require.NoError(b, w.WriteBuffered(rec))
		rec.Release()
		done += n
	}
	require.NoError(b, w.Close())
}

// BenchmarkSum10M measures a monthly sum over 10 M rows of Parquet: of a
// DECIMAL(18,2) column (exact, 128-bit accumulators) against the same
// amounts as float64 (compensated, and plain for comparison), warm (the
// columns cached) and for a first answer (streamed from the file by an
// engine that caches nothing). Besides the wall time it reports
// cpu-ns/op, the CPU time of the whole process (every worker): on a
// machine shared with other work, the wall time also counts the time the
// workers waited for a core.
//
//	cd exec-arrow && go test -run '^$' -bench Sum10M -benchtime 10x -count 5 .
func BenchmarkSum10M(b *testing.B) {
	// SUTURA_SUM_BENCH_DIR names a directory holding an amounts.parquet of
	// those columns written by another tool (DuckDB), to compare on one file.
	dir := os.Getenv("SUTURA_SUM_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
		writeSumTable(b, dir)
	}
	cols := []domain.ModelColumn{col("day", domain.TypeDate), col("amt_dec", domain.TypeDecimal), col("amt_f", domain.TypeFloat)}
	plan := func(column string) *domain.Plan {
		return mkPlan(b, domain.Month, "2023-01-01", "2025-01-01",
			domain.Leg{Base: tbl("amounts", "t0", cols...), TimeColumn: "day", Metrics: []domain.MetricRef{metric("s", sum(column))}})
	}
	ctx := context.Background()
	cases := []struct {
		name, column string
		plain        bool
	}{
		{"float64", "amt_f", false},
		{"float64-plain", "amt_f", true},
		{"decimal", "amt_dec", false},
	}
	for _, tc := range cases {
		b.Run("warm/"+tc.name, func(b *testing.B) {
			e := newEngine(b, os.DirFS(dir))
			p := plan(tc.column)
			run(b, e, p)
			e.Settle(ctx)
			kernel.PlainFloatSums = tc.plain
			defer func() { kernel.PlainFloatSums = false }()
			defer processCPU(b)()
			for range b.N {
				if _, err := e.Execute(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, tc := range cases {
		if tc.plain {
			continue
		}
		b.Run("first/"+tc.name, func(b *testing.B) {
			p := plan(tc.column)
			defer processCPU(b)()
			for range b.N {
				e, err := New(ctx, Config{Source: "files", Files: os.DirFS(dir), NoCacheFill: true})
				require.NoError(b, err)
				if _, err := e.Execute(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// processCPU resets the timer and returns the function that reports the
// process's CPU time per operation since.
func processCPU(b *testing.B) func() {
	start := processCPUNow()
	b.ResetTimer()
	return func() {
		b.ReportMetric(float64((processCPUNow()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

func processCPUNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

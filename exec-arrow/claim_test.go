package engine

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/gate"
)

// claimParquet writes rows rows in row groups of 100: a date, a small
// integer, an integer whose magnitudes can pass int64 when summed, a float.
func claimParquet(t *testing.T, dir string, rows int) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "big", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	first := domain.DateOf(2025, 1, 1)
	for i := range rows {
		b.Field(0).(*array.Date32Builder).Append(arrow.Date32(first + domain.Date(i*7%365)))
		b.Field(1).(*array.Int64Builder).Append(int64(i%97) - 40)
		b.Field(2).(*array.Int64Builder).Append(math.MaxInt64/4 - int64(i%2)*(math.MaxInt64/2))
		b.Field(3).(*array.Float64Builder).Append(float64(i%13) / 7)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sch, &buf, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(100)), pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.parquet"), buf.Bytes(), 0o644))
}

// TestOrderFreeQuestionsClaimRowGroups: a streamed question whose terms
// are all order-free (counts, distinct counts, exact minima and maxima, an
// integer sum its statistics bound) lets any worker take the next row
// group; one with a float, or an integer sum whose partials could pass
// int64, keeps each row group on worker g mod P. Either way the answer is
// the cache's.
func TestOrderFreeQuestionsClaimRowGroups(t *testing.T) {
	dir := t.TempDir()
	claimParquet(t, dir, 2000)
	cols := []domain.ModelColumn{col("d", domain.TypeDate), col("n", domain.TypeInteger), col("big", domain.TypeInteger), col("x", domain.TypeFloat)}
	model := domain.Model{Name: "t", Source: "files", Table: "t", Columns: cols}
	leg := func(ms ...domain.MetricRef) domain.Leg {
		return domain.Leg{Base: tbl("t", "t0", cols...), TimeColumn: "d", Metrics: ms}
	}
	ctx := context.Background()
	streamed, err := New(ctx, Config{Source: "files", Files: os.DirFS(dir), Models: []domain.Model{model}, NoCacheFill: true, Parallelism: 2})
	require.NoError(t, err)
	cached := newEngine(t, os.DirFS(dir), model)
	for _, tc := range []struct {
		name  string
		leg   domain.Leg
		claim bool
	}{
		{"counts, distinct, min, max and a bounded sum", leg(metric("rows", count("n")), metric("kinds", simple(domain.CountDistinct, "n")),
			metric("lo", simple(domain.Min, "big")), metric("hi", simple(domain.Max, "d")), metric("total", sum("n")), metric("mean", simple(domain.Avg, "n"))), true},
		{"a float sum", leg(metric("total", sum("x")), metric("rows", count("n"))), false},
		{"a sum whose partials could pass int64", leg(metric("total", sum("big")), metric("rows", count("n"))), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := mkPlan(t, domain.Month, "2025-01-01", "2026-01-01", tc.leg)
			claimed, dealt := claimedAndDealt(t, streamed, plan)
			if tc.claim {
				assert.Equal(t, 20, claimed, "row groups any worker takes")
				assert.Zero(t, dealt, "row groups dealt g mod P")
			} else {
				assert.Zero(t, claimed)
				assert.Equal(t, 20, dealt)
			}
			want, err := cached.Execute(ctx, plan)
			if err != nil {
				_, err2 := streamed.Execute(ctx, plan)
				require.Error(t, err2, "the cache refused what the stream answered: %v", err)
				return
			}
			require.NoError(t, cached.Settle(ctx))
			want, err = cached.Execute(ctx, plan)
			require.NoError(t, err)
			for range 5 {
				assert.Equal(t, rendered(want), run(t, streamed, plan))
			}
		})
	}
}

// claimedAndDealt opens the question's file producer and counts its row
// groups any worker may take, and those dealt to one worker.
func claimedAndDealt(t *testing.T, e *Engine, plan *domain.Plan) (claimed, dealt int) {
	t.Helper()
	ctx := context.Background()
	q, err := e.bind(ctx, plan, nil, true)
	require.NoError(t, err)
	defer q.release()
	mem := &gate.Reservation{Budget: e.cache}
	defer mem.Done()
	src, err := e.producer(ctx, q, mem, nil)
	require.NoError(t, err)
	fp := src.(*fileProducer)
	defer fp.Close()
	for _, d := range fp.direct {
		dealt += len(d)
	}
	return len(fp.claim), dealt
}

package engine

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/footer"
)

// sortedParquet is n rows of (day, amount), day rising from 2024-01-01 by
// one every perDay rows, in row groups of rowGroup rows.
func sortedParquet(t testing.TB, n, perDay, rowGroup int) []byte {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "day", Type: arrow.FixedWidthTypes.Date32},
		{Name: "amount", Type: arrow.PrimitiveTypes.Int64},
		{Name: "note", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	first := domain.DateOf(2024, 1, 1)
	for i := range n {
		b.Field(0).(*array.Date32Builder).Append(arrow.Date32(first + domain.Date(i/perDay)))
		b.Field(1).(*array.Int64Builder).Append(int64(i*7919) % 1000)
		b.Field(2).(*array.StringBuilder).Append("unread padding that no question asks for")
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sch, &buf, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(int64(rowGroup))), pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	return buf.Bytes()
}

func TestEstimate(t *testing.T) {
	model := domain.Model{Name: "t", Source: "files", Table: "t", Columns: []domain.ModelColumn{col("day", domain.TypeDate), col("amount", domain.TypeInteger)}}
	leg := domain.Leg{Base: tbl("t", "t0", model.Columns...), TimeColumn: "day", Metrics: []domain.MetricRef{metric("total", sum("amount"))}}
	pq := sortedParquet(t, 73000, 100, 1000) // 730 days, 73 row groups of 10 days
	csv := "day,amount\n2024-01-01,1\n2024-06-01,2\n"
	e := newEngine(t, fstest.MapFS{"t.parquet": {Data: pq}}, model)
	est := func(e *Engine, start, end string) int64 {
		n, known, err := e.Estimate(context.Background(), mkPlan(t, domain.Month, start, end, leg))
		require.NoError(t, err)
		require.True(t, known)
		return n
	}
	all := est(e, "2024-01-01", "2026-01-01")
	year := est(e, "2024-01-01", "2025-01-01")
	month := est(e, "2024-03-01", "2024-04-01")
	assert.Positive(t, month)
	assert.Less(t, month, year/8, "a month of a sorted file estimates about a twelfth of a year")
	assert.Less(t, year, all*6/10)
	assert.Less(t, all, int64(len(pq)), "the unread column is not counted")
	assert.Zero(t, est(e, "2023-01-01", "2023-06-01"), "no row group meets a range before the data")

	// The estimate is what a cold execution reads, within the footer and
	// page headers.
	_, cost, err := e.ExecuteWithCost(context.Background(), mkPlan(t, domain.Month, "2024-01-01", "2026-01-01", leg))
	require.NoError(t, err)
	t.Logf("estimate %d bytes, realized %d, file %d", all, cost.BytesRead, len(pq))

	// Other files count whole.
	c := newEngine(t, fstest.MapFS{"t.csv": {Data: []byte(csv)}}, model)
	assert.Equal(t, int64(len(csv)), est(c, "2024-03-01", "2024-04-01"))

	// A file that changed is read again.
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.parquet"), sortedParquet(t, 1000, 100, 100), 0o644))
	d := newEngine(t, os.DirFS(dir), model)
	small := est(d, "2024-01-01", "2026-01-01")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.parquet"), pq, 0o644))
	assert.Equal(t, all, est(d, "2024-01-01", "2026-01-01"), "was %d", small)

	// Several legs: not this engine's to estimate.
	_, known, err := e.Estimate(context.Background(), &domain.Plan{Legs: []domain.Leg{leg, leg}})
	require.NoError(t, err)
	assert.False(t, known)
}

// TestFootersDecodedOncePerFile: start-up checks, the data span, an
// estimate and every streamed question read a Parquet file's footer
// through the engine's footers, so it is decoded once while the file's
// bytes stay the same — and again, with the new answer, once they change.
func TestFootersDecodedOncePerFile(t *testing.T) {
	model := domain.Model{Name: "t", Source: "files", Table: "t", Columns: []domain.ModelColumn{col("day", domain.TypeDate), col("amount", domain.TypeInteger)}}
	leg := domain.Leg{Base: tbl("t", "t0", model.Columns...), TimeColumn: "day", Metrics: []domain.MetricRef{metric("total", sum("amount"))}}
	dir := t.TempDir()
	path := filepath.Join(dir, "t.parquet")
	require.NoError(t, os.WriteFile(path, sortedParquet(t, 7300, 100, 1000), 0o644))
	ctx := context.Background()
	decoded := footer.Decodes()
	e, err := New(ctx, Config{Source: "files", Files: os.DirFS(dir), Models: []domain.Model{model}, NoCacheFill: true})
	require.NoError(t, err)
	require.NoError(t, e.Validate(ctx))
	_, _, ok, err := e.DataSpan(ctx, "t", "day")
	require.NoError(t, err)
	require.True(t, ok)
	plan := mkPlan(t, domain.Year, "2024-01-01", "2026-01-01", leg)
	_, _, err = e.Estimate(ctx, plan)
	require.NoError(t, err)
	before := run(t, e, plan)
	require.Equal(t, before, run(t, e, plan))
	assert.EqualValues(t, 1, footer.Decodes()-decoded, "footer decodes of one file")

	require.NoError(t, os.WriteFile(path, sortedParquet(t, 3650, 100, 1000), 0o644))
	after := run(t, e, plan)
	assert.NotEqual(t, before, after, "a rewritten file answered from its old footer")
	assert.EqualValues(t, 2, footer.Decodes()-decoded, "footer decodes after the file changed")
}

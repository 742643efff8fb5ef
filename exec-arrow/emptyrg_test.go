package engine

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

// emptyRowGroupParquet writes a file of row groups of the given rows: a
// date, a boolean and an integer, nullable as most writers make them.
func emptyRowGroupParquet(t *testing.T, dir string, groups ...int) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "ok", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	batch := func(rows int) arrow.RecordBatch {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
		defer b.Release()
		first := domain.DateOf(2025, 1, 1)
		for i := range rows {
			b.Field(0).(*array.Date32Builder).Append(arrow.Date32(first + domain.Date(i%60)))
			b.Field(1).(*array.BooleanBuilder).Append(i%3 == 0)
			b.Field(2).(*array.Int64Builder).Append(int64(i))
		}
		return b.NewRecordBatch()
	}
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sch, &buf, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	for i, rows := range groups {
		if i > 0 {
			w.NewBufferedRowGroup()
		}
		rec := batch(rows)
		require.NoError(t, w.WriteBuffered(rec))
		rec.Release()
	}
	require.NoError(t, w.Close())
	rd, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	require.Equal(t, len(groups), rd.NumRowGroups())
	for i, rows := range groups {
		require.EqualValues(t, rows, rd.RowGroup(i).NumRows())
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.parquet"), buf.Bytes(), 0o644))
}

// A row group of no row, among others or alone, with a boolean column
// grouped on: streamed and cached, the answer is the other row groups'
// rows, or none.
func TestEmptyRowGroup(t *testing.T) {
	for _, tc := range []struct {
		groups []int
		want   [][]string
	}{
		{[]int{100, 0, 50}, [][]string{
			{"false", "2025-01-01", "60", "2100", "0"}, {"false", "2025-02-01", "38", "1925", "0"}, {"false", "2025-03-01", "1", "59", "0"},
			{"true", "2025-01-01", "33", "1155", "33"}, {"true", "2025-02-01", "18", "936", "18"}}},
		{[]int{0}, [][]string{}},
	} {
		dir := t.TempDir()
		emptyRowGroupParquet(t, dir, tc.groups...)
		cols := []domain.ModelColumn{col("d", domain.TypeDate), col("ok", domain.TypeBoolean), col("n", domain.TypeInteger)}
		model := domain.Model{Name: "t", Source: "files", Table: "t", Columns: cols}
		leg := domain.Leg{Base: tbl("t", "t0", cols...), TimeColumn: "d",
			Metrics:    []domain.MetricRef{metric("rows", count("n")), metric("total", sum("n")), metric("oks", countIf("ok"))},
			Dimensions: []domain.DimensionRef{dim("ok", "t0", "ok")}}
		plan := mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", leg)
		ctx := context.Background()
		streamed, err := New(ctx, Config{Source: "files", Files: os.DirFS(dir), Models: []domain.Model{model}, NoCacheFill: true, Parallelism: 2})
		require.NoError(t, err)
		assert.Equal(t, tc.want, run(t, streamed, plan), "streamed, row groups %v", tc.groups)
		cached := newEngine(t, os.DirFS(dir), model)
		require.NoError(t, cached.Settle(ctx))
		assert.Equal(t, tc.want, run(t, cached, plan), "cached, row groups %v", tc.groups)
	}
}

package format

import (
	"bytes"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/require"
)

// TestIntsFit32: an INT64 column fits 32 bits by its statistics when every
// row group's minimum and maximum do; one value past them in any row
// group, a row group of nulls only (no statistics of range) or a column
// not in the file says no.
func TestIntsFit32(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "small", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "big", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "late", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i := range 3000 {
		b.Field(0).(*array.Int64Builder).Append(int64(i%7) + math.MinInt32)
		b.Field(1).(*array.Int64Builder).Append(int64(i) + math.MaxInt32 - 10)
		if i < 1000 {
			b.Field(2).AppendNull() // the first row group holds no value
		} else {
			b.Field(2).(*array.Int64Builder).Append(int64(i))
		}
	}
	md := footerOf(t, b)
	require.Equal(t, 3, md.NumRowGroups())
	require.True(t, IntsFit32(md, "small"))
	require.False(t, IntsFit32(md, "big"))
	require.False(t, IntsFit32(md, "late"))
	require.False(t, IntsFit32(md, "absent"))
}

// TestDaysFit16: a date column's days fit two bytes by its statistics
// when every row group's lie within 32,767 days of each other's, not
// when two row groups' together span more.
func TestDaysFit16(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "near", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "far", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i := range 2000 {
		b.Field(0).(*array.Date32Builder).Append(arrow.Date32(20_000 + i%32_000))
		far := arrow.Date32(20_000)
		if i >= 1000 {
			far = 20_000 + 32_768 // the second row group's
		}
		b.Field(1).(*array.Date32Builder).Append(far)
	}
	md := footerOf(t, b)
	require.True(t, DaysFit16(md, "near"))
	require.False(t, DaysFit16(md, "far"))
	require.False(t, DaysFit16(md, "absent"))
}

// footerOf writes b's record to a Parquet file in memory, in row groups
// of 1,000 rows, and returns its footer.
func footerOf(t *testing.T, b *array.RecordBuilder) *metadata.FileMetaData {
	t.Helper()
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(rec.Schema(), &buf, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(1000)), pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	return pf.MetaData()
}

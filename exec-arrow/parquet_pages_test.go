package engine

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/format"
)

// pagesSchema holds a column of each stored type a PageChunk reads, all
// OPTIONAL (nullable) but the last two.
var pagesSchema = arrow.NewSchema([]arrow.Field{
	{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "key", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "ms", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "us", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
	{Name: "ns", Type: &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "dec18", Type: &arrow.Decimal128Type{Precision: 18, Scale: 2}, Nullable: true},
	{Name: "dec9", Type: &arrow.Decimal128Type{Precision: 9, Scale: 3}, Nullable: true},
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "req", Type: arrow.PrimitiveTypes.Int64},
	{Name: "breq", Type: arrow.FixedWidthTypes.Boolean},
}, nil)

// pagesFileCase is one shape of file writePagesFile writes: its nulls
// (one in nullEvery) and its writer's properties beyond the base ones.
type pagesFileCase struct {
	name      string
	nullEvery int
	props     []parquet.WriterProperty
}

// pagesFileCases are the base writer properties (small row groups and
// pages, snappy, decimals as integers) and the shapes the decoder tests
// compare both paths on.
func pagesFileCases() ([]parquet.WriterProperty, []pagesFileCase) {
	base := []parquet.WriterProperty{parquet.WithMaxRowGroupLength(30_000), parquet.WithDataPageSize(4 << 10),
		parquet.WithDictionaryPageSizeLimit(16 << 10), parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithStoreDecimalAsInteger(true), parquet.WithVersion(parquet.V2_LATEST)}
	return base, []pagesFileCase{
		{"nulls, dictionaries falling back", 5, nil},
		{"no nulls", 0, nil},
		{"mostly nulls", 2, nil},
		{"no dictionaries", 7, []parquet.WriterProperty{parquet.WithDictionaryDefault(false)}},
		{"version-2 data pages", 3, []parquet.WriterProperty{parquet.WithDataPageVersion(parquet.DataPageV2)}},
		{"a page index (skips seek)", 4, []parquet.WriterProperty{parquet.WithPageIndexEnabled(true)}},
	}
}

// pagesProtos are the columns as a catalogue declares them.
var pagesProtos = []*column.Column{
	{Name: "i64", Type: domain.TypeInteger}, {Name: "i32", Type: domain.TypeInteger}, {Name: "f", Type: domain.TypeFloat},
	{Name: "s", Type: domain.TypeText}, {Name: "key", Type: domain.TypeText}, {Name: "d", Type: domain.TypeDate},
	{Name: "ms", Type: domain.TypeTimestamp}, {Name: "us", Type: domain.TypeTimestamp}, {Name: "ns", Type: domain.TypeTimestamp},
	{Name: "dec18", Type: domain.TypeDecimal}, {Name: "dec9", Type: domain.TypeDecimal}, {Name: "b", Type: domain.TypeBoolean},
	{Name: "req", Type: domain.TypeInteger}, {Name: "breq", Type: domain.TypeBoolean},
}

// writePagesFile writes rows of pagesSchema with nulls at a rate of one
// in nullEvery (0: none), negative and pre-1970 values, empty texts, a
// text key of so many distinct values that its dictionary falls back to
// PLAIN pages within each chunk.
func writePagesFile(t testing.TB, rows, nullEvery int, props *parquet.WriterProperties) []byte {
	b := array.NewRecordBuilder(memory.DefaultAllocator, pagesSchema)
	defer b.Release()
	for i := range rows {
		null := func(k int) bool { return nullEvery > 0 && (i*7+k*13)%nullEvery == 0 }
		for f := range pagesSchema.NumFields() - 2 {
			if null(f) {
				b.Field(f).AppendNull()
			}
		}
		if !null(0) {
			b.Field(0).(*array.Int64Builder).Append(int64(i*7919%100_003) - 50_000)
		}
		if !null(1) {
			b.Field(1).(*array.Int32Builder).Append(int32(i%97) - 48)
		}
		if !null(2) {
			b.Field(2).(*array.Float64Builder).Append(float64(i%1000)/8 - 60)
		}
		if !null(3) {
			s := fmt.Sprintf("v%d", i*31%500)
			if i%333 == 5 {
				s = ""
			}
			b.Field(3).(*array.StringBuilder).Append(s)
		}
		if !null(4) {
			b.Field(4).(*array.StringBuilder).Append(fmt.Sprintf("session-%07d", i*7919%1_000_003))
		}
		if !null(5) {
			b.Field(5).(*array.Date32Builder).Append(arrow.Date32(int32(i%900) - 300))
		}
		micros := int64(i)*86_399_999_123%(4*365*86_400_000_000) - 365*86_400_000_000
		if !null(6) {
			b.Field(6).(*array.TimestampBuilder).Append(arrow.Timestamp(micros / 1000))
		}
		if !null(7) {
			b.Field(7).(*array.TimestampBuilder).Append(arrow.Timestamp(micros))
		}
		if !null(8) {
			b.Field(8).(*array.TimestampBuilder).Append(arrow.Timestamp(micros*1000 + int64(i%1000)))
		}
		if !null(9) {
			b.Field(9).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i*104_729%2_000_000) - 1_000_000))
		}
		if !null(10) {
			b.Field(10).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i*7%999_999_999) - 500_000_000))
		}
		if !null(11) {
			b.Field(11).(*array.BooleanBuilder).Append(i%3 == 1 || i%7 == 0)
		}
		b.Field(12).(*array.Int64Builder).Append(int64(i % 5))
		b.Field(13).(*array.BooleanBuilder).Append(i%5 == 2 || i%11 == 0)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(pagesSchema, &buf, props, pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// TestPageChunkMatchesGeneralPath reads every column chunk of files of
// OPTIONAL columns of every type a PageChunk reads (booleans included)
// — with and without nulls, dictionary pages falling
// back to PLAIN within a chunk, dictionaries turned off, version-2 data
// pages — through PageChunk, batch by batch (one batch skipped), and
// through the general path (pqarrow, then BatchColumn): every cell and
// every null is the same. Timestamps of each unit come out in
// microseconds, dates in days, INT32 and INT64 decimals as coefficients
// at the file's scale.
func TestPageChunkMatchesGeneralPath(t *testing.T) {
	base, cases := pagesFileCases()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := writePagesFile(t, 70_000, tc.nullEvery, parquet.NewWriterProperties(append(base, tc.props...)...))
			pf, err := file.NewParquetReader(bytes.NewReader(data))
			require.NoError(t, err)
			fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 6_000}, memory.DefaultAllocator)
			require.NoError(t, err)
			sch := pf.MetaData().Schema
			for _, unit := range []struct {
				name string
				want schema.TimeUnitType
			}{{"ms", schema.TimeUnitMillis}, {"us", schema.TimeUnitMicros}, {"ns", schema.TimeUnitNanos}} {
				lt := sch.Column(sch.ColumnIndexByName(unit.name)).LogicalType().(schema.TimestampLogicalType)
				require.Equal(t, unit.want, lt.TimeUnit(), "column %s", unit.name)
			}
			require.Equal(t, parquet.Types.Int32, sch.Column(sch.ColumnIndexByName("dec9")).PhysicalType())
			require.Equal(t, parquet.Types.Int64, sch.Column(sch.ColumnIndexByName("dec18")).PhysicalType())
			if tc.props == nil {
				require.Positive(t, plainPages(t, pf.MetaData(), "key"), "the key fell back to PLAIN pages")
			}
			for rg := range pf.NumRowGroups() {
				rgr := pf.RowGroup(rg)
				n := int(rgr.NumRows())
				for leaf, proto := range pagesProtos {
					descr := sch.Column(leaf)
					require.True(t, format.PageEligible(rgr.MetaData(), leaf, descr, proto), "column %s", proto.Name)
					comparePageChunk(t, fr, rgr, rg, leaf, proto, n, nil)
					comparePageChunk(t, fr, rgr, rg, leaf, proto, n, bytes.NewReader(data))
				}
			}
		})
	}
}

// openPageChunk opens a column chunk's pages: through the library's
// page reader, or (src not nil) read from src itself.
func openPageChunk(t testing.TB, pf *file.Reader, src io.ReaderAt, rg, leaf int, proto *column.Column) (*format.PageChunk, error) {
	descr := pf.MetaData().Schema.Column(leaf)
	if src == nil {
		return format.NewPageChunk(pf.RowGroup(rg), leaf, descr, proto)
	}
	cs := format.ChunkSource{Src: src, File: pf, Limit: 64 << 20, IO: &format.PageIO{}}
	return format.NewPageChunkAt(cs, rg, leaf, descr, proto)
}

// comparePageChunk reads one column chunk both ways and compares them:
// its pages read by the library (src nil) or from src itself.
func comparePageChunk(t *testing.T, fr *pqarrow.FileReader, rgr *file.RowGroupReader, rg, leaf int, proto *column.Column, n int, src io.ReaderAt) {
	const batch = 6_000
	d, err := openPageChunk(t, fr.ParquetReader(), src, rg, leaf, proto)
	require.NoError(t, err)
	defer d.Close()
	rr, err := fr.GetRecordReader(context.Background(), []int{leaf}, []int{rg})
	require.NoError(t, err)
	defer rr.Release()
	buf := format.DictBuffers{}
	for off := 0; off < n; off += batch {
		k := min(batch, n-off)
		buf = buf.Grow(k, proto.Type)
		require.True(t, rr.Next())
		rec := rr.RecordBatch()
		require.Equal(t, k, int(rec.NumRows()))
		if off == batch {
			require.NoError(t, d.Skip(k, buf))
			continue
		}
		got, err := d.Next(k, buf)
		require.NoError(t, err, "column %s", proto.Name)
		want, err := format.BatchColumn(proto, rec.Column(0), "f", off, false)
		require.NoError(t, err)
		for r := range int32(k) {
			if want.IsValid(r) != got.IsValid(r) || want.Cell(r) != got.Cell(r) {
				require.Equal(t, want.Cell(r), got.Cell(r), "column %s, row group %d, row %d", proto.Name, rg, off+int(r))
				require.Equal(t, want.IsValid(r), got.IsValid(r), "column %s, row group %d, row %d", proto.Name, rg, off+int(r))
			}
		}
		assert.Equal(t, want.Scale, got.Scale, "column %s", proto.Name)
	}
	_, err = d.Next(1, buf.Grow(1, proto.Type))
	assert.Error(t, err, "past the end of the chunk")
}

// TestPageChunkDecimalPrecision: a coefficient past the declared
// precision is refused naming its row, as the general path refuses it;
// a declared scale other than the file's is left to the general path.
func TestPageChunkDecimalPrecision(t *testing.T) {
	data := writePagesFile(t, 1_000, 4, parquet.NewWriterProperties(parquet.WithStoreDecimalAsInteger(true)))
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	require.NoError(t, err)
	leaf := pf.MetaData().Schema.ColumnIndexByName("dec18")
	descr := pf.MetaData().Schema.Column(leaf)
	narrow := &column.Column{Name: "dec18", Type: domain.TypeDecimal, Spec: column.DecimalSpec{Precision: 5, Scale: 2, Scaled: true}}
	require.True(t, format.PageEligible(pf.MetaData().RowGroup(0), leaf, descr, narrow))
	d, err := format.NewPageChunk(pf.RowGroup(0), leaf, descr, narrow)
	require.NoError(t, err)
	defer d.Close()
	_, err = d.Next(1_000, format.DictBuffers{}.Grow(1_000, domain.TypeDecimal))
	var ae *format.ArrowErr
	require.ErrorAs(t, err, &ae)
	assert.ErrorAs(t, ae.Err, &column.ErrPrecision{})

	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1_000}, memory.DefaultAllocator)
	require.NoError(t, err)
	rr, err := fr.GetRecordReader(context.Background(), []int{leaf}, []int{0})
	require.NoError(t, err)
	defer rr.Release()
	require.True(t, rr.Next())
	_, werr := format.BatchColumn(narrow, rr.RecordBatch().Column(0), "f", 0, false)
	require.Error(t, werr)
	assert.Contains(t, werr.Error(), fmt.Sprintf("row %d:", ae.Row+1), "the same row as the general path")

	rescaled := &column.Column{Name: "dec18", Type: domain.TypeDecimal, Spec: column.DecimalSpec{Scale: 4, Scaled: true}}
	assert.False(t, format.PageEligible(pf.MetaData().RowGroup(0), leaf, descr, rescaled))
}

// FuzzPageChunk holds PageChunk to this property on any bytes of a
// Parquet file whose footer still reads: every column chunk it is given
// decodes batch by batch to the end or to an error, never a panic (an
// index, a length or a level out of range in a page is an error). The
// seeds are uncompressed files of every stored type it reads, OPTIONAL
// with nulls, in dictionary and PLAIN pages, version 1 and 2, with a
// page index (skips seek by it), so that mutations reach the levels, the
// indexes, the values and the offsets.
func FuzzPageChunk(f *testing.F) {
	for _, v2 := range []bool{false, true} {
		props := []parquet.WriterProperty{parquet.WithMaxRowGroupLength(300), parquet.WithDataPageSize(256),
			parquet.WithDictionaryPageSizeLimit(512), parquet.WithStoreDecimalAsInteger(true), parquet.WithVersion(parquet.V2_LATEST),
			parquet.WithPageIndexEnabled(true)}
		if v2 {
			props = append(props, parquet.WithDataPageVersion(parquet.DataPageV2))
		}
		f.Add(writePagesFile(f, 700, 3, parquet.NewWriterProperties(props...)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		src := bytes.NewReader(data)
		limit, err := format.PageLimit(src)
		require.NoError(t, err)
		// As the engine streams it: pages no larger than the file allows,
		// read through a buffer (not a column chunk at a time, whatever
		// size the footer declares).
		rp := parquet.NewReaderProperties(memory.DefaultAllocator)
		rp.MaxUncompressedPageSize = limit
		rp.BufferedStreamEnabled, rp.BufferSize = true, 4<<10
		pf, err := file.NewParquetReader(src, file.WithReadProps(rp))
		if err != nil {
			return
		}
		if format.CheckRows("f", pf.MetaData()) != nil {
			return
		}
		sch := pf.MetaData().Schema
		for rg := range pf.NumRowGroups() {
			rgr := pf.RowGroup(rg)
			// A footer may declare 2³¹ rows of runs that cost nothing to
			// store: the first few thousand are enough to fuzz.
			n := min(int(rgr.NumRows()), 4_000)
			for leaf := range min(sch.NumColumns(), len(pagesProtos)) {
				descr := sch.Column(leaf)
				proto := pagesProtos[leaf]
				if !format.PageEligible(rgr.MetaData(), leaf, descr, proto) {
					continue
				}
				// Both ways: through the library's page reader, and read
				// from the file itself (windows of 4 KiB).
				for _, own := range []bool{false, true} {
					var d *format.PageChunk
					if own {
						cs := format.ChunkSource{Src: src, File: pf, Limit: limit, IO: &format.PageIO{}}
						d, err = format.NewPageChunkAt(cs, rg, leaf, descr, proto)
					} else {
						d, err = format.NewPageChunk(rgr, leaf, descr, proto)
					}
					if err != nil {
						continue
					}
					buf := format.DictBuffers{}.Grow(min(n, 128), proto.Type)
					for off := 0; off < n; off += 128 {
						k := min(128, n-off)
						if off%256 == 128 {
							err = d.Skip(k, buf)
						} else {
							_, err = d.Next(k, buf)
						}
						if err != nil {
							break
						}
					}
					d.Close()
				}
			}
		}
	})
}

// countingReader counts the bytes read from a file.
type countingReader struct {
	*bytes.Reader
	n atomic.Int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.n.Add(int64(len(p)))
	return c.Reader.ReadAt(p, off)
}

// TestPageChunkSkipsPagesByOffsetIndex: in a file with a page index, a
// skip of most of a column chunk seeks past its pages — they are not
// read (nor decompressed) — and the rows after it are decoded as the
// general path decodes them; without the index, the same skip reads the
// pages (the library's reader) or their headers (read from the file
// itself) and gives the same rows. Both page readers are held to it.
func TestPageChunkSkipsPagesByOffsetIndex(t *testing.T) {
	const rows, skip = 200_000, 190_000
	big := 0
	for _, indexed := range []bool{true, false} {
		data := writePagesFile(t, rows, 5, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(rows),
			parquet.WithDataPageSize(4<<10), parquet.WithDictionaryPageSizeLimit(16<<10), parquet.WithStoreDecimalAsInteger(true),
			parquet.WithVersion(parquet.V2_LATEST), parquet.WithPageIndexEnabled(indexed)))
		for i := range 2 * len(pagesProtos) {
			leaf, proto, own := i/2, pagesProtos[i/2], i%2 == 1
			src := &countingReader{Reader: bytes.NewReader(data)}
			rp := parquet.NewReaderProperties(memory.DefaultAllocator)
			rp.BufferedStreamEnabled, rp.BufferSize = true, 4<<10
			pf, err := file.NewParquetReader(src, file.WithReadProps(rp))
			require.NoError(t, err)
			cc, err := pf.MetaData().RowGroup(0).ColumnChunk(leaf)
			require.NoError(t, err)
			require.Equal(t, indexed, cc.GetOffsetIndexLocation() != nil)
			var from io.ReaderAt
			if own {
				from = src
			}
			d, err := openPageChunk(t, pf, from, 0, leaf, proto)
			require.NoError(t, err)
			before := src.n.Load()
			buf := format.DictBuffers{}.Grow(skip, proto.Type)
			require.NoError(t, d.Skip(skip, buf))
			got, err := d.Next(rows-skip, buf)
			require.NoError(t, err, "column %s", proto.Name)
			read := src.n.Load() - before
			d.Close()
			switch {
			case cc.TotalCompressedSize() < 200<<10:
				// A small chunk costs about what its seek reads besides
				// (the row group's offset indexes, the buffer of 4 KiB).
			case indexed:
				big++
				assert.Less(t, read, cc.TotalCompressedSize()/4, "column %s (own reader %v): the skipped pages were not read", proto.Name, own)
			case !own:
				assert.Greater(t, read, cc.TotalCompressedSize()/2, "column %s: without an index the pages are read", proto.Name)
			}

			fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: rows}, memory.DefaultAllocator)
			require.NoError(t, err)
			rr, err := fr.GetRecordReader(context.Background(), []int{leaf}, []int{0})
			require.NoError(t, err)
			require.True(t, rr.Next())
			tail := array.NewSlice(rr.RecordBatch().Column(0), skip, rows)
			want, err := format.BatchColumn(proto, tail, "f", 0, false)
			require.NoError(t, err)
			tail.Release()
			rr.Release()
			for r := range int32(rows - skip) {
				require.Equal(t, want.Cell(r), got.Cell(r), "column %s, row %d", proto.Name, skip+int(r))
			}
		}
	}
	assert.GreaterOrEqual(t, big, 8, "columns of many pages")
}

package engine

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/format"
)

// TestDictChunkMatchesWriter writes required text, date and integer
// columns in small dictionary pages and reads every row group back
// through dictChunk, batch by batch (one batch skipped), as the writer
// wrote them: dictionaries of one entry, of a thousand (ten-bit indexes),
// with an empty text (null), dates in long runs, and integer keys with so
// many distinct values that the writer falls back from the dictionary to
// PLAIN pages within each chunk.
func TestDictChunkMatchesWriter(t *testing.T) {
	const rows, group, batch = 120_000, 50_000, 7_000
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "one", Type: arrow.BinaryTypes.String},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32},
		{Name: "few", Type: arrow.PrimitiveTypes.Int64},
		{Name: "key", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	texts, days, keys := make([]string, rows), make([]int32, rows), make([]int64, rows)
	for i := range rows {
		texts[i] = fmt.Sprintf("v%d", (i*7919)%1000)
		if i%1000 == 17 {
			texts[i] = ""
		}
		days[i] = int32(19_000 + i/5_000)
		b.Field(0).(*array.StringBuilder).Append(texts[i])
		b.Field(1).(*array.StringBuilder).Append("x")
		b.Field(2).(*array.Date32Builder).Append(arrow.Date32(days[i]))
		keys[i] = int64(i*7919%100_003) - 50_000
		b.Field(3).(*array.Int64Builder).Append(int64(i%3) - 1)
		b.Field(4).(*array.Int64Builder).Append(keys[i])
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(group), parquet.WithDataPageSize(512),
		parquet.WithDictionaryPageSizeLimit(64<<10), parquet.WithCompression(compress.Codecs.Snappy))
	w, err := pqarrow.NewFileWriter(sch, &buf, props, pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())

	pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	protos := []*column.Column{{Name: "s", Type: domain.TypeText}, {Name: "one", Type: domain.TypeText}, {Name: "d", Type: domain.TypeDate},
		{Name: "few", Type: domain.TypeInteger}, {Name: "key", Type: domain.TypeInteger}}
	first := 0
	for rg := range pf.NumRowGroups() {
		rgr := pf.RowGroup(rg)
		n := int(rgr.NumRows())
		for leaf, proto := range protos {
			descr := pf.MetaData().Schema.Column(leaf)
			require.True(t, format.PageEligible(rgr.MetaData(), leaf, descr, proto), "column %s", proto.Name)
			if proto.Type != domain.TypeInteger {
				assert.False(t, format.PageEligible(rgr.MetaData(), leaf, descr, &column.Column{Type: domain.TypeInteger}), "column %s as an integer", proto.Name)
			} else {
				assert.False(t, format.PageEligible(rgr.MetaData(), leaf, descr, &column.Column{Type: domain.TypeText}), "column %s as text", proto.Name)
			}
			d, err := format.NewPageChunk(rgr, leaf, descr, proto)
			require.NoError(t, err)
			buf := format.DictBuffers{}.Grow(batch, proto.Type)
			for off := 0; off < n; off += batch {
				k := min(batch, n-off)
				if off == batch {
					require.NoError(t, d.Skip(k, buf))
					continue
				}
				c, err := d.Next(k, buf)
				require.NoError(t, err)
				for r := range k {
					i := first + off + r
					switch proto.Name {
					case "s":
						require.Equal(t, texts[i], c.Dict[c.Idx[r]], "row %d", i)
						require.Equal(t, texts[i] != "", c.Valid == nil || bitutil.BitIsSet(c.Valid, r), "row %d", i)
					case "one":
						require.Equal(t, "x", c.Dict[c.Idx[r]])
						require.Nil(t, c.Valid)
					case "d":
						require.Equal(t, days[i], int32(c.Days[r]), "row %d", i)
					case "few":
						require.Equal(t, int64(i%3)-1, c.Ints[r], "row %d", i)
					case "key":
						require.Equal(t, keys[i], c.Ints[r], "row %d", i)
					}
				}
			}
			_, err = d.Next(1, buf)
			assert.Error(t, err, "past the end of the chunk")
			d.Close()
		}
		first += n
	}
	require.Positive(t, plainPages(t, pf.MetaData(), "key"), "the key column fell back to PLAIN pages")
}

package engine

import (
	"bytes"
	"context"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/require"

	"sutura.dev/exec-arrow/internal/format"
)

// TestPageChunkViewsPlainIntegers reads PLAIN 64-bit integers that need
// no conversion as a worker does — row group after row group through one
// PageIO per column, batches of 7,000 rows — and compares every batch
// with the general path. A batch whose values all lie in one page, with
// no null, is read where its page was decompressed (a view: its Ints are
// not the worker's buffer); once the first page showed where its values
// start, later pages are decompressed so that theirs start on a multiple
// of 8 bytes, so views are met with levels before the values (OPTIONAL
// columns, version-1 pages) too. Batches with a null, batches across two
// pages, dictionary pages and timestamps converted to microseconds are
// copied, and must read the same; a null's value is 0 (dictionary values
// of a page with nulls are put at their rows, the others cleared). INT64
// decimals are their coefficients as they are: viewed too.
func TestPageChunkViewsPlainIntegers(t *testing.T) {
	base := []parquet.WriterProperty{parquet.WithMaxRowGroupLength(30_000), parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithStoreDecimalAsInteger(true), parquet.WithVersion(parquet.V2_LATEST), parquet.WithDictionaryDefault(false)}
	big := parquet.WithDataPageSize(8 << 20)
	cases := []struct {
		name      string
		nullEvery int
		props     []parquet.WriterProperty
		views     []string // columns some batch of must be a view
	}{
		{"one page a chunk, no nulls", 0, []parquet.WriterProperty{big}, []string{"i64", "us", "req", "dec18"}},
		{"version-2 pages", 0, []parquet.WriterProperty{big, parquet.WithDataPageVersion(parquet.DataPageV2)}, []string{"i64", "us", "req", "dec18"}},
		{"nulls", 5, []parquet.WriterProperty{big}, []string{"req"}},
		{"pages of 64 KiB", 0, []parquet.WriterProperty{parquet.WithDataPageSize(64 << 10)}, []string{"i64", "us", "req", "dec18"}},
		{"dictionaries", 0, []parquet.WriterProperty{big, parquet.WithDictionaryDefault(true), parquet.WithDictionaryPageSizeLimit(1 << 20)}, nil},
		{"dictionaries, nulls", 3, []parquet.WriterProperty{big, parquet.WithDictionaryDefault(true), parquet.WithDictionaryPageSizeLimit(1 << 20)}, nil},
	}
	cols := map[string]int{}
	for leaf, p := range pagesProtos {
		cols[p.Name] = leaf
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := writePagesFile(t, 100_000, c.nullEvery, parquet.NewWriterProperties(append(append([]parquet.WriterProperty{}, base...), c.props...)...))
			pf, err := file.NewParquetReader(bytes.NewReader(data))
			require.NoError(t, err)
			fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 7_000}, memory.DefaultAllocator)
			require.NoError(t, err)
			views := map[string]int{}
			for _, name := range []string{"i64", "us", "ms", "ns", "req", "dec18"} {
				leaf, proto := cols[name], pagesProtos[cols[name]]
				bufs := format.DictBuffers{IO: &format.PageIO{}}
				for rg := range pf.NumRowGroups() {
					cs := format.ChunkSource{Src: bytes.NewReader(data), File: pf, Limit: 64 << 20, IO: bufs.IO}
					d, err := format.NewPageChunkAt(cs, rg, leaf, pf.MetaData().Schema.Column(leaf), proto)
					require.NoError(t, err)
					rr, err := fr.GetRecordReader(context.Background(), []int{leaf}, []int{rg})
					require.NoError(t, err)
					n := int(pf.MetaData().RowGroup(rg).NumRows())
					for off := 0; off < n; {
						require.True(t, rr.Next())
						rec := rr.RecordBatch()
						k := int(rec.NumRows())
						bufs = bufs.Grow(k, proto.Type)
						got, err := d.Next(k, bufs)
						require.NoError(t, err, "column %s", name)
						want, err := format.BatchColumn(proto, rec.Column(0), "f", off, false)
						require.NoError(t, err)
						for r := range int32(k) {
							if want.IsValid(r) != got.IsValid(r) || want.Cell(r) != got.Cell(r) {
								require.Equal(t, want.Cell(r), got.Cell(r), "column %s, row group %d, row %d", name, rg, off+int(r))
								require.Equal(t, want.IsValid(r), got.IsValid(r), "column %s, row group %d, row %d", name, rg, off+int(r))
							}
							if !got.IsValid(r) {
								require.Zero(t, got.Ints[r], "column %s, row group %d, row %d: a null's value", name, rg, off+int(r))
							}
						}
						if unsafe.SliceData(got.Ints) != unsafe.SliceData(bufs.Ints) {
							views[name]++
							require.Nil(t, got.Valid, "column %s: a view of a batch with nulls", name)
						}
						off += k
					}
					rr.Release()
					d.Close()
				}
			}
			for _, name := range []string{"ms", "ns"} {
				require.Zero(t, views[name], "column %s: a view of values converted", name)
			}
			for _, name := range c.views {
				require.Positive(t, views[name], "column %s: no batch read where its page lies", name)
			}
			if c.views == nil {
				require.Empty(t, views, "a view of dictionary indexes")
			}
		})
	}
}

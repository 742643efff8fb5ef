package engine

import (
	"bytes"
	"context"
	"testing"
	"testing/fstest"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/format"
)

// pagesWants are pagesProtos as a load wants them: dec9 declared with
// the file's precision and scale, dec18 with neither (its scale is the
// file's).
func pagesWants() []format.Want {
	var ws []format.Want
	for _, p := range pagesProtos {
		w := format.Want{Name: p.Name, Type: p.Type}
		if p.Name == "dec9" {
			w.Spec = column.DecimalSpec{Precision: 9, Scale: 3, Scaled: true}
		}
		ws = append(ws, w)
	}
	return ws
}

// loadPages loads the wanted columns of one Parquet file through a
// format.Loader, as the cache's fill does (serial, or not), with the
// page decoder or through pqarrow alone.
func loadPages(t *testing.T, data []byte, wants []format.Want, serial, general bool) (*format.Loader, map[string]*column.Column, error) {
	t.Helper()
	format.NoPages.Store(general)
	defer format.NoPages.Store(false)
	fsys := fstest.MapFS{"t.parquet": {Data: data}}
	tf, err := files.Locate(fsys, "t")
	require.NoError(t, err)
	l := format.NewLoader(context.Background(), fsys, wants, false, nil)
	l.Serial = serial
	for _, p := range tf.Parts {
		if err := l.ReadPart(p); err != nil {
			return l, nil, err
		}
	}
	cols, err := l.Columns()
	return l, cols, err
}

// TestFillThroughPagesMatchesPqarrow: a table loaded into the cache's
// columns through the page decoder holds exactly what one loaded through
// pqarrow holds — every cell and every null of OPTIONAL columns of each
// stored type (text with empty values and dictionaries falling back to
// PLAIN pages, timestamps of each unit, INT32 and INT64 decimals, dates,
// booleans), in files with and without nulls, without dictionaries, of
// version-2 data pages — and the same rows and segments. The page path
// reads the chunks from the file itself (NewPageChunkAt), not through the
// Parquet library's page reader: its loader holds pages read that way.
func TestFillThroughPagesMatchesPqarrow(t *testing.T) {
	base, cases := pagesFileCases()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := writePagesFile(t, 100_000, tc.nullEvery, parquet.NewWriterProperties(append(base, tc.props...)...))
			ref, want, err := loadPages(t, data, pagesWants(), true, true)
			require.NoError(t, err)
			assert.Zero(t, ref.PageMemory())
			for _, serial := range []bool{true, false} {
				l, got, err := loadPages(t, data, pagesWants(), serial, false)
				require.NoError(t, err)
				assert.Positive(t, l.PageMemory(), "pages read from the file itself")
				assert.Equal(t, ref.Rows, l.Rows)
				assert.Equal(t, ref.Segs, l.Segs)
				require.Len(t, got, len(want))
				for name, w := range want {
					g := got[name]
					require.Equal(t, w.N, g.N, "column %s", name)
					require.Equal(t, w.Type, g.Type, "column %s", name)
					assert.Equal(t, w.Scale, g.Scale, "column %s", name)
					assert.Equal(t, w.ValidOnly, g.ValidOnly, "column %s", name)
					nulls := 0
					for r := range int32(w.N) {
						if w.IsValid(r) != g.IsValid(r) || w.Cell(r) != g.Cell(r) {
							require.Equal(t, w.IsValid(r), g.IsValid(r), "column %s, row %d", name, r)
							require.Equal(t, w.Cell(r), g.Cell(r), "column %s, row %d", name, r)
						}
						if !w.IsValid(r) {
							nulls++
						}
					}
					f, _ := pagesSchema.FieldsByName(name)
					if tc.nullEvery > 0 && tc.nullEvery != 7 && f[0].Nullable { // one in 7 nulls only some columns
						assert.Positive(t, nulls, "column %s has nulls", name)
					}
				}
			}
		})
	}
}

// TestFillThroughPagesRefusesAsPqarrow: a decimal past its declared
// precision fails the load through the page decoder with the error the
// pqarrow path gives, naming the same file row; so does a load of two
// row groups whose bad value is in the second (both read from the file
// itself, see TestFillThroughPagesMatchesPqarrow).
func TestFillThroughPagesRefusesAsPqarrow(t *testing.T) {
	data := writePagesFile(t, 50_000, 4, parquet.NewWriterProperties(parquet.WithStoreDecimalAsInteger(true),
		parquet.WithMaxRowGroupLength(20_000)))
	for _, prec := range []int32{5, 6} {
		wants := []format.Want{{Name: "dec18", Type: domain.TypeDecimal, Spec: column.DecimalSpec{Precision: prec, Scale: 2, Scaled: true}}}
		_, _, werr := loadPages(t, data, wants, true, true)
		require.Error(t, werr)
		l, _, gerr := loadPages(t, data, wants, true, false)
		require.Error(t, gerr)
		assert.Positive(t, l.PageMemory(), "precision %d", prec)
		assert.Equal(t, werr.Error(), gerr.Error(), "precision %d", prec)
	}
}

// TestFillThroughPagesFallsBackToPqarrow: a column chunk the page reader
// refuses to open (here, its dictionary page's header is malformed) is
// read through pqarrow, as the other columns are: the load fails as the
// pqarrow load does, not with the page reader's own error.
func TestFillThroughPagesFallsBackToPqarrow(t *testing.T) {
	data := writePagesFile(t, 20_000, 5, parquet.NewWriterProperties(parquet.WithStoreDecimalAsInteger(true)))
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	require.NoError(t, err)
	cc, err := pf.MetaData().RowGroup(0).ColumnChunk(pf.MetaData().Schema.ColumnIndexByName("s"))
	require.NoError(t, err)
	require.True(t, cc.HasDictionaryPage())
	data[cc.DictionaryPageOffset()] = 0 // the header ends before its first field
	wants := []format.Want{{Name: "i64", Type: domain.TypeInteger}, {Name: "s", Type: domain.TypeText}}
	_, _, werr := loadPages(t, data, wants, true, true)
	require.Error(t, werr)
	for _, serial := range []bool{true, false} {
		l, _, gerr := loadPages(t, data, wants, serial, false)
		require.Error(t, gerr)
		assert.Equal(t, werr.Error(), gerr.Error())
		assert.Positive(t, l.PageMemory(), "i64 read from the file itself")
	}
}

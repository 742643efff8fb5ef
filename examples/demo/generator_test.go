package demo_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/examples/demo"
	"sutura.dev/examples/demo/internal/datagen"
)

func generate(t *testing.T, rows int64, format datagen.Format) string {
	t.Helper()
	dir := t.TempDir()
	infos, err := datagen.Generate(datagen.Options{Rows: rows, Format: format, Dir: dir})
	require.NoError(t, err)
	require.Len(t, infos, len(datagen.TableNames()))
	for _, ti := range infos {
		if ti.Name == "orders" {
			require.Equal(t, rows, ti.Rows)
		}
	}
	return dir
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// TestGeneratorIsDeterministic: the same options give byte-identical files,
// in both formats.
func TestGeneratorIsDeterministic(t *testing.T) {
	for _, format := range []datagen.Format{datagen.FormatCSV, datagen.FormatParquet} {
		t.Run(string(format), func(t *testing.T) {
			a, b := generate(t, 3000, format), generate(t, 3000, format)
			for _, table := range datagen.TableNames() {
				name := table + "." + string(format)
				assert.Equal(t, readFile(t, filepath.Join(a, name)), readFile(t, filepath.Join(b, name)), name)
			}
		})
	}
}

// TestCommittedDataIsGenerated: the embedded data set is exactly what the
// generator writes with the documented flags (--rows demo.DataRows
// --format csv), and holds nothing else.
func TestCommittedDataIsGenerated(t *testing.T) {
	dir := generate(t, demo.DataRows, datagen.FormatCSV)
	entries, err := fs.ReadDir(demo.Data(), ".")
	require.NoError(t, err)
	var committed []string
	for _, e := range entries {
		committed = append(committed, e.Name())
	}
	var want []string
	for _, table := range datagen.TableNames() {
		want = append(want, table+".csv")
	}
	require.ElementsMatch(t, want, committed)
	for _, name := range want {
		got, err := fs.ReadFile(demo.Data(), name)
		require.NoError(t, err)
		assert.True(t, string(readFile(t, filepath.Join(dir, name))) == string(got),
			"data/%s differs from the generator's output; run `go generate` in examples/demo", name)
	}
}

// TestParquetMatchesCSV: both formats carry the same values, and Parquet
// columns are typed (int64, date32, bool, utf8) with nulls where CSV has
// empty fields.
func TestParquetMatchesCSV(t *testing.T) {
	const rows = 2000
	csvDir, pqDir := generate(t, rows, datagen.FormatCSV), generate(t, rows, datagen.FormatParquet)
	for _, table := range datagen.TableNames() {
		t.Run(table, func(t *testing.T) {
			want := parseCSV(t, readFile(t, filepath.Join(csvDir, table+".csv")))
			rdr, err := file.OpenParquetFile(filepath.Join(pqDir, table+".parquet"), false)
			require.NoError(t, err)
			defer rdr.Close()
			fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
			require.NoError(t, err)
			tbl, err := fr.ReadTable(context.Background())
			require.NoError(t, err)
			defer tbl.Release()
			require.Equal(t, int64(len(want.rows)), tbl.NumRows())
			require.Equal(t, len(want.header), int(tbl.NumCols()))
			for ci := 0; ci < int(tbl.NumCols()); ci++ {
				col := tbl.Column(ci)
				require.Equal(t, want.header[ci], col.Name())
				ri := 0
				for _, chunk := range col.Data().Chunks() {
					for i := 0; i < chunk.Len(); i++ {
						assert.Equal(t, want.rows[ri][ci], cellText(t, chunk, i), "%s row %d column %s", table, ri+1, col.Name())
						ri++
					}
				}
			}
		})
	}
}

// cellText renders a Parquet-read value the way the CSV writer does.
func cellText(t *testing.T, a arrow.Array, i int) string {
	t.Helper()
	if a.IsNull(i) {
		return ""
	}
	switch a := a.(type) {
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Date32:
		return a.Value(i).FormattedString()
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.String:
		return a.Value(i)
	}
	t.Fatalf("unexpected column type %s", a.DataType())
	return ""
}

// TestGeneratorRejectsBadOptions covers the argument checks.
func TestGeneratorRejectsBadOptions(t *testing.T) {
	dir := t.TempDir()
	for _, o := range []datagen.Options{
		{Rows: 0, Format: datagen.FormatCSV, Dir: dir},
		{Rows: datagen.MaxRows + 1, Format: datagen.FormatCSV, Dir: dir},
		{Rows: 10, Format: "json", Dir: dir},
		{Rows: 10, Format: datagen.FormatCSV},
	} {
		_, err := datagen.Generate(o)
		assert.Error(t, err, "%+v", o)
	}
}

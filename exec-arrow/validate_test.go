package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

// TestValidateParquetFromFooter: a Parquet table whose stored types
// already guarantee its declared types is validated from its footer,
// reading no data (on an engine that read every file it would count one
// read); a column whose stored type does not (text declared integer, a
// float that could hold NaN) is still read and its bad value named, and
// a missing column is still named from the footer.
func TestValidateParquetFromFooter(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sales.parquet"), salesParquet(t), 0o644))
	cols := func(cs ...domain.ModelColumn) []domain.ModelColumn { return cs }
	tests := []struct {
		name  string
		cols  []domain.ModelColumn
		reads int64
		err   string
	}{
		{"every type vouched for by the footer", cols(col("id", domain.TypeInteger), col("day", domain.TypeDate),
			col("qty", domain.TypeInteger), col("status", domain.TypeText), col("paid", domain.TypeBoolean), col("day", domain.TypeTimestamp)), 0, ""},
		{"a float is read", cols(col("id", domain.TypeInteger), col("price", domain.TypeFloat)), 1, ""},
		{"text declared integer is read and refused", cols(col("id", domain.TypeInteger), col("status", domain.TypeInteger)), 1, "status"},
		{"an untyped column reads the table", cols(col("id", domain.TypeInteger), domain.ModelColumn{Name: "cust"}), 1, ""},
		{"a missing column is named from the footer", cols(col("id", domain.TypeInteger), col("nope", domain.TypeInteger)), 0, "column nope is missing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(t, os.DirFS(dir), domain.Model{Name: "sales", Source: "files", Table: "sales", Columns: tc.cols})
			err := e.Validate(context.Background())
			if tc.err == "" {
				require.NoError(t, err)
			} else {
				require.ErrorContains(t, err, tc.err)
			}
			assert.Equal(t, tc.reads, e.cache.Stats().Reads, "data reads")
		})
	}
}

package engine

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

func TestDataSpan(t *testing.T) {
	sales := domain.Model{Name: "sales", Source: "files", Table: "sales", Columns: salesCols}
	inferred := domain.Model{Name: "sales", Source: "files", Table: "sales", Columns: []domain.ModelColumn{{Name: "day"}, {Name: "status"}}}
	events := domain.Model{Name: "sales", Source: "files", Table: "sales", Columns: []domain.ModelColumn{{Name: "at", Type: domain.TypeTimestamp}}}
	for _, tc := range []struct {
		name        string
		files       map[string][]byte
		model       domain.Model
		column      string
		first, last string // empty: no span
	}{
		{"csv, declared date", map[string][]byte{"sales.csv": []byte(salesCSV)}, sales, "day", "2024-12-31", "2025-03-15"},
		{"csv, inferred date", map[string][]byte{"sales.csv": []byte(salesCSV)}, inferred, "day", "2024-12-31", "2025-03-15"},
		{"csv.gz", map[string][]byte{"sales.csv.gz": gz(t, []byte(salesCSV))}, sales, "day", "2024-12-31", "2025-03-15"},
		{"ndjson", map[string][]byte{"sales.ndjson": []byte(salesNDJSON)}, sales, "day", "2024-12-31", "2025-03-15"},
		{"parquet statistics", map[string][]byte{"sales.parquet": salesParquet(t)}, sales, "day", "2024-12-31", "2025-03-15"},
		{"parquet.zst", map[string][]byte{"sales.parquet.zst": zst(t, salesParquet(t))}, sales, "day", "2024-12-31", "2025-03-15"},
		{"parts of two formats", map[string][]byte{
			"sales/a.parquet": salesParquet(t),
			"sales/b.csv":     []byte("id,day,cust,amount,price,status,paid,qty\n8,2026-06-30,1,1,1,done,true,1\n9,,1,1,1,done,true,1\n"),
		}, sales, "day", "2024-12-31", "2026-06-30"},
		{"timestamps are UTC days", map[string][]byte{"sales.csv": []byte("at\n2025-01-01T23:30:00-02:00\n2024-12-31T00:00:00Z\n\n")}, events, "at", "2024-12-31", "2025-01-02"},
		{"a text column has none", map[string][]byte{"sales.csv": []byte(salesCSV)}, inferred, "status", "", ""},
		{"a column of nulls has none", map[string][]byte{"sales.csv": []byte("at\n\n\n")}, events, "at", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for f, b := range tc.files {
				write(t, dir, f, string(b))
			}
			e := newEngine(t, os.DirFS(dir), tc.model)
			first, last, ok, err := e.DataSpan(context.Background(), tc.model.Name, tc.column)
			require.NoError(t, err)
			if tc.first == "" {
				assert.False(t, ok)
				return
			}
			require.True(t, ok)
			assert.Equal(t, tc.first, first.String())
			assert.Equal(t, tc.last, last.String())
			assert.Zero(t, e.cache.used, "a span caches nothing")
		})
	}

	t.Run("a text table over the bound has none", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, "sales.csv", salesCSV)
		defer func(old int64) { spanReadMax = old }(spanReadMax)
		spanReadMax = int64(len(salesCSV)) - 1
		_, _, ok, err := newEngine(t, os.DirFS(dir), sales).DataSpan(context.Background(), "sales", "day")
		require.NoError(t, err)
		assert.False(t, ok)
	})
	t.Run("a missing table or model is an error", func(t *testing.T) {
		e := newEngine(t, os.DirFS(t.TempDir()), sales)
		_, _, _, err := e.DataSpan(context.Background(), "sales", "day")
		assert.ErrorContains(t, err, "sales")
		_, _, _, err = e.DataSpan(context.Background(), "ghost", "day")
		assert.ErrorContains(t, err, "ghost")
	})
}

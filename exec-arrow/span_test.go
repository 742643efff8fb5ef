package engine

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

// eventsParquet is a Parquet file of one timestamp column "at" in unit,
// two row groups, one null: 2024-12-31T00:00:00Z, 2025-01-01T23:30:00-02:00.
func eventsParquet(t *testing.T, unit arrow.TimeUnit) []byte {
	typ := &arrow.TimestampType{Unit: unit, TimeZone: "UTC"}
	sch := arrow.NewSchema([]arrow.Field{{Name: "at", Type: typ, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	var vals []arrow.Timestamp
	for _, s := range []string{"2024-12-31T00:00:00Z", "2025-01-01T23:30:00-02:00", "2025-01-01T00:00:00Z"} {
		at, err := time.Parse(time.RFC3339, s)
		require.NoError(t, err)
		v, err := arrow.TimestampFromTime(at, unit)
		require.NoError(t, err)
		vals = append(vals, v)
	}
	b.Field(0).(*array.TimestampBuilder).AppendValues(vals, []bool{true, true, false})
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sch, &buf, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(2)), pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	return buf.Bytes()
}

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
		{"parquet timestamp statistics", map[string][]byte{"sales.parquet": eventsParquet(t, arrow.Millisecond)}, events, "at", "2024-12-31", "2025-01-02"},
		{"parquet timestamp statistics in nanoseconds", map[string][]byte{"sales.parquet": eventsParquet(t, arrow.Nanosecond)}, events, "at", "2024-12-31", "2025-01-02"},
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
			assert.Zero(t, e.cache.Stats().Used, "a span caches nothing")
		})
	}

	t.Run("a text table over the bound has none, a Parquet table has one", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, "sales.csv", salesCSV)
		defer func(old int64) { spanReadMax = old }(spanReadMax)
		spanReadMax = int64(len(salesCSV)) - 1
		_, _, ok, err := newEngine(t, os.DirFS(dir), sales).DataSpan(context.Background(), "sales", "day")
		require.NoError(t, err)
		assert.False(t, ok)

		pq := t.TempDir()
		write(t, pq, "sales.parquet", string(salesParquet(t)))
		spanReadMax = 1
		_, last, ok, err := newEngine(t, os.DirFS(pq), sales).DataSpan(context.Background(), "sales", "day")
		require.NoError(t, err)
		require.True(t, ok, "Parquet statistics are read whatever the size: no data is")
		assert.Equal(t, "2025-03-15", last.String())
	})
	t.Run("a missing table or model is an error", func(t *testing.T) {
		e := newEngine(t, os.DirFS(t.TempDir()), sales)
		_, _, _, err := e.DataSpan(context.Background(), "sales", "day")
		assert.ErrorContains(t, err, "sales")
		_, _, _, err = e.DataSpan(context.Background(), "ghost", "day")
		assert.ErrorContains(t, err, "ghost")
	})
}

package engine

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/format"
)

// salesParquet encodes the sales table of salesCSV as Parquet, with the
// types a Parquet writer would pick (int32 quantities, a timestamp
// column, a dictionary-free string column).
func salesParquet(t testing.TB) []byte {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "cust", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "amount", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "price", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "status", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "paid", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "qty", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "extra", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	d := func(s string) arrow.Date32 { return arrow.Date32(day(t, s)) }
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3, 4, 5, 6, 7}, nil)
	b.Field(1).(*array.Date32Builder).AppendValues([]arrow.Date32{d("2025-01-05"), d("2025-01-20"), d("2025-02-03"), d("2025-02-10"), d("2025-03-15"), d("2024-12-31"), d("2025-03-01")}, nil)
	b.Field(2).(*array.Int64Builder).AppendValues([]int64{1, 2, 1, 3, 9, 1, 0}, []bool{true, true, true, true, true, true, false})
	b.Field(3).(*array.Int64Builder).AppendValues([]int64{100, 50, 0, 70, 30, 999, 20}, []bool{true, true, false, true, true, true, true})
	b.Field(4).(*array.Float64Builder).AppendValues([]float64{1.5, 2.25, 0.5, 0, 4, 1, 1}, []bool{true, true, true, false, true, true, true})
	b.Field(5).(*array.StringBuilder).AppendValues([]string{"done", "done", "cancelled", "done", "done", "done", ""}, []bool{true, true, true, true, true, true, false})
	b.Field(6).(*array.BooleanBuilder).AppendValues([]bool{true, false, true, true, false, true, true}, []bool{true, true, true, true, false, true, true})
	b.Field(7).(*array.Int32Builder).AppendValues([]int32{2, 0, 1, 3, 1, 1, 1}, []bool{true, false, true, true, true, true, true})
	b.Field(8).(*array.StringBuilder).AppendValues([]string{"a", "b", "c", "d", "e", "f", "g"}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(3), parquet.WithCompression(compress.Codecs.Snappy))
	w, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	return buf.Bytes()
}

func gz(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	_, err := w.Write(b)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return buf.Bytes()
}

func zst(t testing.TB, b []byte) []byte {
	cd, err := compress.GetCodec(compress.Codecs.Zstd)
	require.NoError(t, err)
	var buf bytes.Buffer
	w := cd.(compress.StreamingCodec).NewWriter(&buf)
	_, err = w.Write(b)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return buf.Bytes()
}

const salesNDJSON = `{"id":1,"day":"2025-01-05","cust":1,"amount":100,"price":1.5,"status":"done","paid":true,"qty":2}
{"id":2,"day":"2025-01-20","cust":2,"amount":50,"price":2.25,"status":"done","paid":false,"qty":null}
{"id":3,"day":"2025-02-03","cust":1,"price":0.5,"status":"cancelled","paid":true,"qty":1}

{"id":4,"day":"2025-02-10","cust":3,"amount":70,"price":null,"status":"done","paid":true,"qty":3}
{"id":5,"day":"2025-03-15","cust":9,"amount":30,"price":4,"status":"done","qty":1}
{"id":6,"day":"2024-12-31","cust":1,"amount":999,"price":1,"status":"done","paid":true,"qty":1}
{"id":7,"day":"2025-03-01","amount":20,"price":1,"status":null,"paid":true,"qty":1}
`

// TestFormats runs one question over the sales table in every format.
func TestFormats(t *testing.T) {
	half := bytes.SplitAfterN([]byte(salesCSV), []byte("\n"), 5)
	tests := map[string]map[string][]byte{
		"csv":          {"sales.csv": []byte(salesCSV)},
		"csv crlf bom": {"sales.csv": append([]byte("\xEF\xBB\xBF"), bytes.ReplaceAll([]byte(salesCSV), []byte("\n"), []byte("\r\n"))...)},
		"csv.gz":       {"sales.csv.gz": gz(t, []byte(salesCSV))},
		"csv.zst":      {"sales.csv.zst": zst(t, []byte(salesCSV))},
		"ndjson":       {"sales.ndjson": []byte(salesNDJSON)},
		"jsonl.gz":     {"sales.jsonl.gz": gz(t, []byte(salesNDJSON))},
		"parquet":      {"sales.parquet": salesParquet(t)},
		"parquet.zst":  {"sales.parquet.zst": zst(t, salesParquet(t))},
		"directory": {
			"sales/part-0.csv":   bytes.Join(half[:4], nil),
			"sales/part-1.csv":   append([]byte("id,day,cust,amount,price,status,paid,qty\n"), half[4]...),
			"sales/_SUCCESS":     nil,
			"sales/.hidden.csv":  []byte("garbage"),
			"sales/notes.txt":    []byte("ignored"),
			"sales/zz.ndjson.gz": gz(t, []byte("")),
		},
	}
	for name, files := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for f, b := range files {
				write(t, dir, f, string(b))
			}
			e := newEngine(t, os.DirFS(dir))
			leg := salesLeg(metric("amount", sum("amount")), metric("price", sum("price")),
				metric("paid", countIf("paid")), metric("qty", count("qty")), metric("n", simple(domain.CountDistinct, "cust")))
			leg.Dimensions = []domain.DimensionRef{dim("status", "t0", "status")}
			got := run(t, e, mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", leg))
			require.Equal(t, [][]string{
				{"cancelled", "2025-02-01", "null", "0.5", "1", "1", "1"},
				{"done", "2025-01-01", "150", "3.75", "1", "1", "2"},
				{"done", "2025-02-01", "70", "null", "1", "1", "1"},
				{"done", "2025-03-01", "30", "4", "0", "1", "1"},
				{"null", "2025-03-01", "20", "1", "1", "1", "0"},
			}, got)
		})
	}
}

func TestAmbiguousAndMissingFiles(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "sales.csv", salesCSV)
	write(t, dir, "sales.ndjson", salesNDJSON)
	e := newEngine(t, os.DirFS(dir))
	_, err := e.Execute(context.Background(), mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", salesLeg(metric("a", sum("amount")))))
	require.ErrorContains(t, err, "more than one file")

	e = newEngine(t, os.DirFS(t.TempDir()))
	_, err = e.Execute(context.Background(), mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", salesLeg(metric("a", sum("amount")))))
	require.ErrorContains(t, err, "sales")
	require.ErrorContains(t, err, "no file")
	require.ErrorIs(t, err, domain.ErrUnavailable, "files that cannot be read are the data system being unavailable, not a defect")
	require.False(t, errors.Is(err, domain.ErrDefect))
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, file, content string
		cols                []domain.ModelColumn
		want                []string
	}{
		{"csv integer", "t.csv", "day,n\n2025-01-01,1\n2025-01-02,x1\n", []domain.ModelColumn{col("day", domain.TypeDate), col("n", domain.TypeInteger)},
			[]string{"file t.csv", "column n", "line 3", "integer"}},
		{"csv date", "t.csv", "day,n\n2025-02-30,1\n", []domain.ModelColumn{col("day", domain.TypeDate), col("n", domain.TypeInteger)},
			[]string{"file t.csv", "column day", "line 2", "date"}},
		{"csv boolean", "t.csv", "day,b\n2025-01-01,true\n2025-01-01,yes\n", []domain.ModelColumn{col("day", domain.TypeDate), col("b", domain.TypeBoolean)},
			[]string{"file t.csv", "column b", "line 3", "boolean"}},
		{"csv quoted multi-line field", "t.csv", "day,s,n\n2025-01-01,\"a\nb\",1\n2025-01-01,c,zz\n", []domain.ModelColumn{col("day", domain.TypeDate), col("s", domain.TypeText), col("n", domain.TypeFloat)},
			[]string{"column n", "line 4", "float"}},
		{"csv missing column", "t.csv", "day\n2025-01-01\n", []domain.ModelColumn{col("day", domain.TypeDate), col("n", domain.TypeInteger)},
			[]string{"file t.csv", "column n", "missing"}},
		{"csv ragged row", "t.csv", "day,n\n2025-01-01,1,9\n", []domain.ModelColumn{col("day", domain.TypeDate), col("n", domain.TypeInteger)},
			[]string{"file t.csv", "line 2"}},
		{"ndjson integer", "t.ndjson", "{\"day\":\"2025-01-01\",\"n\":1}\n{\"day\":\"2025-01-01\",\"n\":1.5}\n", []domain.ModelColumn{col("day", domain.TypeDate), col("n", domain.TypeInteger)},
			[]string{"file t.ndjson", "column n", "line 2", "integer"}},
		{"ndjson object value", "t.ndjson", "{\"day\":\"2025-01-01\",\"n\":{\"a\":1}}\n", []domain.ModelColumn{col("day", domain.TypeDate), col("n", domain.TypeInteger)},
			[]string{"file t.ndjson", "column n", "line 1", "scalar"}},
		{"ndjson not an object", "t.ndjson", "{\"day\":\"2025-01-01\",\"n\":1}\n[1]\n", []domain.ModelColumn{col("day", domain.TypeDate), col("n", domain.TypeInteger)},
			[]string{"file t.ndjson", "line 2"}},
		{"ndjson missing column", "t.ndjson", "{\"day\":\"2025-01-01\"}\n", []domain.ModelColumn{col("day", domain.TypeDate), col("n", domain.TypeInteger)},
			[]string{"file t.ndjson", "column n", "missing"}},
		{"timestamp", "t.csv", "day,n\n2025-01-01 10:00:00,1\n", []domain.ModelColumn{col("day", domain.TypeTimestamp), col("n", domain.TypeInteger)},
			[]string{"file t.csv", "column day", "line 2", "timestamp"}},
		// Three columns decoded at once, one per goroutine: the one that
		// fails names itself and stops the others.
		{"parquet text as integer", "t.parquet", string(salesParquet(t)), []domain.ModelColumn{col("day", domain.TypeDate), col("amount", domain.TypeInteger), col("status", domain.TypeInteger)},
			[]string{"file t.parquet", "column status", "integer"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, tc.file, tc.content)
			model := domain.Model{Name: "t", Source: "files", Table: "t", Columns: tc.cols}
			e := newEngine(t, os.DirFS(dir), model)
			err := e.Validate(context.Background())
			require.Error(t, err)
			for _, w := range tc.want {
				assert.ErrorContains(t, err, w)
			}
			// A measure that reads the last column's values (a count reads
			// only which of them are null).
			last := tc.cols[len(tc.cols)-1]
			m := simple(domain.Max, last.Name)
			if last.Type == domain.TypeBoolean {
				m = countIf(last.Name)
			}
			leg := domain.Leg{Base: tbl("t", "t0", tc.cols...), TimeColumn: "day", Metrics: []domain.MetricRef{metric("n", m)}}
			_, err = e.Execute(context.Background(), mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", leg))
			require.Error(t, err)
			for _, w := range tc.want {
				assert.ErrorContains(t, err, w)
			}
		})
	}
}

func TestLoadErrorNeverHoldsTheValue(t *testing.T) {
	dir := t.TempDir()
	secret := "s3cr3t-value-that-is-long"
	write(t, dir, "t.csv", "day,n\n2025-01-01,"+secret+"\n")
	e := newEngine(t, os.DirFS(dir), domain.Model{Name: "t", Table: "t", Columns: []domain.ModelColumn{col("day", domain.TypeDate), col("n", domain.TypeInteger)}})
	err := e.Validate(context.Background())
	require.Error(t, err)
	require.NotContains(t, err.Error(), secret)
}

func TestValidate(t *testing.T) {
	dir := salesDir(t)
	models := []domain.Model{
		{Name: "sales", Source: "files", Table: "shop.sales", Columns: salesCols},
		{Name: "customers", Source: "files", Table: "customers", Columns: []domain.ModelColumn{{Name: "cust_id"}, {Name: "name"}}},
	}
	e := newEngine(t, os.DirFS(dir), models...)
	require.NoError(t, e.Validate(context.Background()))
	assert.Zero(t, e.cache.Stats().Used, "validation caches nothing")

	models = append(models, domain.Model{Name: "ghost", Source: "files", Table: "ghost", Columns: []domain.ModelColumn{{Name: "x"}}})
	e = newEngine(t, os.DirFS(dir), models...)
	err := e.Validate(context.Background())
	require.ErrorContains(t, err, "ghost")

	_, err = New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), Models: []domain.Model{{Name: "x", Source: "other", Table: "x"}}})
	require.Error(t, err)
}

func TestInference(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "inf.csv", "i,f,b,d,ts,mixed,empty,neg\n"+
		"1,1,true,2025-01-01,2025-01-01T10:00:00Z,1,,-5\n"+
		"2,2.5,false,2025-01-02,2025-01-01T11:00:00+01:00,x,,\n"+
		",,,,,,,7\n")
	e := newEngine(t, os.DirFS(dir))
	tf, err := files.Locate(e.cfg.Files, "inf")
	require.NoError(t, err)
	names := []string{"i", "f", "b", "d", "ts", "mixed", "empty", "neg"}
	var wants []format.Want
	for _, n := range names {
		wants = append(wants, format.Want{Name: n})
	}
	v, err := e.cache.Acquire(context.Background(), e.cfg.Files, tf, wants)
	require.NoError(t, err)
	defer v.Release()
	got := map[string]domain.ColumnType{}
	for _, n := range names {
		got[n] = v.Cols[n].Type
	}
	assert.Equal(t, map[string]domain.ColumnType{
		"i": domain.TypeInteger, "f": domain.TypeFloat, "b": domain.TypeBoolean, "d": domain.TypeDate,
		"ts": domain.TypeTimestamp, "mixed": domain.TypeText, "empty": domain.TypeText, "neg": domain.TypeInteger,
	}, got)
	assert.Equal(t, "2025-01-01T10:00:00Z", v.Cols["ts"].Cell(1).Render())
	assert.Equal(t, "null", v.Cols["i"].Cell(2).Render())
	assert.Equal(t, 3, v.Rows)
}

func TestCacheReuseAndInvalidation(t *testing.T) {
	dir := salesDir(t)
	e := newEngine(t, os.DirFS(dir))
	ctx := context.Background()
	p := mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", salesLeg(metric("amount", sum("amount"))))
	// A streamed answer schedules the fill at once, so a count is exact
	// only once the fill has settled.
	run(t, e, p)
	require.NoError(t, e.Settle(ctx))
	require.EqualValues(t, 2, e.cache.Stats().Reads, "the first question streams the file, then its columns are read into the cache")
	run(t, e, p)
	require.EqualValues(t, 2, e.cache.Stats().Reads, "a second question reads nothing")

	// A question needing another column streams the file again; the
	// cache then reads that column only.
	run(t, e, mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", salesLeg(metric("price", sum("price")))))
	require.NoError(t, e.Settle(ctx))
	require.EqualValues(t, 4, e.cache.Stats().Reads)
	var cached []string
	for w := range e.cache.Cached("sales") {
		cached = append(cached, w.Name)
	}
	assert.ElementsMatch(t, []string{"day", "amount", "price"}, cached)
	run(t, e, mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", salesLeg(metric("price", sum("price")), metric("amount", sum("amount")))))
	require.EqualValues(t, 4, e.cache.Stats().Reads)

	// A new modification time is a new file.
	later := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(dir, "sales.csv"), later, later))
	run(t, e, p)
	require.NoError(t, e.Settle(ctx))
	require.EqualValues(t, 6, e.cache.Stats().Reads, "streamed and read into the cache again")

	// New content is read.
	write(t, dir, "sales.csv", "id,day,cust,amount,price,status,paid,qty\n1,2025-01-05,1,5,1,done,true,1\n")
	require.Equal(t, [][]string{{"2025-01-01", "5"}}, run(t, e, p))
	require.NoError(t, e.Settle(ctx))
	require.Equal(t, [][]string{{"2025-01-01", "5"}}, run(t, e, p))
	require.EqualValues(t, 8, e.cache.Stats().Reads)
}

func TestConcurrentExecute(t *testing.T) {
	e := newEngine(t, os.DirFS(salesDir(t)))
	p := mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", salesLeg(metric("amount", sum("amount"))))
	done := make(chan [][]string, 8)
	for i := 0; i < 8; i++ {
		go func() {
			rs, err := e.Execute(context.Background(), p)
			if err != nil {
				done <- nil
				return
			}
			done <- rendered(rs)
		}()
	}
	for i := 0; i < 8; i++ {
		require.Equal(t, [][]string{{"2025-01-01", "150"}, {"2025-02-01", "70"}, {"2025-03-01", "50"}}, <-done)
	}
	require.NoError(t, e.Settle(context.Background()))
	require.Contains(t, e.cache.Tables(), "sales", "the streamed columns were read into the cache once")
}

func TestParquetProjection(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "sales.parquet", string(salesParquet(t)))
	e := newEngine(t, os.DirFS(dir))
	run(t, e, mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", salesLeg(metric("amount", sum("amount")))))
	require.NoError(t, e.Settle(context.Background()))
	var cached []string
	for w := range e.cache.Cached("sales") {
		cached = append(cached, w.Name)
	}
	assert.ElementsMatch(t, []string{"day", "amount"}, cached)
}

func TestJoinKeysOfOtherTypes(t *testing.T) {
	dir := salesDir(t)
	write(t, dir, "statuses.csv", "code,label\ndone,Done\ncancelled,Cancelled\nunused,Unused\n")
	write(t, dir, "qtys.csv", "q,size\n1,small\n2,medium\n")
	e := newEngine(t, os.DirFS(dir))
	leg := salesLeg(metric("amount", sum("amount")))
	leg.Joins = []domain.Join{
		{Relationship: "s", To: tbl("statuses", "t1", col("code", domain.TypeText), col("label", domain.TypeText)), FromAlias: "t0", FromColumn: "status", ToColumn: "code"},
		// An integer key joined to a text key compares renderings.
		{Relationship: "q", To: tbl("qtys", "t2", col("q", domain.TypeText), col("size", domain.TypeText)), FromAlias: "t0", FromColumn: "qty", ToColumn: "q"},
	}
	leg.Dimensions = []domain.DimensionRef{dim("label", "t1", "label"), dim("size", "t2", "size")}
	p := mkPlan(t, domain.Year, "2025-01-01", "2026-01-01", leg)
	want := [][]string{
		{"Cancelled", "small", "2025-01-01", "null"},
		{"Done", "medium", "2025-01-01", "100"},
		{"Done", "small", "2025-01-01", "30"},
		{"Done", "null", "2025-01-01", "120"},
		{"null", "small", "2025-01-01", "20"},
	}
	require.Equal(t, want, run(t, e, p))
	require.Equal(t, want, run(t, e, p), "cached join structures give the same answer")
}

// TestPathsStayInTheDataDirectory: a table file, a table directory or a
// part of one that is a symbolic link leaving the data directory is
// refused by name, at start (Validate) and when asked; a link that stays
// inside is followed.
func TestPathsStayInTheDataDirectory(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(root, "outside")
	data := filepath.Join(root, "data")
	write(t, outside, "secret.csv", "day,n\n2025-01-01,1\n")
	write(t, data, "real/inside.csv", "day,n\n2025-01-01,2\n")
	require.NoError(t, os.MkdirAll(filepath.Join(data, "dir"), 0o755))
	write(t, data, "dir/a.csv", "day,n\n2025-01-01,3\n")
	links := map[string]string{
		"relative.csv":  "../outside/secret.csv",
		"absolute.csv":  filepath.Join(outside, "secret.csv"),
		"dir/b.csv":     "../../outside/secret.csv",
		"linkeddir":     "../outside",
		"viadir.csv":    "hop/../../outside/secret.csv",
		"hop":           "real",
		"inside.csv":    "real/inside.csv",
		"twice.csv":     "hop/inside.csv",
		"loop.csv":      "loop.csv",
		"climbing.csv":  "real/../../outside/secret.csv",
		"dangling.csv":  "nowhere.csv",
		"selfdir/x.csv": "../../outside/secret.csv",
	}
	require.NoError(t, os.MkdirAll(filepath.Join(data, "selfdir"), 0o755))
	for name, target := range links {
		require.NoError(t, os.Symlink(target, filepath.Join(data, name)))
	}
	cols := []domain.ModelColumn{col("day", domain.TypeDate), col("n", domain.TypeInteger)}
	ask := func(e *Engine, table string) ([][]string, error) {
		rs, err := e.Execute(context.Background(), mkPlan(t, domain.Year, "2025-01-01", "2026-01-01",
			domain.Leg{Base: tbl(table, "t0", cols...), TimeColumn: "day", Metrics: []domain.MetricRef{metric("n", sum("n"))}}))
		if err != nil {
			return nil, err
		}
		return rendered(rs), nil
	}
	for _, table := range []string{"relative", "absolute", "dir", "linkeddir", "viadir", "climbing", "selfdir"} {
		t.Run(table, func(t *testing.T) {
			model := domain.Model{Name: table, Source: "files", Table: table, Columns: cols}
			e := newEngine(t, os.DirFS(data), model)
			err := e.Validate(context.Background())
			require.ErrorIs(t, err, ErrOutsideDataDir)
			_, err = ask(e, table)
			require.ErrorIs(t, err, ErrOutsideDataDir)
			assert.NotContains(t, err.Error(), outside, "the error names the file in the data directory, not where it points")
		})
	}
	e := newEngine(t, os.DirFS(data))
	got, err := ask(e, "inside")
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"2025-01-01", "2"}}, got, "a link that stays inside is followed")
	got, err = ask(e, "twice")
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"2025-01-01", "2"}}, got)
	_, err = ask(e, "loop")
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrOutsideDataDir)
}

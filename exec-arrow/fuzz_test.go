package engine

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/files"
)

// The files targets share one driver: the fuzzed bytes become the table
// t of a files source on a temporary directory, and the engine reads them
// the way it does for a configured source. mode chooses how:
//
//   - mode&7, modulo 5: 0 the bytes as they are; 1 and 2 the bytes
//     compressed by the target as .gz and .zst (the reader's view of a
//     well-formed stream of fuzzed content); 3 and 4 the bytes themselves
//     named .gz and .zst (the decompressor's view of a fuzzed stream);
//   - mode&8: the table is a directory t/ of two parts, the fuzzed one
//     first and a small valid one of the same format second;
//   - mode&16: the model declares no type (every column is inferred);
//     otherwise day is a date, n an integer, x a float, s text and b a
//     boolean.
//
// One execution validates the source (every declared column parsed),
// asks a question reading every column (streamed), waits for the
// background cache fill, and asks it again (from the cache when the fill
// kept it).
const (
	fuzzCanary      = "Qz9canary" // in the seeds' values and header names
	fuzzWorkingSet  = 64 << 20    // the engine's working-set bound in the targets
	fuzzAllocFixed  = 96 << 20    // what one execution may allocate whatever the file
	fuzzAllocPerByt = 48          // and per byte of the decompressed file
	fuzzDeadline    = 10 * time.Second
)

// fuzzColumns are the model's columns, declared or (inferred) untyped.
func fuzzColumns(inferred bool) []domain.ModelColumn {
	cols := []domain.ModelColumn{
		col("day", domain.TypeDate), col("n", domain.TypeInteger), col("x", domain.TypeFloat),
		col("s", domain.TypeText), col("b", domain.TypeBoolean),
	}
	if inferred {
		for i := range cols {
			cols[i].Type = domain.TypeUnset
		}
	}
	return cols
}

// fuzzPlan asks for every kind of read: values (sum, avg, max, count
// distinct, count_if, a text dimension, a not_in filter) and validity
// only (count), over every date the engine can hold.
func fuzzPlan(t *testing.T, cols []domain.ModelColumn) *domain.Plan {
	leg := domain.Leg{
		Base: tbl("t", "t0", cols...), TimeColumn: "day",
		Metrics: []domain.MetricRef{
			metric("sum_n", sum("n")), metric("avg_x", simple(domain.Avg, "x")), metric("count_x", count("x")),
			metric("max_s", simple(domain.Max, "s")), metric("distinct_n", simple(domain.CountDistinct, "n")),
			metric("paid", countIf("b")),
		},
		Dimensions: []domain.DimensionRef{dim("s", "t0", "s")},
		Filters:    []domain.FilterRef{filter(domain.OpNotIn, "t0", "s", "zz")},
	}
	return mkPlan(t, domain.Year, "1900-01-01", "2100-01-01", leg)
}

// fuzzFile is one fuzzed table, ready to write.
type fuzzFile struct {
	files map[string][]byte // path in the data directory → content
	plain int               // bytes of the fuzzed file once decompressed
	dir   bool
}

// fuzzLayout lays the fuzzed bytes out as mode says (see above); valid is
// the second part of a directory.
func fuzzLayout(t *testing.T, ext string, data, valid []byte, mode uint8) fuzzFile {
	name, body, plain := "t"+ext, data, len(data)
	switch (mode & 7) % 5 {
	case 1:
		name, body = name+".gz", gz(t, data)
	case 2:
		name, body = name+".zst", zst(t, data)
	case 3:
		name, plain = name+".gz", decompressedLen(data, files.CodecGzip)
	case 4:
		name, plain = name+".zst", decompressedLen(data, files.CodecZstd)
	}
	ff := fuzzFile{files: map[string][]byte{}, plain: max(plain, len(data))}
	if mode&8 == 0 {
		ff.files[name] = body
		return ff
	}
	ff.dir = true
	ff.files["t/part-0"+strings.TrimPrefix(name, "t")] = body
	ff.files["t/part-1"+ext] = valid
	ff.plain += len(valid)
	return ff
}

// decompressedLen is how many bytes a stream decompresses to before it
// ends or fails (at most 1 GiB).
func decompressedLen(b []byte, c files.Codec) int {
	var r io.Reader
	switch c {
	case files.CodecGzip:
		z, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return 0
		}
		r = z
	case files.CodecZstd:
		cd, err := compress.GetCodec(compress.Codecs.Zstd)
		if err != nil {
			return 0
		}
		z := cd.(compress.StreamingCodec).NewReader(bytes.NewReader(b))
		defer z.Close()
		r = z
	}
	n, _ := io.Copy(io.Discard, io.LimitReader(r, 1<<30))
	return int(n)
}

// fuzzTable runs one execution of a files target and checks its property
// (see FuzzCSV).
func fuzzTable(t *testing.T, base, ext string, data, valid []byte, mode uint8) {
	ff := fuzzLayout(t, ext, data, valid, mode)
	dir, err := os.MkdirTemp(base, "x")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for name, b := range ff.files {
		write(t, dir, name, string(b))
	}
	inferred := mode&16 != 0
	cols := fuzzColumns(inferred)
	ctx, cancel := context.WithTimeout(context.Background(), fuzzDeadline)
	defer cancel()

	// No runtime.GC here: TotalAlloc counts every allocation whether
	// collected or not, and a forced collection in a fuzzing worker can
	// take longer than the execution.
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	e, err := New(ctx, Config{Source: "files", Files: os.DirFS(dir), WorkingSetMaxBytes: fuzzWorkingSet, Parallelism: 2,
		Models: []domain.Model{{Name: "t", Source: "files", Table: "t", Columns: cols}}})
	if err != nil {
		t.Fatal(err)
	}
	checkFileError(t, "Validate", e.Validate(ctx))
	p := fuzzPlan(t, cols)
	first, err1 := e.Execute(ctx, p)
	checkFileError(t, "Execute", err1)
	if err := e.Settle(ctx); err != nil {
		t.Fatalf("settle: %v", err)
	}
	second, err2 := e.Execute(ctx, p)
	checkFileError(t, "Execute again", err2)
	switch {
	case first != nil && second != nil:
		if a, b := rendered(first), rendered(second); !reflect.DeepEqual(a, b) {
			t.Fatalf("the same question gave two answers over the same file:\nstreamed: %v\nthen:     %v", a, b)
		}
	case (err1 == nil) != (err2 == nil) && !refused(err1) && !refused(err2):
		t.Fatalf("the same question over the same file answered once and failed once: %v / %v", err1, err2)
	}

	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	bound := uint64(fuzzAllocFixed + fuzzAllocPerByt*ff.plain)
	if got := after.TotalAlloc - before.TotalAlloc; got > bound {
		t.Fatalf("one execution allocated %d bytes for a file of %d bytes (%d decompressed); the bound is %d", got, len(data), ff.plain, bound)
	}
}

// refused reports whether err is a refusal the engine may give any file:
// its working set or the answer's size is exceeded.
func refused(err error) bool {
	var re *domain.RefusalError
	if !errors.As(err, &re) {
		return false
	}
	c := re.Reason.Code()
	return c == domain.ResourcesExhausted || c == domain.ResultTooLarge
}

// checkFileError holds an error of a files target to its property: a
// refusal of the working set or the answer's size, or an error naming
// the table's file, directory or the table, quoting no byte of it.
func checkFileError(t *testing.T, step string, err error) {
	if err == nil || refused(err) {
		return
	}
	msg := err.Error()
	var re *domain.RefusalError
	switch {
	case errors.Is(err, domain.ErrDefect):
		t.Fatalf("%s: the engine recovered a panic reading the file: %v", step, err)
	case errors.As(err, &re):
		t.Fatalf("%s: refused with %s, which no file may cause: %v", step, re.Reason.Code(), err)
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		t.Fatalf("%s: still reading after %s: %v", step, fuzzDeadline, err)
	case strings.Contains(strings.ToLower(msg), strings.ToLower(fuzzCanary[:6])):
		t.Fatalf("%s: the error quotes the file's content %q: %s", step, fuzzCanary, msg)
	case !strings.Contains(msg, "file t") && !strings.Contains(msg, "table t") && !strings.Contains(msg, "directory t/"):
		t.Fatalf("%s: the error names no file of table t: %s", step, msg)
	}
}

// fuzzValidCSV is a small valid table, the second part of a directory.
const fuzzValidCSV = "day,n,x,s,b\n2025-01-02,3,1.5,east,true\n2025-02-03,,2,,false\n"

// FuzzCSV holds the files source's CSV reader, plain and .gz/.zst
// compressed, alone or as a part of a table directory, with declared and
// inferred column types, to this property on any file:
//
//   - no panic (nor one the engine's worker guard recovered, an error
//     wrapping domain.ErrDefect), and an answer or an error within 10 s;
//   - an error is a resources_exhausted or result_too_large refusal (the
//     engine's working set, 64 MiB here, or the answer's bound), or a
//     failure naming the file ("file t.csv…", or the table t) that quotes
//     no byte of the file but the model's column names: the seeds plant
//     Qz9canary in values and header names, and no error may hold it;
//   - the question asked twice (streamed, then from the cache) gets the
//     same answer, or fails both times (unless one of them is refused);
//   - one execution (validation and two questions) allocates at most
//     96 MiB plus 48 bytes per byte of the decompressed file (measured
//     with runtime.MemStats.TotalAlloc, so it bounds the peak too): a
//     line without end, a very wide row or a compression bomb is read
//     within a bound proportional to what it holds, never more.
func FuzzCSV(f *testing.F) {
	base := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		fuzzTable(t, base, ".csv", data, []byte(fuzzValidCSV), mode)
	})
}

// fuzzValidNDJSON is a small valid table, the second part of a directory.
const fuzzValidNDJSON = `{"day":"2025-01-02","n":3,"x":1.5,"s":"east","b":true}
{"day":"2025-02-03","n":null,"x":2,"b":false}
`

// FuzzNDJSON holds the NDJSON reader (.ndjson, plain and .gz/.zst, alone
// or a part of a directory, declared and inferred types) to FuzzCSV's
// property.
func FuzzNDJSON(f *testing.F) {
	base := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		fuzzTable(t, base, ".ndjson", data, []byte(fuzzValidNDJSON), mode)
	})
}

// FuzzParquet holds the Parquet reader (the footer, the row groups'
// statistics, the pages of every column, read in full and for validity
// only; plain and .gz/.zst, alone or a part of a directory, declared and
// inferred types) to FuzzCSV's property. The seeds are files written by
// pqarrow (every column type the reader converts, nulls, dictionaries,
// required text, date and integer columns of dictionary pages, which a
// streamed question decodes without pqarrow (an integer one going on in
// PLAIN pages once its dictionary is full), several row groups,
// Snappy/Zstd/uncompressed pages), files whose
// footer declares a huge row count or page size, and truncated files.
func FuzzParquet(f *testing.F) {
	base := f.TempDir()
	valid := fuzzParquetFile(f, compress.Codecs.Snappy)
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		fuzzTable(t, base, ".parquet", data, valid, mode)
	})
}

// fuzzParquetFile writes the valid part of a Parquet directory: the
// table of fuzzValidCSV with the types a writer would pick.
func fuzzParquetFile(t testing.TB, codec compress.Compression) []byte {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Date32Builder).AppendValues([]arrow.Date32{20090, 20122}, nil)
	b.Field(1).(*array.Int64Builder).AppendValues([]int64{3, 0}, []bool{true, false})
	b.Field(2).(*array.Float64Builder).AppendValues([]float64{1.5, 2}, nil)
	b.Field(3).(*array.StringBuilder).AppendValues([]string{"east", ""}, []bool{true, false})
	b.Field(4).(*array.BooleanBuilder).AppendValues([]bool{true, false}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &buf, parquet.NewWriterProperties(parquet.WithCompression(codec)), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(fmt.Errorf("parquet: %w", err))
	}
	return buf.Bytes()
}

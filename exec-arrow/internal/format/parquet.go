package format

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"golang.org/x/sync/errgroup"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/i128"
)

// ReadBuffer is the buffer one column chunk's pages are read through.
const ReadBuffer = 256 << 10

// readParquet reads only the wanted column chunks of p, one row group at a
// time, converting each value into its builder.
func (l *Loader) readParquet(p files.Part) error {
	src, closer, err := l.ParquetSource(p)
	if err != nil {
		return err
	}
	defer closer()
	limit, err := PageLimit(src)
	if err != nil {
		return fmt.Errorf("file %s: %w", p.Path, err)
	}
	rp := parquet.NewReaderProperties(memory.DefaultAllocator)
	rp.MaxUncompressedPageSize = limit
	// Column chunks are read through a buffer of ReadBuffer bytes, never
	// whole: unbuffered, the library allocates the chunk size the footer
	// declares, which a malformed footer can make any size.
	rp.BufferedStreamEnabled, rp.BufferSize = true, ReadBuffer
	pf, err := file.NewParquetReader(src, file.WithReadProps(rp))
	if err != nil {
		return fmt.Errorf("file %s: not a Parquet file: %w", p.Path, err)
	}
	defer pf.Close()
	l.src, l.limit = src, limit // read by readPages
	if err := CheckRows(p.Path, pf.MetaData()); err != nil {
		return err
	}
	sch := pf.MetaData().Schema
	// Columns wanted for their values are decoded by pqarrow, in parallel,
	// text dictionary-encoded (each distinct value interned once per chunk
	// rather than once per row); columns wanted for their validity alone
	// are read from their definition levels.
	var leaves, full []int
	valid := map[int]int{} // want → leaf
	// Columns are decoded on the loader's goroutines, never pqarrow's
	// own: a malformed page can panic the Parquet library, and only a
	// panic on a goroutine of ours can be recovered (see nextRecord).
	props := pqarrow.ArrowReadProperties{BatchSize: loadBatch}
	for i, w := range l.wants {
		idx := sch.ColumnIndexByName(w.Name)
		if idx < 0 {
			return fmt.Errorf("file %s: column %s is missing", p.Path, w.Name)
		}
		if w.ValidOnly {
			valid[i] = idx
			continue
		}
		leaves, full = append(leaves, idx), append(full, i)
		if sch.Column(idx).PhysicalType() == parquet.Types.ByteArray {
			props.SetReadDict(idx, true)
		}
	}
	fr, err := pqarrow.NewFileReader(pf, props, memory.DefaultAllocator)
	if err != nil {
		return fmt.Errorf("file %s: %w", p.Path, err)
	}
	if err := l.reserve(int(pf.NumRows())); err != nil {
		return err
	}
	base := 0
	for rg := 0; rg < pf.NumRowGroups(); rg++ {
		if err := l.Ctx.Err(); err != nil {
			return err
		}
		n := int(pf.MetaData().RowGroup(rg).NumRows())
		for i, leaf := range valid {
			v, err := NewValidReader(pf.RowGroup(rg), leaf, sch.Column(leaf))
			if err != nil {
				return fmt.Errorf("file %s, column %s: %w", p.Path, l.wants[i].Name, err)
			}
			if err := addValidity(l.Builders[i].(*column.ValidBuilder), v, n); err != nil {
				return fmt.Errorf("file %s, column %s: %w", p.Path, l.wants[i].Name, err)
			}
		}
		if len(leaves) > 0 {
			if err := l.readColumns(p, fr, rg, leaves, full, base, n); err != nil {
				return err
			}
		}
		base += n
		l.Rows += n
		l.segment(n)
		if err := l.Tick(); err != nil {
			return err
		}
	}
	return nil
}

// readColumns converts the wanted columns of row group rg: on this
// goroutine for a background fill or a single column, otherwise one
// column per goroutine, at most GOMAXPROCS at once, each with a reader
// of its own (a column's builder is only ever touched by one). The first
// column that fails stops the others; its error is returned, and a panic
// of one of them is a defect (guard), not the process's end. A flat
// column of PLAIN and dictionary pages of a stored type the page decoder
// converts is decoded straight from its pages (see PageChunk) into its
// builder; the others through pqarrow.
func (l *Loader) readColumns(p files.Part, fr *pqarrow.FileReader, rg int, leaves, full []int, base, n int) error {
	var direct, restLeaves, restFull []int
	for j, leaf := range leaves {
		if l.pageDirect(fr, rg, leaf, full[j]) {
			direct = append(direct, j)
			continue
		}
		restLeaves, restFull = append(restLeaves, leaf), append(restFull, full[j])
	}
	if l.Serial || len(leaves) == 1 || runtime.GOMAXPROCS(0) == 1 {
		for _, j := range direct {
			if err := l.readPages(l.Ctx, p, fr, rg, leaves[j], full[j], base, n); err != nil {
				return err
			}
		}
		if len(restLeaves) == 0 {
			return nil
		}
		return l.readRowGroup(l.Ctx, p, fr, rg, restLeaves, restFull, base, n)
	}
	g, ctx := errgroup.WithContext(l.Ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, j := range direct {
		g.Go(Guard(func() error { return l.readPages(ctx, p, fr, rg, leaves[j], full[j], base, n) }))
	}
	for j := range restLeaves {
		g.Go(Guard(func() error {
			return l.readRowGroup(ctx, p, fr, rg, restLeaves[j:j+1], restFull[j:j+1], base, n)
		}))
	}
	if err := g.Wait(); err != nil {
		if cerr := l.Ctx.Err(); cerr != nil {
			return cerr
		}
		return err
	}
	return nil
}

// NoPages, set, makes every Loader read Parquet through pqarrow alone,
// never the page decoder: tests set it to load the reference the page
// path is compared against. It is read per column chunk.
var NoPages atomic.Bool

// pageDirect reports whether want i, at leaf of row group rg, is read
// by readPages: a declared type whose builder takes batch columns whole
// (not a validation pass), of a chunk a PageChunk can decode.
func (l *Loader) pageDirect(fr *pqarrow.FileReader, rg, leaf, i int) bool {
	w := l.wants[i]
	if _, ok := l.Builders[i].(column.ColumnAppender); !ok || l.check || NoPages.Load() || w.Type == domain.TypeUnset {
		return false
	}
	md := fr.ParquetReader().MetaData()
	return PageEligible(md.RowGroup(rg), leaf, md.Schema.Column(leaf), l.proto(i))
}

// proto is the prototype a PageChunk decodes want i as.
func (l *Loader) proto(i int) *column.Column {
	w := l.wants[i]
	return &column.Column{Name: w.Name, Type: w.Type, Spec: w.Spec}
}

// readRowGroup converts the wanted columns of row group rg, n rows by its
// footer, batch by batch: what it holds at once is one batch of decoded
// values, whatever row count the footer declares, and a row group whose
// pages hold fewer rows is an error.
func (l *Loader) readRowGroup(ctx context.Context, p files.Part, fr *pqarrow.FileReader, rg int, leaves, full []int, base, n int) error {
	rr, err := fr.GetRecordReader(ctx, leaves, []int{rg})
	if err != nil {
		return fmt.Errorf("file %s, row group %d: %w", p.Path, rg, err)
	}
	defer rr.Release()
	row := base
	for row < base+n {
		ok, err := NextRecord(rr)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("file %s, row group %d: %w", p.Path, rg, err)
		}
		if !ok {
			return fmt.Errorf("file %s, row group %d: fewer rows than its footer says", p.Path, rg)
		}
		rec := rr.RecordBatch()
		for j, i := range full {
			if err := AppendArrow(l.Builders[i], rec.Column(j)); err != nil {
				if ae, ok := err.(*ArrowErr); ok {
					return LoadError(p.Path, l.wants[i].Name, row+ae.Row+1, "row", ae.Err)
				}
				return fmt.Errorf("file %s, column %s: %w", p.Path, l.wants[i].Name, err)
			}
		}
		row += int(rec.NumRows())
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// errParquetPanic is wrapped by the error of a Parquet file that made the
// Parquet library panic (a malformed page header it does not check).
var errParquetPanic = errors.New("the Parquet reader failed on a malformed part of it")

// NextRecord advances rr: false at its end (with rr's error, if any). A
// panic of the Parquet library decoding the batch is errParquetPanic; its
// value is not kept, since it may quote the file. Only the library's
// calls are guarded, so a defect of the engine still surfaces as one.
func NextRecord(rr pqarrow.RecordReader) (ok bool, err error) {
	defer func() {
		if recover() != nil {
			ok, err = false, errParquetPanic
		}
	}()
	if rr.Next() {
		return true, nil
	}
	return false, rr.Err()
}

// Page sizes: a page header declares the size its values take
// uncompressed, and the reader allocates that much before it
// decompresses. Writers cut pages at about 1 MiB, so a page may declare
// at most 64 times the file's size, at least minPageLimit and at most
// Arrow's own ceiling: a file of a few bytes cannot make a reader
// allocate hundreds of MiB.
const (
	minPageLimit   = 4 << 20
	pagePerByte    = 64
	maxPageLimitPQ = parquet.DefaultMaxUncompressedPageSize
)

// PageLimit is the largest uncompressed page a Parquet file of src's
// size may declare.
func PageLimit(src parquet.ReaderAtSeeker) (int64, error) {
	size, err := src.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, err
	}
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	if size > maxPageLimitPQ/pagePerByte {
		return maxPageLimitPQ, nil
	}
	return max(minPageLimit, size*pagePerByte), nil
}

// maxRowGroupRows is the most rows a row group may declare: a Parquet
// page counts its values in an int32, and no working set holds more.
const maxRowGroupRows = math.MaxInt32

// CheckRows refuses a footer whose row counts no reader could honour: a
// negative count, a row group of more than maxRowGroupRows rows, or a
// file total that is not the sum of its row groups. Readers size what
// they allocate and how long they loop from these counts, so they are
// checked before anything is read.
func CheckRows(path string, md *metadata.FileMetaData) error {
	var total int64
	for rg := 0; rg < md.NumRowGroups(); rg++ {
		n := md.RowGroup(rg).NumRows()
		if n < 0 || n > maxRowGroupRows {
			return fmt.Errorf("file %s, row group %d: the footer declares a row count out of range", path, rg)
		}
		total += n
	}
	if total != md.GetNumRows() {
		return fmt.Errorf("file %s: the footer's row count is not the sum of its row groups'", path)
	}
	return nil
}

// ParquetSource returns a random-access reader over p: the file itself
// when it allows it, else its (decompressed) bytes in memory.
func (l *Loader) ParquetSource(p files.Part) (parquet.ReaderAtSeeker, func(), error) {
	if p.Codec == files.CodecNone {
		f, err := l.Fsys.Open(p.Path)
		if err != nil {
			return nil, nil, fmt.Errorf("file %s: %w", p.Path, err)
		}
		if ras, ok := f.(parquet.ReaderAtSeeker); ok {
			return ras, func() { f.Close() }, nil
		}
		f.Close()
	}
	rc, err := files.OpenPart(l.Fsys, p)
	if err != nil {
		return nil, nil, err
	}
	defer rc.Close()
	if l.Meter != nil {
		if err := l.Meter(p.Size); err != nil {
			return nil, nil, err
		}
	}
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, nil, fmt.Errorf("file %s: %w", p.Path, err)
	}
	return bytes.NewReader(b), func() {}, nil
}

// ArrowErr is a conversion error at a row of one chunk.
type ArrowErr struct {
	Row int
	Err error
}

// Error is the wrapped error's text.
func (e *ArrowErr) Error() string { return e.Err.Error() }

// AppendArrow converts every value of arr into b.
func AppendArrow(b column.Builder, arr arrow.Array) error {
	if ba, ok := b.(column.ArrayAppender); ok && ba.AppendArray(arr) {
		return nil
	}
	n := arr.Len()
	var put func(i int) error
	switch a := arr.(type) {
	case *array.Int8:
		put = func(i int) error { return b.AppendInt(int64(a.Value(i))) }
	case *array.Int16:
		put = func(i int) error { return b.AppendInt(int64(a.Value(i))) }
	case *array.Int32:
		put = func(i int) error { return b.AppendInt(int64(a.Value(i))) }
	case *array.Int64:
		put = func(i int) error { return b.AppendInt(a.Value(i)) }
	case *array.Uint8:
		put = func(i int) error { return b.AppendInt(int64(a.Value(i))) }
	case *array.Uint16:
		put = func(i int) error { return b.AppendInt(int64(a.Value(i))) }
	case *array.Uint32:
		put = func(i int) error { return b.AppendInt(int64(a.Value(i))) }
	case *array.Uint64:
		put = func(i int) error {
			v := a.Value(i)
			if v > math.MaxInt64 {
				return column.ErrNotType{Type: "integer"}
			}
			return b.AppendInt(int64(v))
		}
	case *array.Float32:
		put = func(i int) error { return b.AppendFloat(float64(a.Value(i))) }
	case *array.Float64:
		put = func(i int) error { return b.AppendFloat(a.Value(i)) }
	case *array.Decimal32:
		scale := a.DataType().(*arrow.Decimal32Type).Scale
		put = func(i int) error { return b.AppendDecimal(i128.Of(int64(a.Value(i))), scale) }
	case *array.Decimal64:
		scale := a.DataType().(*arrow.Decimal64Type).Scale
		put = func(i int) error { return b.AppendDecimal(i128.Of(int64(a.Value(i))), scale) }
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		put = func(i int) error {
			v := a.Value(i)
			return b.AppendDecimal(i128.Int{Lo: v.LowBits(), Hi: v.HighBits()}, scale)
		}
	case *array.Decimal256:
		scale := a.DataType().(*arrow.Decimal256Type).Scale
		put = func(i int) error {
			v, ok := i128.FromBig(a.Value(i).BigInt())
			if !ok {
				return column.ErrPrecision{Precision: domain.MaxDecimalDigits}
			}
			return b.AppendDecimal(v, scale)
		}
	case *array.Boolean:
		put = func(i int) error { return b.AppendBool(a.Value(i)) }
	case *array.Date32:
		put = func(i int) error { return b.AppendDate(int32(a.Value(i))) }
	case *array.Date64:
		put = func(i int) error { return b.AppendDate(int32(floorDiv(int64(a.Value(i)), 86400000))) }
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		put = func(i int) error { return b.AppendMicros(toMicros(int64(a.Value(i)), unit)) }
	case *array.String:
		put = func(i int) error { return appendString(b, a.Value(i)) }
	case *array.LargeString:
		put = func(i int) error { return appendString(b, a.Value(i)) }
	case *array.Dictionary:
		dict := a.Dictionary()
		// Convert the dictionary's values through a per-index closure.
		var inner func(k int) error
		switch d := dict.(type) {
		case *array.String:
			inner = func(k int) error { return appendString(b, d.Value(k)) }
		case *array.LargeString:
			inner = func(k int) error { return appendString(b, d.Value(k)) }
		default:
			return fmt.Errorf("dictionary of %s is not supported", dict.DataType())
		}
		put = func(i int) error { return inner(a.GetValueIndex(i)) }
	default:
		return fmt.Errorf("Arrow type %s is not supported", arr.DataType())
	}
	for i := 0; i < n; i++ {
		if arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		if err := put(i); err != nil {
			return &ArrowErr{Row: i, Err: err}
		}
	}
	return nil
}

// appendString appends a Parquet string. Empty text is null in every
// format the files source reads, as it is in CSV.
func appendString(b column.Builder, s string) error {
	if s == "" {
		b.AppendNull()
		return nil
	}
	return b.AppendText(s)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func toMicros(v int64, unit arrow.TimeUnit) int64 {
	switch unit {
	case arrow.Second:
		return v * 1e6
	case arrow.Millisecond:
		return v * 1e3
	case arrow.Nanosecond:
		return floorDiv(v, 1e3)
	}
	return v
}

package format

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"runtime"

	"golang.org/x/sync/errgroup"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/number"
)

// Want is a column a load reads: its name and declared type (TypeUnset:
// inferred from the whole column), or, with validOnly, only which of its
// values are null (the input of count and is_not_null: the values are
// neither parsed nor kept).
type Want struct {
	Name      string
	Type      domain.ColumnType
	Spec      column.DecimalSpec // a decimal column's declared precision and scale
	ValidOnly bool
	// Days asks for a timestamp column as the UTC day of each value
	// (column.NewDaysBuilder): a question's time column that it reads
	// for nothing else.
	Days bool
	// Codes asks for a text column that questions read only to count its
	// distinct values: the cache may hold it as each row's number instead
	// of its text, once its distinct values pass number.DictMax
	// (number.Builder). A stream reads its text as any other.
	Codes bool
}

// loadBatch is how many rows a reader handles between checks of the
// working set; the context is checked every ctxBatch rows.
const (
	loadBatch = 1 << 16
	ctxBatch  = 1 << 12
)

// Loader reads the parts of one table into builders, one per wanted
// column, checking ctx and growing its working-set reservation as it goes.
// It records the segments it read (see segment), so cached columns are
// scanned in the batches a stream of the same files would bring.
type Loader struct {
	Ctx      context.Context
	Fsys     fs.FS
	wants    []Want
	Builders []column.Builder
	Rows     int
	check    bool
	Serial   bool // decode Parquet columns on one goroutine (a background fill)
	Segs     []column.Segment
	group    int
	// Meter is told the bytes the builders and page readers hold, every
	// loadBatch rows.
	Meter func(total int64) error
	// reading is the bytes the text reader's buffers grew by (readerMem).
	reading int64
	src     io.ReaderAt // the Parquet file being read (see readPages)
	limit   int64       // its largest uncompressed page (see PageLimit)
	pages   pagePool
}

// NewLoader reads the columns of wants from parts of fsys into builders;
// check only parses (Validate), meter (when set) is told the bytes held.
func NewLoader(ctx context.Context, fsys fs.FS, wants []Want, check bool, meter func(int64) error) *Loader {
	l := &Loader{Ctx: ctx, Fsys: fsys, wants: wants, Meter: meter, check: check}
	for _, w := range wants {
		if w.ValidOnly {
			l.Builders = append(l.Builders, &column.ValidBuilder{Typ: w.Type, Check: check})
			continue
		}
		if w.Days && w.Type == domain.TypeTimestamp {
			l.Builders = append(l.Builders, column.NewDaysBuilder(check))
			continue
		}
		if w.Codes && w.Type == domain.TypeText && !check {
			l.Builders = append(l.Builders, number.New(""))
			continue
		}
		l.Builders = append(l.Builders, column.NewBuilderSpec(w.Type, w.Spec, check))
	}
	return l
}

// segment records that the last n rows read form one group: a block of a
// text part, or a Parquet row group (cut into batches of column.ChunkRows).
func (l *Loader) segment(n int) {
	if n <= 0 {
		return
	}
	for lo := l.Rows - n; lo < l.Rows; lo += column.ChunkRows {
		l.Segs = append(l.Segs, column.Segment{Lo: lo, Hi: min(lo+column.ChunkRows, l.Rows), Group: l.group})
	}
	l.group++
}

// Tick runs every loadBatch rows: cancellation and the working set.
func (l *Loader) Tick() error {
	if err := l.Ctx.Err(); err != nil {
		return err
	}
	if l.Meter == nil {
		return nil
	}
	total := l.pages.bytes(false) + l.reading
	for _, b := range l.Builders {
		total += b.Size()
	}
	return l.Meter(total)
}

// readerMem meters the growth of a text reader's buffers as part of the
// Loader's total, when it happens: a record of hundreds of megabytes grows
// them before the next Tick, and was not metered at all.
type readerMem struct{ l *Loader }

func (m readerMem) Grow(n int64) error {
	m.l.reading += n
	return m.l.Tick()
}

// every runs after the n-th row of a file: the context every ctxBatch
// rows, the working set every loadBatch rows, a segment every column.ChunkRows.
func (l *Loader) every(n int) error {
	if n%column.ChunkRows == 0 {
		l.segment(column.ChunkRows)
	}
	switch {
	case n%loadBatch == 0:
		return l.Tick()
	case n%ctxBatch == 0:
		return l.Ctx.Err()
	}
	return nil
}

// Columns finishes the builders. A builder that failed on its own (a
// numbering's partition files) fails them all.
func (l *Loader) Columns() (map[string]*column.Column, error) {
	out := make(map[string]*column.Column, len(l.wants))
	for i, w := range l.wants {
		c := l.Builders[i].Finish(w.Name)
		if f, ok := l.Builders[i].(interface{ Err() error }); ok && f.Err() != nil {
			return nil, fmt.Errorf("column %s: %w", w.Name, f.Err())
		}
		if c != nil {
			out[w.Name] = c
		}
	}
	return out, nil
}

// Close gives back what builders hold outside memory (a numbering's
// partition files) when the load ends without Columns, or after it; a
// load that may be given up defers it.
func (l *Loader) Close() {
	for _, b := range l.Builders {
		if c, ok := b.(interface{ Close() }); ok {
			c.Close()
		}
	}
}

// ReadPart appends the wanted columns of p.
func (l *Loader) ReadPart(p files.Part) error {
	switch p.Format {
	case files.FormatParquet:
		return l.readParquet(p)
	}
	rc, err := files.OpenPart(l.Fsys, p)
	if err != nil {
		return err
	}
	defer rc.Close()
	if p.Format == files.FormatCSV {
		return l.readCSV(p, rc)
	}
	return l.readNDJSON(p, rc)
}

// LoadError names the file, column and line of a value that does not
// load; it never holds the value.
func LoadError(file, col string, line int, unit string, err error) error {
	return fmt.Errorf("file %s, column %s, %s %d: %w", file, col, unit, line, err)
}

// reserve makes room for n rows in every builder that can, after metering
// the room against the working set.
func (l *Loader) reserve(n int) error {
	if l.check {
		return nil
	}
	total := l.pages.bytes(false) + l.reading
	for _, b := range l.Builders {
		total += b.Size()
		if r, ok := b.(column.Reserver); ok {
			total += r.ReserveBytes(n)
		}
	}
	if l.Meter != nil {
		if err := l.Meter(total); err != nil {
			return err
		}
	}
	var rs []column.Reserver
	for _, b := range l.Builders {
		if r, ok := b.(column.Reserver); ok {
			rs = append(rs, r)
		}
	}
	if l.Serial || len(rs) < 2 || runtime.GOMAXPROCS(0) == 1 {
		for _, r := range rs {
			r.Reserve(n)
		}
		return nil
	}
	// The room is taken on several goroutines: most of its cost is the
	// kernel's first touch of each new page (zeroed here), which runs on
	// every core at once.
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, r := range rs {
		g.Go(Guard(func() error { r.Reserve(n); return nil }))
	}
	return g.Wait()
}

package format

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"

	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/text"
)

// textBuffer is the room the CSV and NDJSON readers read into; the
// records read are handed on and the buffer reused once textCut bytes of
// it are behind.
const (
	textBuffer = 1 << 20
	textCut    = textBuffer / 2
)

// reread is a part the CSV reader leaves to the reference reader: cause is
// why (the problem the reference reader is asked to name).
type reread struct{ cause error }

func (r *reread) Error() string { return r.cause.Error() }

// readCSV reads a CSV part as a question's stream does (package text):
// records cut where the quotes allow, a record free of quotes and carriage
// returns cut at its commas, any other record parsed alone by
// encoding/csv. It reads the same records and fields encoding/csv reads in
// the whole part. What it does not read itself — a header it cannot
// place, a record of another width than the header, a value that does not
// parse — is left to readCSVReference, reading the part again from its
// first byte, whose error is the answer: it names the file, the column and
// the line as encoding/csv counts lines. Reading every record with
// encoding/csv cost a string per record and a call per byte: the
// start-up's background check of a 20 M-row file took 10–16 s
// (docs/performance.md).
func (l *Loader) readCSV(p files.Part, r io.Reader) error {
	err := l.splitCSV(p, r)
	var rr *reread
	if !errors.As(err, &rr) {
		return err
	}
	if ctxErr := l.Ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	rc, err := files.OpenPart(l.Fsys, p)
	if err != nil {
		return err
	}
	defer rc.Close()
	ref := NewLoader(l.Ctx, l.Fsys, l.wants, true, nil)
	if err := ref.readCSVReference(p, rc); err != nil {
		return err
	}
	return fmt.Errorf("file %s: %w", p.Path, rr.cause)
}

// splitCSV is readCSV's own reading; a *reread error leaves the part to
// the reference reader.
func (l *Loader) splitCSV(p files.Part, r io.Reader) error {
	// The two buffers of textBuffer bytes are part of the fixed overhead
	// (docs/operations.md, "Memory under load"); what they grow by to
	// hold a longer record is metered.
	defer func() { l.reading = 0 }()
	s := &text.Splitter{Mem: readerMem{l}, Reader: r, CSV: true, Buf: make([]byte, 0, textBuffer)}
	spare := make([]byte, 0, textBuffer)
	header, bad, err := s.Header()
	if err != nil {
		return fmt.Errorf("file %s: %w", p.Path, err)
	}
	if bad != nil {
		return &reread{bad}
	}
	at, err := csvColumns(p, header, l.wants)
	if err != nil {
		return err
	}
	// want[f] is the place of field f in fields, plus one (0: not wanted);
	// slot[i] is want i's place (two wants may read one field).
	want, slot := make([]int, len(header)), make([]int, len(at))
	places := 0
	for i, f := range at {
		if want[f] == 0 {
			places++
			want[f] = places
		}
		slot[i] = want[f] - 1
	}
	fields, want := make([]string, places), text.Wanted(want)
	ahead := l.aheadOf(p)
	for n := 1; ; {
		if s.Start >= textCut {
			ahead.behind += int64(s.Start)
			spare = s.Cut(spare)
		}
		lo, hi, ok, err := s.Next()
		if err != nil {
			return fmt.Errorf("file %s: %w", p.Path, err)
		}
		if !ok {
			l.segment((n - 1) % column.ChunkRows)
			return nil
		}
		if lo == hi {
			continue
		}
		split := text.SplitFields
		if !s.Quoted { // no record since the last cut held a quote: this one holds none
			split = text.SplitUnquoted
		}
		switch split(s.Buf[lo:hi], want, fields) {
		case len(header):
		case -1:
			rec, err := text.CSVFields(s.Buf[lo:text.LineEnd(s.Buf, hi)], len(header))
			if err != nil {
				return &reread{err}
			}
			for f, w := range want {
				if w > 0 {
					fields[w-1] = rec[f]
				}
			}
		default:
			return &reread{csv.ErrFieldCount}
		}
		for i, b := range l.Builders {
			v := fields[slot[i]]
			if v == "" {
				b.AppendNull()
				continue
			}
			if err := b.AppendText(v); err != nil {
				return &reread{err}
			}
		}
		if err := l.counted(&ahead, n, ahead.behind+int64(s.Start)); err != nil {
			return err
		}
		n++
	}
}

// ahead is what a load of a text part knows to reserve its builders'
// room ahead: appended value by value, a fill's builders grew by copying
// their values, 4.0 s of the 6.9 s of CPU a fill of three columns of a
// 20 M-row CSV file took (docs/performance.md).
type ahead struct {
	on     bool
	size   int64 // the part's bytes
	behind int64 // bytes of it the reader has handed on
	upTo   int   // the builders have room up to this many of l.Rows
}

// aheadOf is the start of reserving ahead for part p: only for a load
// that keeps its values, of a part whose size in bytes is the text's
// (not compressed).
func (l *Loader) aheadOf(p files.Part) ahead {
	return ahead{on: !l.check && p.Codec == files.CodecNone && p.Size > 0, size: p.Size}
}

// counted runs after the n-th record of a text part, read bytes into
// it: the row is counted, then every and, each block, reserveAhead.
func (l *Loader) counted(a *ahead, n int, read int64) error {
	l.Rows++
	if err := l.every(n); err != nil {
		return err
	}
	if n%column.ChunkRows == 0 {
		return l.reserveAhead(a, n, read)
	}
	return nil
}

// reserveAhead runs after the n-th record of a part, read bytes into it:
// when the builders' room is under one block, they take room for the
// records the rest of the part should hold at the size of the records so
// far (one block more). A reservation the working set refuses stops
// reserving ahead and is no error: the values then grow as they come, and
// the meter judges them as before.
func (l *Loader) reserveAhead(a *ahead, n int, read int64) error {
	if !a.on || a.upTo-l.Rows >= column.ChunkRows || read <= 0 {
		return nil
	}
	rest := int(float64(n)*float64(max(a.size-read, 0))/float64(read)) + column.ChunkRows
	if err := l.reserve(rest); err != nil {
		if ctxErr := l.Ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		a.on = false
		return nil
	}
	a.upTo = l.Rows + rest
	return nil
}

// readCSVReference reads a CSV part with encoding/csv, record by record:
// the reader whose errors readCSV gives.
func (l *Loader) readCSVReference(p files.Part, r io.Reader) error {
	br := bufio.NewReaderSize(r, 1<<16)
	if bom, err := br.Peek(3); err == nil && bytes.Equal(bom, []byte{0xEF, 0xBB, 0xBF}) {
		_, _ = br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return fmt.Errorf("file %s: no header row", p.Path)
	}
	if err != nil {
		return fmt.Errorf("file %s: %w", p.Path, csvErr(err))
	}
	at, err := csvColumns(p, header, l.wants)
	if err != nil {
		return err
	}
	for n := 1; ; n++ {
		rec, err := cr.Read()
		if err == io.EOF {
			l.segment((n - 1) % column.ChunkRows)
			return nil
		}
		if err != nil {
			return fmt.Errorf("file %s: %w", p.Path, csvErr(err))
		}
		for i, j := range at {
			s := rec[j]
			if s == "" {
				l.Builders[i].AppendNull()
				continue
			}
			if err := l.Builders[i].AppendText(s); err != nil {
				line, _ := cr.FieldPos(j)
				return LoadError(p.Path, l.wants[i].Name, line, "line", err)
			}
		}
		l.Rows++
		if err := l.every(n); err != nil {
			return err
		}
	}
}

// csvColumns finds the field of every wanted column in a header.
func csvColumns(p files.Part, header []string, wants []Want) ([]int, error) {
	pos := map[string]int{}
	for i, h := range header {
		if j, dup := pos[h]; dup {
			return nil, fmt.Errorf("file %s: %s", p.Path, duplicateHeader(h, j, i, wants))
		}
		pos[h] = i
	}
	at := make([]int, len(wants))
	for i, w := range wants {
		j, ok := pos[w.Name]
		if !ok {
			return nil, fmt.Errorf("file %s: column %s is missing from the header", p.Path, w.Name)
		}
		at[i] = j
	}
	return at, nil
}

// duplicateHeader describes a header that names one column at fields i
// and j (0-based): by its name when the model declares it, else by its
// positions only, since any other header text is the file's, never
// repeated in an error.
func duplicateHeader(h string, i, j int, wants []Want) string {
	for _, w := range wants {
		if w.Name == h {
			return fmt.Sprintf("the header names column %s twice (fields %d and %d)", h, i+1, j+1)
		}
	}
	return fmt.Sprintf("the header names one column twice (fields %d and %d)", i+1, j+1)
}

// csvErr keeps the position of a CSV syntax error and drops the text.
func csvErr(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("line %d: %w", pe.Line, pe.Err)
	}
	return err
}

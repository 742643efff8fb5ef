package text

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"io"
	"math/bits"
	"unsafe"

	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/i128"
)

// ErrFastPath marks input the streaming reader does not parse itself; the
// part is then read by the reference reader, whose error is the answer.
var ErrFastPath = errors.New("the streaming reader cannot parse this input")

// Splitter cuts a text part into records. In CSV a line end inside a
// quoted field does not end the record: the parity of the quotes seen
// since the record began tells.
type Splitter struct {
	Mem      Grower // accounts the buffer's growth
	Reader   io.Reader
	CSV      bool
	Buf      []byte
	Start    int // where the current record begins
	Pos      int // where the search for its end resumes
	inQuotes bool
	Eof      bool
	// Quoted reports whether a record since the last Cut (the header
	// included) held a quote: when it is false, the records Cut hands
	// over hold none.
	Quoted bool
	// noQuote is where the search for a quote resumes: Buf[Pos:noQuote]
	// holds none. The search runs once per quote and once per read, not
	// once per record.
	noQuote int
}

// quoteBefore reports whether Buf[s.Pos:end] holds a quote.
func (s *Splitter) quoteBefore(end int) bool {
	if end <= s.noQuote {
		return false
	}
	from := max(s.noQuote, s.Pos)
	if i := bytes.IndexByte(s.Buf[from:], '"'); i >= 0 {
		s.noQuote = from + i
	} else {
		s.noQuote = len(s.Buf)
	}
	return s.noQuote < end
}

// Next returns the next record's span in s.buf, without its line end
// (and, in CSV, without the carriage return before it); ok is false at the
// end of the input.
func (s *Splitter) Next() (lo, hi int, ok bool, err error) {
	for {
		if i := bytes.IndexByte(s.Buf[s.Pos:], '\n'); i >= 0 {
			nl := s.Pos + i
			if s.CSV {
				seg := s.Buf[s.Pos:nl]
				if s.inQuotes || s.quoteBefore(nl) {
					s.Quoted = true
					if bytes.Count(seg, []byte{'"'})%2 == 1 {
						s.inQuotes = !s.inQuotes
					}
					if s.inQuotes {
						s.Pos = nl + 1
						continue
					}
				}
			}
			lo, hi = s.Start, nl
			s.Start, s.Pos = nl+1, nl+1
			if s.CSV && hi > lo && s.Buf[hi-1] == '\r' {
				hi--
			}
			return lo, hi, true, nil
		}
		if s.Eof {
			if s.Start == len(s.Buf) {
				return 0, 0, false, nil
			}
			lo, hi = s.Start, len(s.Buf)
			s.Start, s.Pos = hi, hi
			if s.CSV && hi > lo && s.Buf[hi-1] == '\r' {
				hi--
			}
			return lo, hi, true, nil
		}
		// No line end yet: the quotes of the record's bytes so far count
		// before the search moves past them (a read may end inside a
		// quoted field).
		if s.CSV && (s.inQuotes || s.quoteBefore(len(s.Buf))) {
			s.Quoted = true
			if bytes.Count(s.Buf[s.Pos:], []byte{'"'})%2 == 1 {
				s.inQuotes = !s.inQuotes
			}
		}
		s.Pos = len(s.Buf)
		if err := s.Fill(); err != nil {
			return 0, 0, false, err
		}
	}
}

// Reset makes s split buf, the whole input (a range's records: Ranged),
// from its start, which is a record's; quoted false tells it that buf
// holds no quote, so it does not search for one.
func (s *Splitter) Reset(buf []byte, csv, quoted bool) {
	*s = Splitter{CSV: csv, Buf: buf, Eof: true}
	if !quoted {
		s.noQuote = len(buf)
	}
}

// Block appends to spans the spans of the next records, blank lines left
// out, until it holds max of them (record i is Buf[spans[2i]:spans[2i+1]]);
// more is false once the input is exhausted. It stops at a record's end:
// Quoted then tells whether the records since the last Cut or Reset held
// a quote.
func (s *Splitter) Block(spans []int32, max int) (_ []int32, more bool, err error) {
	for len(spans) < 2*max {
		lo, hi, ok, err := s.Next()
		if err != nil || !ok {
			return spans, false, err
		}
		if !Blank(s.Buf[lo:hi], s.CSV) {
			spans = append(spans, int32(lo), int32(hi))
		}
	}
	return spans, true, nil
}

// Header reads the CSV header record as encoding/csv reads it: after a
// byte-order mark and any blank lines. err is a read that failed; a
// header the splitter does not parse itself — none, or one encoding/csv
// refuses — leaves header nil and says why in bad, for the reference
// reader to name exactly.
func (s *Splitter) Header() (header []string, bad, err error) {
	for len(s.Buf) < 3 && !s.Eof {
		if err := s.Fill(); err != nil {
			return nil, nil, err
		}
	}
	if bytes.HasPrefix(s.Buf, []byte{0xEF, 0xBB, 0xBF}) {
		s.Start, s.Pos = 3, 3
	}
	for {
		lo, hi, ok, err := s.Next()
		switch {
		case err != nil:
			return nil, nil, err
		case !ok:
			return nil, ErrFastPath, nil
		case lo == hi:
			continue // encoding/csv skips blank lines, before the header too
		}
		header, err := CSVFields(s.Buf[lo:LineEnd(s.Buf, hi)], -1)
		if err != nil {
			return nil, err, nil
		}
		return header, nil, nil
	}
}

// Fill reads more input onto the end of buf, growing it (and the
// question's reservation) when it is full.
func (s *Splitter) Fill() error {
	if cap(s.Buf)-len(s.Buf) < 1<<18 {
		grow := cap(s.Buf) + 1<<20
		if s.Mem != nil {
			if err := s.Mem.Grow(int64(grow)); err != nil {
				return err
			}
		}
		nb := make([]byte, len(s.Buf), cap(s.Buf)+grow)
		copy(nb, s.Buf)
		s.Buf = nb
	}
	// At most readMax a read: what is read past a block's last record is
	// copied into the next block's buffer (Cut).
	n, err := s.Reader.Read(s.Buf[len(s.Buf):min(cap(s.Buf), len(s.Buf)+readMax)])
	s.Buf = s.Buf[:len(s.Buf)+n]
	if err == io.EOF {
		s.Eof = true
		return nil
	}
	return err
}

// readMax bounds one read of Fill.
const readMax = 256 << 10

// Cut hands the records read so far to the caller and keeps the unread
// rest in a fresh buffer.
func (s *Splitter) Cut(fresh []byte) []byte {
	old := s.Buf
	rest := old[s.Start:]
	s.Buf = append(fresh[:0], rest...)
	s.Pos -= s.Start
	s.noQuote = max(s.noQuote-s.Start, 0)
	s.Start = 0
	s.Quoted = false // Next returns at a record's end: no byte of the next one is read yet
	return old
}

// Blank reports whether a line is no record: empty in CSV, white space in
// NDJSON.
func Blank(line []byte, csv bool) bool {
	if csv {
		return len(line) == 0
	}
	return len(bytes.TrimSpace(line)) == 0
}

// LineEnd is where the record Next returned as buf[lo:hi] ends with its
// line end: past the "\r\n" or "\n" that follows it, or the carriage
// return that ends the input, if one does. What CSVFields parses must
// keep it, for encoding/csv to read the record's carriage returns as it
// reads them in the whole input: it drops one before a line feed and one
// at the end of the input, and keeps any other ("a,b\r\r\n" ends in the
// field "b\r", the record without its line end in "b"; "\r\r" is a
// record, "\r" none).
func LineEnd(buf []byte, hi int) int {
	switch {
	case hi+1 < len(buf) && buf[hi] == '\r' && buf[hi+1] == '\n':
		return hi + 2
	case hi < len(buf) && buf[hi] == '\n':
		return hi + 1
	case hi+1 == len(buf) && buf[hi] == '\r': // dropped at the end of the input
		return hi + 1
	}
	return hi
}

// CSVFields parses one record with encoding/csv (for records holding
// quotes or carriage returns), requiring n fields when n ≥ 0; rec ends
// with the record's line end (LineEnd). It returns ErrFastPath when rec
// holds more than one record.
func CSVFields(rec []byte, n int) ([]string, error) {
	r := csv.NewReader(bytes.NewReader(rec))
	r.FieldsPerRecord = n
	if n < 0 {
		r.FieldsPerRecord = 0
	}
	f, err := r.Read()
	if err != nil {
		return nil, err
	}
	if _, err := r.Read(); err != io.EOF {
		return nil, ErrFastPath
	}
	return f, nil
}

// UnsafeString views b as a string without copying; the builders copy
// what they keep.
func UnsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// SplitFields cuts a CSV record at its commas and returns how many
// fields it has; out[want[f]-1] is set to field f when f is within want
// and want[f] > 0. The fields share rec's bytes. A record holding a quote
// or a carriage return is not cut: SplitFields returns -1 and it is left
// to CSVFields. Commas are found eight bytes at a time: a record's fields
// are a few bytes each, where a call per field to bytes.IndexByte costs
// three times as much. A caller whose last wanted field comes before the
// record's last passes want up to it: the commas after it are only
// counted.
func SplitFields(rec []byte, want []int, out []string) int {
	return splitFields(rec, want, out, true)
}

// SplitUnquoted is SplitFields for a record the caller knows holds no
// quote (Splitter.Quoted is false): it is cut at its commas, whole words
// not searched for quotes and carriage returns.
func SplitUnquoted(rec []byte, want []int, out []string) int {
	return splitFields(rec, want, out, false)
}

// splitFields is SplitFields; unchecked, the caller knows rec holds no
// quote, and whole words are not searched for quotes and carriage
// returns (CSVBlock says why a carriage return outside quotes is a byte
// like another).
func splitFields(rec []byte, want []int, out []string, checked bool) int {
	f, start, i := 0, 0, 0
	field := func(end int) {
		if f < len(want) && want[f] > 0 {
			out[want[f]-1] = UnsafeString(rec[start:end])
		}
		f, start = f+1, end+1
	}
	for ; i+8 <= len(rec) && f < len(want); i += 8 {
		x := binary.LittleEndian.Uint64(rec[i:])
		if checked && zeroBytes(x^0x2222222222222222)|zeroBytes(x^0x0d0d0d0d0d0d0d0d) != 0 {
			return -1 // a quote or a carriage return
		}
		for commas := zeroBytes(x ^ 0x2c2c2c2c2c2c2c2c); commas != 0; commas &= commas - 1 {
			field(i + bits.TrailingZeros64(commas)>>3)
		}
	}
	// Past the wanted fields, the commas are only counted: unchecked, at
	// once by the vectorised count.
	if f >= len(want) && !checked {
		f += bytes.Count(rec[i:], comma)
		i = len(rec)
	}
	for ; i+8 <= len(rec); i += 8 {
		x := binary.LittleEndian.Uint64(rec[i:])
		if zeroBytes(x^0x2222222222222222)|zeroBytes(x^0x0d0d0d0d0d0d0d0d) != 0 {
			return -1
		}
		f += bits.OnesCount64(zeroBytes(x ^ 0x2c2c2c2c2c2c2c2c))
	}
	for ; i < len(rec); i++ {
		switch rec[i] {
		case ',':
			field(i)
		case '"', '\r':
			return -1
		}
	}
	field(len(rec))
	return f
}

// CSVBlock splits every record of a block into its fields and keeps the
// wanted ones: record k is buf[spans[2k]:spans[2k+1]] (without its line
// end), the wanted field of slot s is at[s], a record has nfields fields,
// and record k's field of slot s is put in f (reset for the block). A record
// holding a quote or a carriage return is parsed by encoding/csv
// (CSVFields); a record of another width is ErrFastPath, left to the
// reference reader. quoted is false only when no record holds a quote
// (Splitter.Quoted): the block is then cut at its commas without
// searching every word for quotes and carriage returns. Outside quotes,
// encoding/csv reads a carriage return as any other byte but the one
// before a line end, which the splitter leaves out of the record as
// encoding/csv drops it (TestCarriageReturnsOutsideQuotes).
func CSVBlock(buf []byte, spans []int32, at []int, nfields int, quoted bool, f *Fields) error {
	slots := len(at)
	want := make([]int, nfields) // want[i] is the slot of field i + 1 (0: not wanted)
	for s, i := range at {
		want[i] = s + 1
	}
	want = Wanted(want)
	out := make([]string, slots)
	for k := 0; k < len(spans)/2; k++ {
		if err := splitRecord(buf, int(spans[2*k]), int(spans[2*k+1]), want, at, out, nfields, quoted); err != nil {
			return err
		}
		for s, v := range out {
			f.Put(k, s, v)
		}
	}
	f.Seal()
	return nil
}

// splitRecord splits the record buf[lo:hi] and puts its field at[s] in
// out[s] (want is Wanted's, of at), by encoding/csv when the record holds
// a quote or a carriage return; a record of other than nfields fields is
// ErrFastPath.
func splitRecord(buf []byte, lo, hi int, want, at []int, out []string, nfields int, quoted bool) error {
	switch n := splitFields(buf[lo:hi], want, out, quoted); n {
	case nfields:
	case -1:
		fs, err := CSVFields(buf[lo:LineEnd(buf, hi)], nfields)
		if err != nil {
			return err
		}
		for s, i := range at {
			out[s] = fs[i]
		}
	default:
		return ErrFastPath
	}
	return nil
}

// Wanted is want up to its last wanted field, for SplitFields.
func Wanted(want []int) []int {
	n := len(want)
	for n > 0 && want[n-1] == 0 {
		n--
	}
	return want[:n]
}

var comma = []byte{','}

// zeroBytes sets the high bit of each byte of x that is 0, and no other
// bit (no carry crosses a byte: each sum is at most 0xfe; the shortcut
// (x-0x01…)&^x&0x80… also flags a 0x01 byte above a 0 byte).
func zeroBytes(x uint64) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	return ^((x&low7 + low7) | x | low7)
}

// ValidFromText is the validity of a column of fields (nil: no null): a
// field is null when empty.
func ValidFromText(fields []string) []byte {
	nulls := 0
	for _, v := range fields {
		if v == "" {
			nulls++
		}
	}
	if nulls == 0 {
		return nil
	}
	bits := make([]byte, (len(fields)+7)/8)
	for k, v := range fields {
		if v != "" {
			bits[k/8] |= 1 << (k % 8)
		}
	}
	return bits
}

// TextCapture is a builder that keeps the last text appended: it turns a
// JSON value into the text the typed builders parse.
type TextCapture struct{ Value string }

func (t *TextCapture) AppendNull() { t.Value = "" }

func (t *TextCapture) AppendText(s string) error { t.Value = s; return nil }

func (t *TextCapture) AppendInt(int64) error { return column.ErrNotScalar }

func (t *TextCapture) AppendFloat(float64) error { return column.ErrNotScalar }

func (t *TextCapture) AppendBool(bool) error { return column.ErrNotScalar }

func (t *TextCapture) AppendDate(int32) error { return column.ErrNotScalar }

func (t *TextCapture) AppendMicros(int64) error { return column.ErrNotScalar }

// AppendDecimal is refused: a text record holds text.
func (t *TextCapture) AppendDecimal(i128.Int, int32) error { return column.ErrNotScalar }

func (t *TextCapture) Size() int64 { return 0 }

func (t *TextCapture) Finish(string) *column.Column { return nil }

// Grower is the working-set reservation a reader grows before it takes
// more memory (the question's gate.Reservation).
type Grower interface {
	Grow(n int64) error
}

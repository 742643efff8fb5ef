package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"

	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/text"
)

// NDJSONReader reads the wanted members of NDJSON lines as
// encoding/json's map[string]json.RawMessage holds them: a line
// text.Object reads is read without the map, any other line by
// encoding/json (so its verdict on a line is encoding/json's). A reader
// is one goroutine's; the values it holds share the line's bytes until
// the next line.
type NDJSONReader struct {
	names  []string
	obj    *text.Object
	m      map[string]json.RawMessage
	vals   [][]byte
	simple []bool
}

// NewNDJSONReader returns a reader of the members named names.
func NewNDJSONReader(names []string) *NDJSONReader {
	return &NDJSONReader{names: names, obj: text.NewObject(names), vals: make([][]byte, len(names)),
		simple: make([]bool, len(names))}
}

// Line reads one line without the white space around it; false: it is
// not a JSON object.
func (r *NDJSONReader) Line(line []byte) bool {
	if r.obj.Read(line, r.vals, r.simple) {
		return true
	}
	clear(r.m)
	if err := json.Unmarshal(line, &r.m); err != nil || r.m == nil {
		return false
	}
	clear(r.simple)
	for i, n := range r.names {
		r.vals[i] = r.m[n] // nil when absent; a value present is never empty
	}
	return true
}

// Present reports whether the line held member i (a null included).
func (r *NDJSONReader) Present(i int) bool { return r.vals[i] != nil }

// Text is member i's value as Append hands it to a builder, when Append
// hands it as a view of the line or as a null ("": a null, an absent
// member, an empty string); ok is false for the rest (a string with an
// escape or a byte past ASCII, an object, an array), which Append reads.
// It spares a call through the builder for every value of a line.
func (r *NDJSONReader) Text(i int) (v string, ok bool) {
	raw := r.vals[i]
	switch {
	case raw == nil:
		return "", true
	case r.simple[i]:
		return text.UnsafeString(raw[1 : len(raw)-1]), true
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9' || raw[0] == 't' || raw[0] == 'f':
		return text.UnsafeString(raw), true
	case string(raw) == "null":
		return "", true
	}
	return "", false
}

// Append appends member i's value to b as AppendJSON does; a string
// without escapes, a number or a boolean is appended as a view of the
// line (the builders copy what they keep).
func (r *NDJSONReader) Append(i int, b column.Builder) error {
	raw := r.vals[i]
	switch {
	case r.simple[i] && len(raw) == 2:
		b.AppendNull()
		return nil
	case r.simple[i]:
		return b.AppendText(text.UnsafeString(raw[1 : len(raw)-1]))
	case len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9' || raw[0] == 't' || raw[0] == 'f'):
		return b.AppendText(text.UnsafeString(raw))
	}
	return AppendJSON(b, raw)
}

// readNDJSON reads an NDJSON part line by line with the stream's
// text.Splitter (what its buffers grow by to hold a long line is metered)
// and each line with an NDJSONReader; it reads what decoding each line
// into a map read (FuzzLoaderNDJSON), but for a line over 64 MiB, which
// bufio.Scanner refused unmetered and a question's stream reads.
func (l *Loader) readNDJSON(p files.Part, r io.Reader) error {
	// The two buffers of textBuffer bytes are part of the fixed overhead,
	// as the CSV reader's (readCSV).
	defer func() { l.reading = 0 }()
	s := &text.Splitter{Mem: readerMem{l}, Reader: r, Buf: make([]byte, 0, textBuffer)}
	spare := make([]byte, 0, textBuffer)
	seen := make([]bool, len(l.wants))
	names := make([]string, len(l.wants))
	for i, w := range l.wants {
		names[i] = w.Name
	}
	rd := NewNDJSONReader(names)
	line, objects := 0, 0
	ahead := l.aheadOf(p)
	for {
		if s.Start >= textCut {
			ahead.behind += int64(s.Start)
			spare = s.Cut(spare)
		}
		lo, hi, ok, err := s.Next()
		if err != nil {
			return fmt.Errorf("file %s, after line %d: %w", p.Path, line, err)
		}
		if !ok {
			break
		}
		line++
		b := bytes.TrimSpace(s.Buf[lo:hi])
		if len(b) == 0 {
			continue
		}
		if !rd.Line(b) {
			return fmt.Errorf("file %s, line %d: not a JSON object", p.Path, line)
		}
		objects++
		for i, w := range l.wants {
			if rd.Present(i) {
				seen[i] = true
			}
			if err := rd.Append(i, l.Builders[i]); err != nil {
				return LoadError(p.Path, w.Name, line, "line", err)
			}
		}
		if err := l.counted(&ahead, objects, ahead.behind+int64(s.Start)); err != nil {
			return err
		}
	}
	l.segment(objects % column.ChunkRows)
	for i, ok := range seen {
		if !ok && objects > 0 {
			return fmt.Errorf("file %s: column %s is missing (no object holds it)", p.Path, l.wants[i].Name)
		}
	}
	return nil
}

// AppendJSON appends one NDJSON value: null or absent is null, a string is
// its text, a number its literal, a boolean true/false; arrays and objects
// are refused.
func AppendJSON(b column.Builder, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		b.AppendNull()
		return nil
	}
	switch raw[0] {
	case '"':
		s, err := strconv.Unquote(string(raw))
		if err != nil {
			var v string
			if json.Unmarshal(raw, &v) != nil {
				return column.ErrNotScalar
			}
			s = v
		}
		if s == "" {
			b.AppendNull()
			return nil
		}
		return b.AppendText(s)
	case '{', '[':
		return column.ErrNotScalar
	case 't', 'f':
		return b.AppendText(string(raw))
	}
	return b.AppendText(string(raw))
}

// NDJSONBlock decodes the object of every record of buf (record k is
// buf[spans[2k]:spans[2k+1]]) as the reference reader does and puts the
// text of member names[s] in field s of fields (a JSON null, an absent
// member and "" are empty: null); seen[s] is set once some record holds
// member s. A record the reader cannot take is text.ErrFastPath.
func NDJSONBlock(buf []byte, spans []int32, names []string, seen []atomic.Bool, fields *text.Fields) error {
	rd := NewNDJSONReader(names)
	tc := &text.TextCapture{}
	for k := 0; k < len(spans)/2; k++ {
		if !rd.Line(bytes.TrimSpace(buf[spans[2*k]:spans[2*k+1]])) {
			return text.ErrFastPath
		}
		for s := range names {
			if rd.Present(s) && !seen[s].Load() {
				seen[s].Store(true)
			}
			v, ok := rd.Text(s)
			if !ok {
				tc.Value = ""
				if err := rd.Append(s, tc); err != nil {
					return err
				}
				v = tc.Value
			}
			fields.Put(k, s, v)
		}
	}
	fields.Seal()
	return nil
}

package text

import (
	"bytes"

	"sutura.dev/exec-arrow/internal/column"
)

// Late narrows one worker's CSV blocks to the records whose time falls in
// a question's range, when a field after the time field is wanted: the
// time field of every record is split and parsed first (the fields after
// it only counted, so every record's width is still checked), and the
// caller splits the other fields of the records in the range alone —
// late materialisation by field (docs/performance.md, "CSV fields split
// late"). NarrowNDJSON does the same for NDJSON lines, each scanned whole
// for its time member alone. It pays when few records are in the range:
// when more than a quarter of a block's were, the worker's next 31 blocks
// are left whole without the test.
type Late struct {
	out   [1]string
	in    []byte
	spans []int32
	wide  bool
	n     int
	held  int64 // what mem has been grown by for the buffers
	// unsure are the records whose time could not be found without
	// reading them whole (NarrowNDJSON): kept whatever their time.
	unsure []int32
}

// TimeBuilder builds the time column of a block, emptied for each
// (column.Resetter): the date and timestamp builders are.
type TimeBuilder interface {
	column.Builder
	column.Resetter
}

// lateBytes bounds what Late holds a record: the time column the builder
// holds, its span and its bit.
const lateBytes = 9 + 8 + 1

// Narrow returns the spans of the block's records in the range (record k
// is buf[spans[2k]:spans[2k+1]], its time field timeAt of nfields; quoted
// as for CSVBlock): spans itself when the block is left whole, nil when
// no record is in the range. The time field of each record is appended
// to time (emptied first; an empty field is a null) as the record is
// split, while its bytes are at hand; inRange then sets bit k of keep
// (cleared) for each record in the range and returns how many it set.
// What the test holds is grown on mem first, whose refusal is Narrow's
// error; so is a time the builder refuses. The spans returned are valid
// until the next call.
func (l *Late) Narrow(mem Grower, buf []byte, spans []int32, timeAt, nfields int, quoted bool, time TimeBuilder, inRange func(keep []byte) (int, error)) ([]int32, error) {
	if test, err := l.begin(mem, spans, time); !test || err != nil {
		return spans, err
	}
	at := []int{timeAt}
	want := make([]int, timeAt+1)
	want[timeAt] = 1
	for k := range len(spans) / 2 {
		if err := splitRecord(buf, int(spans[2*k]), int(spans[2*k+1]), want, at, l.out[:], nfields, quoted); err != nil {
			return nil, err
		}
		if l.out[0] == "" {
			time.AppendNull()
		} else if err := time.AppendText(l.out[0]); err != nil {
			return nil, err
		}
	}
	return l.finish(spans, inRange)
}

// NarrowNDJSON is Narrow for a block of NDJSON lines whose time is the
// one member o reads (NewObject of the time column's name): a line is
// scanned once for it, its other members neither copied nor parsed; a
// line whose member is not a plain string or null (or that o does not
// read itself) is kept whatever its time, for the caller to read whole
// with the others kept, and find its error.
func (l *Late) NarrowNDJSON(mem Grower, buf []byte, spans []int32, o *Object, time TimeBuilder, inRange func(keep []byte) (int, error)) ([]int32, error) {
	if test, err := l.begin(mem, spans, time); !test || err != nil {
		return spans, err
	}
	var val [1][]byte
	var simple [1]bool
	for k := range len(spans) / 2 {
		v := ""
		switch ok := o.Read(bytes.TrimSpace(buf[spans[2*k]:spans[2*k+1]]), val[:], simple[:]); {
		case ok && (val[0] == nil || string(val[0]) == "null"):
		case ok && simple[0]:
			v = UnsafeString(val[0][1 : len(val[0])-1])
		default: // kept whatever its time, its time null
			l.unsure = append(l.unsure, int32(k))
		}
		if v == "" {
			time.AppendNull()
		} else if err := time.AppendText(v); err != nil {
			return nil, err
		}
	}
	return l.finish(spans, inRange)
}

// begin reports whether the block is to be tested (false: it is left
// whole) and readies the test: what it holds grown on mem, time emptied
// and reserved for the block's records.
func (l *Late) begin(mem Grower, spans []int32, time TimeBuilder) (bool, error) {
	if l.n++; l.wide && l.n%32 != 0 {
		return false, nil
	}
	n := len(spans) / 2
	if need := int64(n) * lateBytes; need > l.held {
		if err := mem.Grow(need - l.held); err != nil {
			return false, err
		}
		l.held = need
	}
	time.Reset()
	if r, ok := time.(column.Reserver); ok {
		r.Reserve(n)
	}
	l.unsure = l.unsure[:0]
	return true, nil
}

// finish tests the block's times (inRange), keeps the unsure records too,
// and returns the spans of those kept (see Narrow).
func (l *Late) finish(spans []int32, inRange func(keep []byte) (int, error)) ([]int32, error) {
	n := len(spans) / 2
	l.in = append(l.in[:0], make([]byte, (n+7)/8)...)
	in, err := inRange(l.in)
	if err != nil {
		return nil, err
	}
	for _, k := range l.unsure { // a null time is in no range: never counted yet
		l.in[k>>3] |= 1 << (k & 7)
		in++
	}
	switch l.wide = 4*in > n; {
	case l.wide:
		return spans, nil
	case in == 0:
		return nil, nil
	}
	l.spans = l.spans[:0]
	for k := range n {
		if l.in[k>>3]&(1<<(k&7)) != 0 {
			l.spans = append(l.spans, spans[2*k], spans[2*k+1])
		}
	}
	return l.spans, nil
}

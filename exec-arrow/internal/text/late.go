package text

import (
	"bytes"
	"slices"

	"sutura.dev/exec-arrow/internal/column"
)

// Late narrows one worker's CSV blocks to the records whose time falls in
// a question's range (a union's questions may each read a time column of
// their own), when a field after the time fields is wanted: the time
// fields of every record are split and parsed first (the fields after
// them only counted, so every record's width is still checked), and the
// caller splits the other fields of the records in the range alone —
// late materialisation by field (docs/performance.md, "CSV fields split
// late"). NarrowNDJSON does the same for NDJSON lines, each scanned whole
// for its time members alone. It pays when few records are in the range:
// when more than a quarter of a block's were, the worker's next 31 blocks
// are left whole without the test.
type Late struct {
	out   []string
	texts [][]string // per time column, the block's fields, appended at once
	val   [][]byte
	plain []bool
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

// lateBytes bounds what Late holds a record: its span and its bit, and
// per time column timeBytes, what the builder holds and the field.
const lateBytes, timeBytes = 8 + 1, 9 + 16

// Narrow returns the spans of the block's records in the range (record k
// is buf[spans[2k]:spans[2k+1]] of nfields; quoted as for CSVBlock):
// spans itself when the block is left whole, nil when no record is in the
// range. Field timeAt[i] of each record is appended to times[i] (emptied
// first; an empty field is a null) as the record is split, while its
// bytes are at hand; inRange then sets bit k of keep (cleared) for each
// record in the range and returns how many it set. What the test holds is
// grown on mem first, whose refusal is Narrow's error; so is a time a
// builder refuses. The spans returned are valid until the next call.
func (l *Late) Narrow(mem Grower, buf []byte, spans []int32, timeAt []int, nfields int, quoted bool, times []TimeBuilder, inRange func(keep []byte) (int, error)) ([]int32, error) {
	if test, err := l.begin(mem, spans, times); !test || err != nil {
		return spans, err
	}
	want := make([]int, slices.Max(timeAt)+1)
	for i, at := range timeAt {
		want[at] = i + 1
	}
	for k := range len(spans) / 2 {
		if err := splitRecord(buf, int(spans[2*k]), int(spans[2*k+1]), want, timeAt, l.out, nfields, quoted); err != nil {
			return nil, err
		}
		for i, v := range l.out {
			l.texts[i] = append(l.texts[i], v)
		}
	}
	if err := l.appendTimes(times); err != nil {
		return nil, err
	}
	return l.finish(spans, inRange)
}

// appendTimes appends each time column's fields of the block to its
// builder, in one call (an empty field is a null), and forgets them.
func (l *Late) appendTimes(times []TimeBuilder) error {
	for i, b := range times {
		err := column.AppendTexts(b, l.texts[i], nil)
		clear(l.texts[i]) // no hold on the block's bytes
		l.texts[i] = l.texts[i][:0]
		if err != nil {
			return err
		}
	}
	return nil
}

// NarrowNDJSON is Narrow for a block of NDJSON lines whose times are the
// members o reads (NewObject of the time columns' names, times[i] the
// builder of the i-th): a line is scanned once for them, its other
// members neither copied nor parsed; a line where one of them is not a
// plain string or null (or that o does not read itself) is kept whatever
// its times, for the caller to read whole with the others kept, and find
// its error.
func (l *Late) NarrowNDJSON(mem Grower, buf []byte, spans []int32, o *Object, times []TimeBuilder, inRange func(keep []byte) (int, error)) ([]int32, error) {
	if test, err := l.begin(mem, spans, times); !test || err != nil {
		return spans, err
	}
	for k := range len(spans) / 2 {
		ok := o.Read(bytes.TrimSpace(buf[spans[2*k]:spans[2*k+1]]), l.val, l.plain)
		sure := ok
		for i, v := range l.val {
			sure = sure && (v == nil || string(v) == "null" || l.plain[i])
		}
		if !sure { // kept whatever its times, each null
			l.unsure = append(l.unsure, int32(k))
		}
		for i, v := range l.val {
			s := ""
			if sure && v != nil && l.plain[i] {
				s = UnsafeString(v[1 : len(v)-1])
			}
			l.texts[i] = append(l.texts[i], s)
		}
	}
	if err := l.appendTimes(times); err != nil {
		return nil, err
	}
	return l.finish(spans, inRange)
}

// begin reports whether the block is to be tested (false: it is left
// whole) and readies the test: what it holds grown on mem, times emptied
// and reserved for the block's records.
func (l *Late) begin(mem Grower, spans []int32, times []TimeBuilder) (bool, error) {
	if l.n++; l.wide && l.n%32 != 0 {
		return false, nil
	}
	n := len(spans) / 2
	if need := int64(n) * (lateBytes + timeBytes*int64(len(times))); need > l.held {
		if err := mem.Grow(need - l.held); err != nil {
			return false, err
		}
		l.held = need
	}
	for _, b := range times {
		b.Reset()
		if r, ok := b.(column.Reserver); ok {
			r.Reserve(n)
		}
	}
	if len(l.out) != len(times) {
		l.out, l.val, l.plain = make([]string, len(times)), make([][]byte, len(times)), make([]bool, len(times))
		l.texts = make([][]string, len(times))
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

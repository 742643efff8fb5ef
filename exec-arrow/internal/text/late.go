package text

import "sutura.dev/exec-arrow/internal/column"

// Late narrows one worker's CSV blocks to the records whose time falls in
// a question's range, when a field after the time field is wanted: the
// time field of every record is split and parsed first (the fields after
// it only counted, so every record's width is still checked), and the
// caller splits the other fields of the records in the range alone —
// late materialisation by field (docs/performance.md, "CSV fields split
// late"). It pays when few records are in the range: when more than a
// quarter of a block's were, the worker's next 31 blocks are left whole
// without the test.
type Late struct {
	out   [1]string
	in    []byte
	spans []int32
	wide  bool
	n     int
	held  int64 // what mem has been grown by for the buffers
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
	if l.n++; l.wide && l.n%32 != 0 {
		return spans, nil
	}
	n := len(spans) / 2
	if need := int64(n) * lateBytes; need > l.held {
		if err := mem.Grow(need - l.held); err != nil {
			return nil, err
		}
		l.held = need
	}
	time.Reset()
	if r, ok := time.(column.Reserver); ok {
		r.Reserve(n)
	}
	at := []int{timeAt}
	want := make([]int, timeAt+1)
	want[timeAt] = 1
	for k := range n {
		if err := splitRecord(buf, int(spans[2*k]), int(spans[2*k+1]), want, at, l.out[:], nfields, quoted); err != nil {
			return nil, err
		}
		if l.out[0] == "" {
			time.AppendNull()
		} else if err := time.AppendText(l.out[0]); err != nil {
			return nil, err
		}
	}
	l.in = append(l.in[:0], make([]byte, (n+7)/8)...)
	in, err := inRange(l.in)
	if err != nil {
		return nil, err
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

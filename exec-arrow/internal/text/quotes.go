package text

import (
	"bytes"
	"context"
	"math"
)

// Quotes links the ranges of one CSV part read in ranges (Ranged.ReadCSV).
// Whether a range's first byte lies inside a quoted field depends on the
// quotes of every byte before it; each range counts its own, and range i
// learns the parity before it once ranges 0 to i-1 have counted theirs.
// A range reads and counts before it waits, so ranges read at once wait
// only for each other's counts, not for each other's parsing.
type Quotes struct {
	ready []chan struct{}
	odd   []bool // odd[i]: the part's records up to the end of range i hold an odd number of quotes
}

// NewQuotes returns the links of a part cut into n ranges.
func NewQuotes(n int) *Quotes {
	q := &Quotes{ready: make([]chan struct{}, n), odd: make([]bool, n)}
	for i := range q.ready {
		q.ready[i] = make(chan struct{})
	}
	return q
}

// Link records that range i holds an odd number of quotes (oddIn) and
// returns whether the bytes before it hold an odd number: whether it
// starts inside a quoted field. It waits until range i-1 has linked, or
// until ctx is done. Each range links once.
func (q *Quotes) Link(ctx context.Context, i int, oddIn bool) (before bool, err error) {
	if i > 0 {
		select {
		case <-q.ready[i-1]:
			before = q.odd[i-1]
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	q.odd[i] = before != oddIn
	close(q.ready[i])
	return before, nil
}

// ReadCSV returns the bytes of the CSV records that start in [lo, hi),
// each with its line end (the part's last may have none), where base is
// where the part's records begin, past its header. A record starts at
// base or just past a line end outside every quoted field; a blank line
// is found as an empty record, as Splitter.Next finds it. link is given
// whether [lo, hi) holds an odd number of quotes and returns whether the
// bytes from base to lo do (Quotes.Link). quoted is false only when the
// bytes returned hold no quote. Ranges that partition [base, size) thus
// partition the records, as a Splitter over the whole part cuts them. The
// bytes are valid until the next read.
func (r *Ranged) ReadCSV(lo, hi, base int64, link func(oddIn bool) (bool, error)) (buf []byte, quoted bool, err error) {
	from := lo
	if lo > base {
		from = lo - 1 // the byte before lo tells whether a record may start at lo
	}
	n, err := r.fill(0, from, hi-from)
	if err != nil {
		return nil, false, err
	}
	at := min(int(lo-from), n)
	quotes := bytes.Count(r.buf[at:n], dquote)
	before, err := link(quotes%2 == 1)
	if err != nil {
		return nil, false, err
	}
	start := at
	if lo > base && (n == 0 || r.buf[0] != '\n' || before) {
		end, _ := recordEnd(r.buf[:n], at, before)
		if end < 0 {
			return nil, false, nil // a record that started before lo runs through the range
		}
		start = end + 1
	}
	if start >= n {
		return nil, false, nil // no record starts in the range
	}
	// The range's last record ends at the first line end outside quotes
	// from hi-1 on: the range's last byte, or one read past it.
	inQuotes := before != (quotes%2 == 1)
	if r.buf[n-1] != '\n' || inQuotes {
		for from+int64(n) < r.Size {
			got, err := r.fill(n, from+int64(n), 64<<10)
			if err != nil {
				return nil, false, err
			}
			if got == 0 {
				break
			}
			end, in := recordEnd(r.buf[:n+got], n, inQuotes)
			if end >= 0 {
				quotes += bytes.Count(r.buf[n:end], dquote)
				n = end + 1
				break
			}
			quotes += bytes.Count(r.buf[n:n+got], dquote)
			n, inQuotes = n+got, in
		}
	}
	if n-start > math.MaxInt32 {
		return nil, false, ErrLineTooLong
	}
	return r.buf[start:n], quotes > 0, nil
}

// recordEnd returns the first line end in buf from offset at on that is
// outside every quoted field, given whether at lies inside one; -1 when
// there is none, with whether the end of buf lies inside one.
func recordEnd(buf []byte, at int, inQuotes bool) (int, bool) {
	for {
		i := bytes.IndexByte(buf[at:], '\n')
		if i < 0 {
			return -1, inQuotes != (bytes.Count(buf[at:], dquote)%2 == 1)
		}
		if bytes.Count(buf[at:at+i], dquote)%2 == 1 {
			inQuotes = !inQuotes
		}
		if !inQuotes {
			return at + i, false
		}
		at += i + 1
	}
}

var dquote = []byte{'"'}

package text

import (
	"bytes"
	"errors"
	"io"
	"math"
)

// Ranged reads the lines of an uncompressed NDJSON part by byte range, so
// that several workers read and split one file at once, each with its
// own positioned reads, instead of one goroutine reading and cutting it
// for all of them (docs/performance.md, "NDJSON read in ranges"). JSON
// allows no line end inside a string, so every line end ends a record
// and a range's records are found without reading what comes before it.
//
// The lines of a range [lo, hi) are those whose first byte is in it: a
// line starts at offset 0 or just past a line end. Every line of the part
// thus falls in exactly one range of a partition of [0, size), whatever
// the ranges' sizes. A Ranged is one worker's: it keeps its buffer from
// range to range.
type Ranged struct {
	Src  io.ReaderAt
	Size int64  // the part's size: reads stop there or at the end of input
	Mem  Grower // accounts the buffer's growth
	buf  []byte
}

// ErrLineTooLong is a line a range cannot hold: past 2 GiB, the largest
// offset a block's spans record.
var ErrLineTooLong = errors.New("a line is longer than 2 GiB")

// Read returns the bytes of the lines that start in [lo, hi), each with
// its line end (the last line of the part may have none). The bytes are
// valid until the next Read.
func (r *Ranged) Read(lo, hi int64) ([]byte, error) {
	from := max(lo-1, 0) // the byte before lo tells whether a line starts at lo
	n, err := r.fill(0, from, hi-from)
	if err != nil {
		return nil, err
	}
	start := 0
	if lo > 0 {
		i := bytes.IndexByte(r.buf[:n], '\n')
		if i < 0 {
			return nil, nil // a line longer than the range started before it
		}
		start = i + 1
	}
	if start >= n {
		return nil, nil // no line starts in the range
	}
	// The range's last line ends at the first line end from hi-1 on.
	for n == len(r.buf) && (n == 0 || r.buf[n-1] != '\n') && from+int64(n) < r.Size {
		got, err := r.fill(n, from+int64(n), 64<<10)
		if err != nil {
			return nil, err
		}
		if i := bytes.IndexByte(r.buf[n:n+got], '\n'); i >= 0 {
			n += i + 1
			break
		}
		if got == 0 {
			break
		}
		n += got
	}
	if n > math.MaxInt32 {
		return nil, ErrLineTooLong
	}
	return r.buf[start:n], nil
}

// fill reads up to want bytes at off into buf[at:], growing it (and the
// question's reservation) as needed, and returns how many it read: fewer
// only at the end of the input, which is no error.
func (r *Ranged) fill(at int, off, want int64) (int, error) {
	want = max(min(want, r.Size-off), 0)
	need := at + int(want)
	if need > cap(r.buf) {
		// Room past need for the range's last line, and for a long line
		// to grow by copying a bounded number of times.
		size := need + max(need/8, 64<<10)
		if r.Mem != nil {
			if err := r.Mem.Grow(int64(size - cap(r.buf))); err != nil {
				return 0, err
			}
		}
		nb := make([]byte, at, size)
		copy(nb, r.buf[:at])
		r.buf = nb
	}
	r.buf = r.buf[:need]
	got, err := r.Src.ReadAt(r.buf[at:need], off)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	r.buf = r.buf[:at+got]
	return got, nil
}

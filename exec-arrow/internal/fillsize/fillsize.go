// Package fillsize estimates what caching a streamed table's columns
// will hold while the background fill builds them, from what the stream
// met: its rows, the dictionaries of its text batches and the widths of
// its integer batches, with what the files' statistics say of the
// values' ranges (docs/performance.md, "Narrow cached columns").
package fillsize

import (
	"sync/atomic"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/number"
)

// Seen is what a stream met, counted as its batches pass (by every
// worker at once): AddRows as it reads a file's rows, Batch the rest,
// per base slot. A nil Seen counts nothing.
type Seen struct {
	Rows atomic.Int64
	// dict counts the dictionary entries of the text batches (a
	// dictionary met in several batches, each time): more than the
	// column's distinct values, and far fewer than its rows when they
	// repeat.
	dict []atomic.Int64
	// most is the most entries of one batch's dictionary: a text column
	// whose every batch held at most 256 values is likely built a byte a
	// row.
	most []atomic.Int64
	// wide marks an integer column a batch held 64 bits wide: a text
	// file's builder met a value that did not fit 32 (a Parquet batch is
	// always wide; its file's statistics tell instead).
	wide []atomic.Bool
}

// New is what a stream of slots base columns has met: nothing yet.
func New(slots int) *Seen {
	return &Seen{dict: make([]atomic.Int64, slots), most: make([]atomic.Int64, slots), wide: make([]atomic.Bool, slots)}
}

// AddRows counts n rows more.
func (s *Seen) AddRows(n int64) {
	if s != nil {
		s.Rows.Add(n)
	}
}

// Batch counts a batch's columns (one per slot; nil for a slot it does
// not read).
func (s *Seen) Batch(cols []*column.Column) {
	if s == nil {
		return
	}
	for i, c := range cols {
		if c == nil || i >= len(s.dict) {
			continue
		}
		if c.Type == domain.TypeInteger && c.Ints != nil {
			s.wide[i].Store(true)
		}
		if c.Dict != nil {
			n := int64(len(c.Dict))
			s.dict[i].Add(n)
			for m := s.most[i].Load(); n > m && !s.most[i].CompareAndSwap(m, n); m = s.most[i].Load() {
			}
		}
	}
}

// IntsWide reports whether a batch of slot i held its integers 64 bits
// wide.
func (s *Seen) IntsWide(i int) bool { return i < len(s.wide) && s.wide[i].Load() }

// Slot is a base column as the estimate sees it.
type Slot struct {
	Col *column.Column // the column's prototype: its type, and whether only its validity is read
	// Days is a timestamp wanted as each row's day (a date column).
	Days bool
	// Narrow says the builder will keep the values narrow: an integer
	// column's within 32 bits, a date column's days within 16.
	Narrow bool
	// Codes is a text column read only for its distinct counts
	// (number.Builder): past number.DictMax distinct values, a number a
	// row.
	Codes bool
}

// Bytes is what building the slots' columns over the rows seen holds:
// their values and a bit a row of validity each (in case a null comes).
// A text column is its dictionary indexes, of a byte when no batch's
// dictionary held more than 256 values and of four otherwise, and a
// dictionary of 80 bytes an entry for a sixteenth of the rows, or for
// the entries the batches held when fewer; read for its distinct counts
// with more entries than number.DictMax, four bytes a row instead, with
// four bytes an entry of the dictionary it began with and the partition
// it finishes at once (32 bytes a row over number.Parts); a boolean a
// bit a row; a date
// two or four bytes, an integer four or eight, by Narrow; anything else
// eight.
func (s *Seen) Bytes(slots []Slot) int64 {
	rows := s.Rows.Load()
	var bits int64 // a row's, validity included
	var n int64
	for i, sl := range slots {
		c := sl.Col
		switch {
		case c.ValidOnly:
			bits++
		case c.Type == domain.TypeDate || sl.Days:
			bits += 33
			if sl.Narrow {
				bits -= 16
			}
		case c.Type == domain.TypeBoolean:
			bits += 2
		case c.Type == domain.TypeText:
			bits += 33
			entries := rows / 16
			if i < len(s.dict) {
				entries = min(entries, s.dict[i].Load())
				if most := s.most[i].Load(); most > 0 && most <= 256 {
					bits -= 24
				}
			}
			if sl.Codes && entries > int64(number.DictMax) {
				n += 4*int64(number.DictMax) + 32*rows/number.Parts
				break
			}
			n += 80 * entries
		case c.Type == domain.TypeInteger && sl.Narrow:
			bits += 33
		default:
			bits += 65
		}
	}
	return n + (bits*rows+7)/8
}

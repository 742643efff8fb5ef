package kernel

import (
	"encoding/binary"
	"math"
	"math/bits"
	"os"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/distinct"
	"sutura.dev/exec-arrow/internal/gate"
)

// DistinctBookMax is the most values a worker numbers in its codebook for
// one count_distinct term before it moves them to a distinct.Set: a
// codebook and its bitsets are fastest on few values, a set's fixed-width
// entries hold many in less memory and can spill (docs/operations.md,
// "Memory under load").
// Tests lower it.
var DistinctBookMax = 1 << 16

// SpillDir is where distinct sets spill: the system's temporary directory.
var SpillDir = os.TempDir()

// setTerm reports whether t's distinct values may move to a distinct.Set:
// a streamed column numbered by the worker's codebook alone. (A cached
// column's codes too many for bitsets start in one: newTermState.)
func setTerm(t *TermPlan) bool { return t.Op == OpDistinct && t.Codes == nil && t.Base == 0 }

// toDistinct moves the values s numbered in its codebook, and the groups
// that hold them, into a distinct.Set.
func (s *termState) toDistinct(t *TermPlan) {
	if s.dset != nil || !setTerm(t) {
		return
	}
	s.dset = distinct.New(SpillDir)
	var buf [8]byte
	for g := 0; s.set == nil && s.words > 0 && g < len(s.bits)/s.words; g++ {
		for w, x := range s.bits[g*s.words : (g+1)*s.words] {
			for x != 0 {
				b := bits.TrailingZeros64(x)
				x &= x - 1
				s.addBookValue(uint32(g), int32(w*64+b), &buf)
			}
		}
	}
	for k := range s.set.All() {
		s.addBookValue(uint32(k>>32), int32(k&(1<<32-1)), &buf)
	}
	s.book, s.bits, s.set, s.words, s.m = nil, nil, nil, 0, column.DictMap{}
}

// addBookValue adds the value of the codebook's code k to group g.
func (s *termState) addBookValue(g uint32, k int32, buf *[8]byte) {
	if v, n, text := s.book.Value(k); text {
		s.dset.AddString(g, distinct.HashString(v), v)
	} else {
		s.addInt(g, n, buf)
	}
}

func (s *termState) addInt(g uint32, v int64, buf *[8]byte) {
	binary.LittleEndian.PutUint64(buf[:], uint64(v))
	s.dset.Add(g, distinct.HashUint64(uint64(v)), buf[:])
}

// updateCodes adds the cached column's codes of rows rows[k] to groups
// gids[k] of the set (held as 4 bytes: the codes are the column's own,
// the same in every worker), aheadBatch pairs at a time.
func updateCodes[C column.Index](s *termState, codes []C, plus int32, rows, gids []int32) {
	var gs [aheadBatch]uint32
	var hs [aheadBatch]uint64
	var vs [aheadBatch]uint32
	n := 0
	for k, r := range rows {
		if code := int32(codes[r]) + plus; code > 0 {
			gs[n], hs[n], vs[n] = uint32(gids[k]), distinct.HashUint64(uint64(code)), uint32(code)
			if n++; n == aheadBatch {
				s.dset.AddCodes(gs[:], hs[:], vs[:])
				n = 0
			}
		}
	}
	s.dset.AddCodes(gs[:n], hs[:n], vs[:n])
}

// aheadBatch is how many pairs a distinct set is given at once
// (distinct.Set.AddStrings).
const aheadBatch = 128

// updateTexts adds rows rows[k] of text column c to groups gids[k] of the
// set, aheadBatch pairs at a time, with the hashes the column's builder
// kept when it has them.
func (s *termState) updateTexts(c *column.Column, rows, gids []int32) {
	var gs [aheadBatch]uint32
	var hs [aheadBatch]uint64
	var vs [aheadBatch]string
	nulls := c.Valid != nil
	known := c.DictHash // the builder's hashes: no text hashed twice
	n := 0
	for k, r := range rows {
		if nulls && !c.IsValid(r) {
			continue
		}
		i := c.Index(r)
		v := c.Dict[i]
		h := uint64(0)
		if known != nil {
			h = known[i]
		} else {
			h = distinct.HashString(v)
		}
		gs[n], hs[n], vs[n] = uint32(gids[k]), h, v
		if n++; n == aheadBatch {
			s.dset.AddStrings(gs[:], hs[:], vs[:])
			n = 0
		}
	}
	s.dset.AddStrings(gs[:n], hs[:n], vs[:n])
}

// updateSet adds rows rows[k] of c to groups gids[k] of the set, each
// value as the bytes its codebook would have numbered.
func (s *termState) updateSet(c *column.Column, rows, gids []int32) {
	if c.Type == domain.TypeText {
		s.updateTexts(c, rows, gids)
		return
	}
	var buf [8]byte
	nulls := c.Valid != nil
	for k, r := range rows {
		if nulls && !c.IsValid(r) {
			continue
		}
		g := uint32(gids[k])
		switch c.Type {
		case domain.TypeDecimal:
			v := c.DecAt(r).Cell(c.Scale).Render()
			s.dset.AddString(g, distinct.HashString(v), v)
		case domain.TypeFloat:
			f := c.Floats[r]
			if f == 0 {
				f = 0
			}
			s.addInt(g, int64(math.Float64bits(f)), &buf)
		case domain.TypeDate:
			s.addInt(g, int64(c.Day(r)), &buf)
		case domain.TypeBoolean:
			s.addInt(g, int64(column.BitOf(c.Bools.Value(int(r)))), &buf)
		default:
			s.addInt(g, c.Int(r), &buf)
		}
	}
}

// spill writes the distinct sets of p to disk and returns the bytes freed.
func (p *Partial) spill() (int64, error) {
	var freed int64
	for _, ts := range p.Terms {
		for _, s := range ts {
			if s.dset != nil {
				n, err := s.dset.Spill()
				if err != nil {
					return freed, err
				}
				freed += n
			}
		}
	}
	return freed, nil
}

// Close gives back the spill files of p's distinct sets.
func (p *Partial) Close() {
	for _, ts := range p.Terms {
		for _, s := range ts {
			if s.dset != nil {
				s.dset.Close()
			}
		}
	}
}

// account brings the bytes mem holds for p from *held to what p holds
// now; when they do not fit, p's distinct sets spill first, and only then
// is the question refused.
func (q *Query) account(p *Partial, mem *gate.Reservation, held *int64) error {
	n := p.bytes(q)
	if n <= *held {
		return nil
	}
	if err := mem.Grow(n - *held); err == nil {
		*held = n
		return nil
	}
	freed, err := p.spill()
	if err != nil {
		return err
	}
	if freed > 0 {
		n = p.bytes(q)
		if n <= *held {
			mem.Shrink(*held - n)
			*held = n
			return nil
		}
	}
	if err := mem.Grow(n - *held); err != nil {
		return err
	}
	*held = n
	return nil
}

package kernel

import (
	"iter"

	"sutura.dev/exec-arrow/internal/distinct"
)

// pairSet is a count_distinct term's set of group<<32|code pairs. A
// cached column's sparse term keeps them in a distinct.Pairs, whose table
// it turns into bitsets once dense; a codebook's term, which outgrew its
// bitsets during a scan, in a Go map: on a cold scan of 20 M rows the map
// took 0.8–0.9 s of CPU to the Pairs' 1.3–2.1 s, its growth reusing the
// heap's memory where a table doubling whole takes fresh pages, each a
// fault on first touch (docs/performance.md).
type pairSet struct {
	p *distinct.Pairs
	m map[uint64]struct{}
}

func (ps *pairSet) add(k uint64) {
	if ps.p != nil {
		ps.p.Add(k)
		return
	}
	ps.m[k] = struct{}{}
}

// addKeys adds every key of ks.
func (ps *pairSet) addKeys(ks []uint64) {
	if ps.p != nil {
		ps.p.AddKeys(ks)
		return
	}
	for _, k := range ks {
		ps.m[k] = struct{}{}
	}
}

// grow makes room for n more pairs (see distinct.Pairs.Grow).
func (ps *pairSet) grow(n int) {
	if ps.p != nil {
		ps.p.Grow(n)
	}
}

func (ps *pairSet) len() int {
	if ps.p != nil {
		return ps.p.Len()
	}
	return len(ps.m)
}

// bytes estimates the memory the set holds (none for a nil set).
func (ps *pairSet) bytes() int64 {
	switch {
	case ps == nil:
		return 0
	case ps.p != nil:
		return ps.p.Bytes()
	}
	return 24 * int64(len(ps.m))
}

// all yields every pair, in no particular order (none of a nil set).
func (ps *pairSet) all() iter.Seq[uint64] {
	if ps != nil && ps.p != nil {
		return ps.p.All()
	}
	return func(yield func(uint64) bool) {
		if ps == nil {
			return
		}
		for k := range ps.m {
			if !yield(k) {
				return
			}
		}
	}
}

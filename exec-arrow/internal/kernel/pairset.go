package kernel

import (
	"iter"

	"sutura.dev/exec-arrow/internal/distinct"
)

// pairSet is a count_distinct term's set of group<<32|code pairs. A
// cached column's sparse term keeps them in a distinct.Pairs, whose table
// it turns into bitsets once dense; a codebook's term, which outgrew its
// bitsets during a scan, in a distinct.Runs: on a cold scan of 20 M rows
// a hash table's inserts and growth (a Go map, or Pairs whose doublings
// take fresh pages) cost more than appends sorted now and then, and two
// workers' sets merged one pair at a time into a map were a serial end
// of 30–100 ms (docs/performance.md).
type pairSet struct {
	p *distinct.Pairs
	r *distinct.Runs
}

func (ps *pairSet) add(k uint64) {
	if ps.p != nil {
		ps.p.Add(k)
		return
	}
	ps.r.Add(k)
}

// addKeys adds every key of ks.
func (ps *pairSet) addKeys(ks []uint64) {
	if ps.p != nil {
		ps.p.AddKeys(ks)
		return
	}
	ps.r.AddKeys(ks)
}

// grow makes room for n more pairs (see distinct.Pairs.Grow).
func (ps *pairSet) grow(n int) {
	if ps.p != nil {
		ps.p.Grow(n)
		return
	}
	ps.r.Grow(n)
}

func (ps *pairSet) len() int {
	if ps.p != nil {
		return ps.p.Len()
	}
	return ps.r.Len()
}

// bytes estimates the memory the set holds (none for a nil set).
func (ps *pairSet) bytes() int64 {
	switch {
	case ps == nil:
		return 0
	case ps.p != nil:
		return ps.p.Bytes()
	}
	return ps.r.Bytes()
}

// all yields every pair, in no particular order (none of a nil set).
func (ps *pairSet) all() iter.Seq[uint64] {
	switch {
	case ps == nil:
		return (*distinct.Runs)(nil).All()
	case ps.p != nil:
		return ps.p.All()
	}
	return ps.r.All()
}

package distinct

import "iter"

// PairSet is a count_distinct term's set of group<<32|code pairs, held
// in one of two forms (the other is nil). A cached column's sparse term
// keeps them in Pairs, whose table it turns into bitsets once dense; a
// codebook's term, which outgrew its bitsets during a scan, in Runs: on a
// cold scan of 20 M rows a hash table's inserts and growth (a Go map, or
// Pairs whose doublings take fresh pages) cost more than appends sorted
// now and then, and two workers' sets merged one pair at a time into a
// map were a serial end of 30–100 ms (docs/performance.md).
type PairSet struct {
	Pairs *Pairs
	Runs  *Runs
}

// Add adds pair k.
func (ps *PairSet) Add(k uint64) {
	if ps.Pairs != nil {
		ps.Pairs.Add(k)
		return
	}
	ps.Runs.Add(k)
}

// AddKeys adds every key of ks.
func (ps *PairSet) AddKeys(ks []uint64) {
	if ps.Pairs != nil {
		ps.Pairs.AddKeys(ks)
		return
	}
	ps.Runs.AddKeys(ks)
}

// Grow makes room for n more pairs (see Pairs.Grow).
func (ps *PairSet) Grow(n int) {
	if ps.Pairs != nil {
		ps.Pairs.Grow(n)
		return
	}
	ps.Runs.Grow(n)
}

// Len is the number of pairs held.
func (ps *PairSet) Len() int {
	if ps.Pairs != nil {
		return ps.Pairs.Len()
	}
	return ps.Runs.Len()
}

// Bytes estimates the memory the set holds (none for a nil set).
func (ps *PairSet) Bytes() int64 {
	switch {
	case ps == nil:
		return 0
	case ps.Pairs != nil:
		return ps.Pairs.Bytes()
	}
	return ps.Runs.Bytes()
}

// All yields every pair, in no particular order (none of a nil set).
func (ps *PairSet) All() iter.Seq[uint64] {
	switch {
	case ps == nil:
		return (*Runs)(nil).All()
	case ps.Pairs != nil:
		return ps.Pairs.All()
	}
	return ps.Runs.All()
}

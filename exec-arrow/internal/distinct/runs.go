package distinct

import (
	"iter"
	"slices"
)

// Runs is a set of 64-bit keys, such as a group and a value's code
// (g<<32 | code), in sorted runs: a key is appended, and the keys
// appended since the last compaction are radix-sorted and merged into
// the sorted, distinct ones once they are as many (at least runMin). An
// add is a store into memory touched in order, where a hash table's is a
// probe into memory touched at random and its growth rehashes every key;
// adding another set's keys is a sort of them and one pass. It holds 8
// to 32 bytes a key, and a key added again until the next compaction.
// The zero value is an empty set.
type Runs struct {
	keys   []uint64 // keys[:sorted] ascending and distinct, the rest as added
	sorted int
	spare  []uint64 // the sort's scratch
	other  []uint64 // an absorbed set's keys, ascending and distinct
}

// runMin is the fewest appended keys a compaction sorts.
const runMin = 1 << 13

// Add records k.
func (r *Runs) Add(k uint64) {
	if r.other != nil {
		r.flatten()
	}
	if len(r.keys) == cap(r.keys) {
		// Twice the room, where append would add a quarter: each
		// growth is a copy into memory touched for the first time.
		r.keys = append(make([]uint64, 0, 2*cap(r.keys)+runMin), r.keys...)
	}
	r.keys = append(r.keys, k)
	if n := len(r.keys) - r.sorted; n >= runMin && n >= r.sorted {
		r.compact()
	}
}

// AddKeys records every key of ks.
func (r *Runs) AddKeys(ks []uint64) {
	for _, k := range ks {
		r.Add(k)
	}
}

// Grow makes room for n more keys.
func (r *Runs) Grow(n int) { r.keys = slices.Grow(r.keys, n) }

// Len is the number of distinct keys.
func (r *Runs) Len() int {
	if r.other != nil {
		r.flatten()
	}
	r.compact()
	return len(r.keys)
}

// Bytes is the memory the set holds (none for a nil set).
func (r *Runs) Bytes() int64 {
	if r == nil {
		return 0
	}
	return 8 * int64(cap(r.keys)+cap(r.spare)+cap(r.other))
}

// All yields every key once, in ascending order (none of a nil set).
func (r *Runs) All() iter.Seq[uint64] {
	if r == nil {
		return slices.Values([]uint64(nil))
	}
	r.compact()
	return func(yield func(uint64) bool) { union(r.keys, r.other, yield) }
}

// union yields the keys of a or b (each ascending and distinct) once
// each, in ascending order.
func union(a, b []uint64, yield func(uint64) bool) {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var k uint64
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			k, i = a[i], i+1
		case i == len(a) || b[j] < a[i]:
			k, j = b[j], j+1
		default:
			k, i, j = a[i], i+1, j+1
		}
		if !yield(k) {
			return
		}
	}
}

// flatten merges the absorbed keys into the set's own.
func (r *Runs) flatten() {
	r.compact()
	keys := make([]uint64, 0, len(r.keys)+len(r.other)+runMin)
	union(r.keys, r.other, func(k uint64) bool {
		keys = append(keys, k)
		return true
	})
	r.keys, r.sorted, r.other = keys, len(keys), nil
}

// Absorb takes src's keys into r, each as f translates it, and leaves
// src empty: when they are not in order once translated, they are sorted
// where they lie (by their top 32 bits alone, in order, when f keeps
// every key's low 32 bits), then kept as a second run that All merges
// with r's as it yields them; nothing is copied into fresh memory.
func (r *Runs) Absorb(src *Runs, f func(uint64) uint64, keepLow bool) {
	if r.other != nil {
		r.flatten()
	}
	src.compact()
	ks, tmp := src.keys, src.spare
	*src = Runs{}
	for i, k := range ks {
		ks[i] = f(k)
	}
	if !slices.IsSorted(ks) {
		if cap(tmp) < len(ks) {
			tmp = make([]uint64, len(ks))
		}
		b := tmp[:len(ks)]
		if keepLow {
			// ks is in order of the keys before f: a stable sort by the
			// new top bits keeps each one's low bits in order (unless f
			// sent two top bits to one).
			if out := radixSort(ks, b, 4); &out[0] != &ks[0] {
				ks, b = out, ks
			}
		}
		if !slices.IsSorted(ks) {
			ks = radixSort(ks, b, 0)
		}
	}
	r.other = slices.Compact(ks)
}

// compact sorts the appended keys and merges them, once each, into the
// sorted ones: from the back, so that no sorted key is overwritten
// before it is read, then moved down over the room duplicates left.
func (r *Runs) compact() {
	keys, s := r.keys, r.sorted
	if s == len(keys) {
		return
	}
	if cap(r.spare) < len(keys)-s {
		r.spare = make([]uint64, 0, cap(keys)-s)
	}
	spare := r.spare[:len(keys)-s]
	tail := radixSort(keys[s:], spare, 0)
	if &tail[0] != &spare[0] {
		tail = spare[:copy(spare, tail)]
	}
	i, j, w := s-1, len(tail)-1, len(keys)
	for j >= 0 {
		if j > 0 && tail[j] == tail[j-1] {
			j--
			continue
		}
		w--
		switch {
		case i >= 0 && keys[i] > tail[j]:
			keys[w] = keys[i]
			i--
		case i >= 0 && keys[i] == tail[j]:
			keys[w] = keys[i]
			i, j = i-1, j-1
		default:
			keys[w] = tail[j]
			j--
		}
	}
	if w > i+1 {
		// Duplicates left room between the sorted keys not moved
		// and the merged ones.
		copy(keys[i+1:], keys[w:])
	}
	r.keys = keys[:i+1+len(keys)-w]
	r.sorted = len(r.keys)
}

// radixSort sorts a ascending by its bytes from byte from on (0: the
// whole key), least significant first and stable, through tmp (as long
// as a), and returns the one of them holding the result: a byte every
// key shares takes no pass.
func radixSort(a, tmp []uint64, from int) []uint64 {
	var count [8][256]int
	for _, k := range a {
		for d := from; d < len(count); d++ {
			count[d][byte(k>>(8*d))]++
		}
	}
	for d := from; d < len(count); d++ {
		if count[d][byte(a[0]>>(8*d))] == len(a) {
			continue
		}
		var at [256]int
		n := 0
		for b, c := range count[d] {
			at[b], n = n, n+c
		}
		for _, k := range a {
			b := byte(k >> (8 * d))
			tmp[at[b]] = k
			at[b]++
		}
		a, tmp = tmp, a
	}
	return a
}

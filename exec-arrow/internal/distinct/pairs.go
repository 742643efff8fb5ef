package distinct

import "iter"

// Pairs is a set of nonzero 64-bit keys, such as a group and a value's
// code (g<<32 | code): one open-addressing table (linear probing) of 8-byte
// slots, at most 3/4 full, so 11 to 21 bytes a key. It holds a few pairs
// in little memory where a bitset per group takes a bit for every value of
// the domain, and grows only as keys come. It never spills: its callers
// bound it (kernel: a cached column's term turns it into bitsets once it
// would take more than they do).
type Pairs struct {
	slots []uint64 // 0 is an empty slot
	n     int
	shift uint8 // 64 - log2(len(slots))
	sink  uint64
	grew  int // tables rebuilt larger (see Grew)
}

// Grew is how many times the set rebuilt its table larger, its keys
// rehashed into it.
func (p *Pairs) Grew() int { return p.grew }

// pairsMin is the fewest slots a table has.
const pairsMin = 64

// NewPairs returns an empty set with room for n keys before it grows.
func NewPairs(n int) *Pairs {
	p := &Pairs{}
	p.reserve(n)
	return p
}

// slot is where k's search starts (Fibonacci hashing: the top bits of the
// product depend on every bit of k).
func (p *Pairs) slot(k uint64) uint64 { return (k * 0x9e3779b97f4a7c15) >> p.shift }

// reserve makes room for n keys in all without a rehash.
func (p *Pairs) reserve(n int) {
	c := max(len(p.slots), pairsMin)
	for n > c/4*3 {
		c *= 2
	}
	if c == len(p.slots) {
		return
	}
	old := p.slots
	if len(old) > 0 {
		p.grew++
	}
	p.slots, p.shift = make([]uint64, c), 64
	for s := c; s > 1; s >>= 1 {
		p.shift--
	}
	mask := uint64(c - 1)
	for _, k := range old {
		if k != 0 {
			i := p.slot(k)
			for p.slots[i] != 0 {
				i = (i + 1) & mask
			}
			p.slots[i] = k
		}
	}
}

// Grow makes room for n more keys without a rehash. Keys taken from
// another set come in the order of its slots, the order of where their
// searches start: inserted into a table that starts smaller and doubles
// as they come, linear probing piles them up in runs every later search
// walks. A table grown first for all of them is at least as large as
// theirs, and they land in order near where their searches start.
func (p *Pairs) Grow(n int) { p.reserve(p.n + n) }

// Add records k (nonzero).
func (p *Pairs) Add(k uint64) {
	p.reserve(p.n + 1)
	p.insert(k, p.slot(k))
}

func (p *Pairs) insert(k, i uint64) {
	mask := uint64(len(p.slots) - 1)
	for {
		switch p.slots[i] {
		case k:
			return
		case 0:
			p.slots[i] = k
			p.n++
			return
		}
		i = (i + 1) & mask
	}
}

// AddKeys records every key of ks (nonzero), as Add does each, up to 128
// at a time: it first reads the slot where each search starts, every read
// independent of the others, so that the processor waits for their memory
// at once rather than a key at a time.
func (p *Pairs) AddKeys(ks []uint64) {
	var at [128]uint64
	for len(ks) > 0 {
		b := ks[:min(len(ks), len(at))]
		ks = ks[len(b):]
		p.reserve(p.n + len(b))
		var sink uint64
		for j, k := range b {
			at[j] = p.slot(k)
			sink += p.slots[at[j]]
		}
		p.sink += sink
		for j, k := range b {
			p.insert(k, at[j])
		}
	}
}

// Len is the number of keys.
func (p *Pairs) Len() int { return p.n }

// Bytes is the memory the set holds (none for a nil set).
func (p *Pairs) Bytes() int64 {
	if p == nil {
		return 0
	}
	return 8 * int64(len(p.slots))
}

// All yields every key, in no particular order (none of a nil set).
func (p *Pairs) All() iter.Seq[uint64] {
	return func(yield func(uint64) bool) {
		if p == nil {
			return
		}
		for _, k := range p.slots {
			if k != 0 && !yield(k) {
				return
			}
		}
	}
}

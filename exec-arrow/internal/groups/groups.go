// Package groups numbers the groups of a scan: a group's key is its
// bucket of the range and one code per grouped column, and a Table gives
// each key met a dense id, in the order they are met; a Codebook numbers
// the values of a dimension (or of a distinct term) a worker meets into
// the codes keys are built from.
//
// While the product of the radixes fits in 62 bits, keys pack into a
// uint64 ((bucket*r1 + c1)*r2 + c2 ...) looked up in a direct table (a
// key space up to DenseKeys) or a hash map; otherwise they are held whole
// (Key). A column coded as a worker meets its values grows its radix
// (Grow); the table then re-keys the groups it has, whose ids do not
// change.
package groups

import (
	"math/bits"
	"slices"
)

// MaxKeys is the most grouped columns a key holds: an answer's four
// dimensions, or a federated base leg's local dimensions and the key of
// each crossing it starts.
const MaxKeys = 12

// Key is a group's bucket (Key[0]) and one code per grouped column.
type Key [MaxKeys + 1]uint32

// DenseKeys is the largest packed key space looked up through a direct
// table instead of a hash map.
const DenseKeys = 1 << 16

// Table assigns group ids to group keys.
type Table struct {
	nb     uint64   // buckets
	radix  []uint64 // per grouped column
	packed bool
	space  uint64
	dense  []int32 // packed key → id+1
	m      map[uint64]int32
	wide   map[Key]int32
	keys   []uint64 // packed: key per id
	wkeys  []Key    // wide: key per id
	prev   []uint64 // the radixes keys were packed with
}

// New returns an empty table for nb buckets and grouped columns of the
// given radixes (codes 0..radix-1).
func New(nb int, radix []uint64) *Table {
	g := &Table{nb: uint64(max(nb, 1)), radix: slices.Clone(radix)}
	g.layout()
	return g
}

// layout sizes the key space for the current radixes and files every
// group under its key in it.
func (g *Table) layout() {
	space, packed := g.nb, true
	for _, r := range g.radix {
		hi, lo := bits.Mul64(space, r)
		if hi != 0 || lo > 1<<62 {
			packed = false
		}
		space = lo
	}
	wasWide := g.wide != nil
	old := g.keys
	oldRadix := g.prev
	g.packed, g.space = packed, space
	g.dense, g.m, g.wide = nil, nil, nil
	switch {
	case !packed:
		g.wide = make(map[Key]int32, len(g.wkeys)+len(old))
	case space <= DenseKeys:
		g.dense = make([]int32, space)
	default:
		g.m = make(map[uint64]int32, len(old))
	}
	g.prev = slices.Clone(g.radix)
	if wasWide {
		for id, k := range g.wkeys {
			g.wide[k] = int32(id)
		}
		return
	}
	g.keys = nil
	for id, k := range old {
		parts := unpack(k, oldRadix)
		if !packed {
			g.wkeys = append(g.wkeys, parts)
			g.wide[parts] = int32(id)
			continue
		}
		nk := g.pack(parts)
		g.keys = append(g.keys, nk)
		if g.dense != nil {
			g.dense[nk] = int32(id) + 1
		} else {
			g.m[nk] = int32(id)
		}
	}
}

// unpack splits a packed key into the bucket and the codes.
func unpack(k uint64, radix []uint64) Key {
	var parts Key
	for d := len(radix) - 1; d >= 0; d-- {
		parts[d+1] = uint32(k % radix[d])
		k /= radix[d]
	}
	parts[0] = uint32(k)
	return parts
}

// pack is the packed key of parts under the current radixes.
func (g *Table) pack(parts Key) uint64 {
	k := uint64(parts[0])
	for d, r := range g.radix {
		k = k*r + uint64(parts[d+1])
	}
	return k
}

// Grow makes grouped column d's radix hold code card (codes 0..card),
// doubling it, and re-keys the groups when it changes.
func (g *Table) Grow(d int, card int) {
	need := uint64(card) + 1
	if g.radix[d] >= need {
		return
	}
	r := g.radix[d]
	for r < need {
		r *= 2
	}
	g.radix[d] = r
	g.layout()
}

// Packed reports whether keys pack into a uint64 (PackedIDs), under the
// radixes Radix gives; otherwise they are held whole (ID).
func (g *Table) Packed() bool { return g.packed }

// Radix is grouped column d's radix.
func (g *Table) Radix(d int) uint64 { return g.radix[d] }

// Len is the number of groups.
func (g *Table) Len() int {
	if g.wide != nil {
		return len(g.wkeys)
	}
	return len(g.keys)
}

// Parts returns the bucket and codes of group id.
func (g *Table) Parts(id int) Key {
	if g.wide != nil {
		return g.wkeys[id]
	}
	return unpack(g.keys[id], g.radix)
}

// PackedID returns the group of a packed key, adding it when new.
func (g *Table) PackedID(key uint64) int32 {
	if g.dense != nil {
		id := g.dense[key]
		if id == 0 {
			g.keys = append(g.keys, key)
			id = int32(len(g.keys))
			g.dense[key] = id
		}
		return id - 1
	}
	id, ok := g.m[key]
	if !ok {
		id = int32(len(g.keys))
		g.keys = append(g.keys, key)
		g.m[key] = id
	}
	return id
}

// PackedIDs sets ids[k] to the group of the packed key keys[k], adding
// those that are new, in order. It is a scan's hot loop: the direct
// table's lookup is written out in it, not called through PackedID,
// whose map branch keeps it from being inlined.
func (g *Table) PackedIDs(keys []uint64, ids []int32) {
	if g.dense == nil {
		for k, key := range keys {
			ids[k] = g.PackedID(key)
		}
		return
	}
	for k, key := range keys {
		id := g.dense[key]
		if id == 0 {
			g.keys = append(g.keys, key)
			id = int32(len(g.keys))
			g.dense[key] = id
		}
		ids[k] = id - 1
	}
}

// WideID returns the group of a key held whole, adding it when new.
func (g *Table) WideID(key Key) int32 {
	id, ok := g.wide[key]
	if !ok {
		id = int32(len(g.wkeys))
		g.wkeys = append(g.wkeys, key)
		g.wide[key] = id
	}
	return id
}

// ID returns the group of parts, adding it when new.
func (g *Table) ID(parts Key) int32 {
	if !g.packed {
		return g.WideID(parts)
	}
	return g.PackedID(g.pack(parts))
}

// Bytes estimates the memory g holds.
func (g *Table) Bytes() int64 {
	n := int64(g.Len()) * 24
	n += int64(4 * len(g.dense))
	return n
}

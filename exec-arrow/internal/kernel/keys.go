package kernel

import (
	"math/bits"
	"slices"
	"strings"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
)

// codebook numbers the distinct values of a streamed column as one worker
// meets them: code 0 is null, 1+k the k-th value met. It is the streaming
// counterpart of a cached column's codeSet: it holds only the values the
// question's rows carry, never a dictionary of the whole column, and it
// grows as batches arrive. Text values are hashed by their bytes.
type codebook struct {
	typ   domain.ColumnType
	strs  map[string]int32
	svals []string
	ints  map[int64]int32
	ivals []int64
	flts  map[float64]int32
	fvals []float64
	size  int64 // bytes held, estimated
}

func newCodebook(typ domain.ColumnType) *codebook {
	b := &codebook{typ: typ}
	switch typ {
	case domain.TypeText, domain.TypeDecimal:
		// Decimals are numbered by their canonical text: batches may hold
		// them at different scales.
		b.strs = map[string]int32{}
	case domain.TypeFloat:
		b.flts = map[float64]int32{}
	default:
		b.ints = map[int64]int32{}
	}
	return b
}

// card is the number of values coded so far.
func (b *codebook) card() int {
	switch {
	case b.strs != nil:
		return len(b.svals)
	case b.flts != nil:
		return len(b.fvals)
	}
	return len(b.ivals)
}

// text returns the code of s, adding it (a copy: s may alias a batch's
// buffers) when new.
func (b *codebook) text(s string) int32 {
	if k, ok := b.strs[s]; ok {
		return k
	}
	s = strings.Clone(s)
	b.svals = append(b.svals, s)
	k := int32(len(b.svals))
	b.strs[s] = k
	b.size += int64(len(s)) + 64
	return k
}

// int returns the code of an integer, date (days), timestamp (micros) or
// boolean (0/1) value, adding it when new.
func (b *codebook) int(v int64) int32 {
	if k, ok := b.ints[v]; ok {
		return k
	}
	b.ivals = append(b.ivals, v)
	k := int32(len(b.ivals))
	b.ints[v] = k
	b.size += 40
	return k
}

// float returns the code of a real, one code for +0 and -0.
func (b *codebook) float(v float64) int32 {
	if v == 0 {
		v = 0
	}
	if k, ok := b.flts[v]; ok {
		return k
	}
	b.fvals = append(b.fvals, v)
	k := int32(len(b.fvals))
	b.flts[v] = k
	b.size += 40
	return k
}

// Cell is the value of code k (k ≥ 1).
func (b *codebook) Cell(k int32) domain.Cell {
	i := k - 1
	switch b.typ {
	case domain.TypeText:
		return domain.Text(b.svals[i])
	case domain.TypeFloat:
		return domain.Float(b.fvals[i])
	case domain.TypeDecimal:
		c, _ := domain.DecimalText(b.svals[i])
		return c
	case domain.TypeDate:
		return domain.DateCell(domain.Date(b.ivals[i]))
	case domain.TypeTimestamp:
		return domain.Text(column.RenderTimestamp(b.ivals[i]))
	case domain.TypeBoolean:
		return domain.Bool(b.ivals[i] != 0)
	}
	return domain.Int(b.ivals[i])
}

// Ranks returns the ascending rank of every code's value (index k-1).
func (b *codebook) Ranks() []int32 {
	switch {
	case b.typ == domain.TypeDecimal:
		return column.RankOf(len(b.svals), func(x, y int) bool { return decLess(b.svals[x], b.svals[y]) })
	case b.strs != nil:
		return column.RankOf(len(b.svals), func(x, y int) bool { return b.svals[x] < b.svals[y] })
	case b.flts != nil:
		return column.RankOf(len(b.fvals), func(x, y int) bool { return b.fvals[x] < b.fvals[y] })
	}
	return column.RankOf(len(b.ivals), func(x, y int) bool { return b.ivals[x] < b.ivals[y] })
}

// into returns, per code of b (index 0 is null), the code of the same
// value in dst, adding the values dst lacks.
func (b *codebook) into(dst *codebook) []int32 {
	n := b.card()
	tr := make([]int32, n+1)
	for k := 1; k <= n; k++ {
		switch {
		case b.strs != nil:
			tr[k] = dst.text(b.svals[k-1])
		case b.flts != nil:
			tr[k] = dst.float(b.fvals[k-1])
		default:
			tr[k] = dst.int(b.ivals[k-1])
		}
	}
	return tr
}

// codeOf returns the code of row r of c in b (0 for null), m caching the
// codes of c's dictionary entries for text.
func (b *codebook) codeOf(c *column.Column, r int32, m *column.DictMap) int32 {
	if !c.IsValid(r) {
		return 0
	}
	switch c.Type {
	case domain.TypeText:
		i := c.Idx[r]
		k := m.Vals[i]
		if k < 0 {
			k = b.text(c.Dict[i])
			m.Vals[i] = k
		}
		return k
	case domain.TypeFloat:
		return b.float(c.Floats[r])
	case domain.TypeDecimal:
		return b.text(c.DecAt(r).Cell(c.Scale).Render())
	case domain.TypeDate:
		return b.int(int64(c.Days[r]))
	case domain.TypeBoolean:
		return b.int(b2i(c.Bools.Value(int(r))))
	}
	return b.int(c.Ints[r])
}

// MaxGroupKeys is the most columns a leg groups by besides the period:
// an answer's four dimensions, or a federated base leg's local dimensions
// and the key of each crossing it starts.
const MaxGroupKeys = 12

// groupKey is a group's bucket and one code per grouped column, held
// whole when the codes do not pack into a uint64.
type groupKey [MaxGroupKeys + 1]uint32

// denseGroupKeys is the largest packed key space grouped through a direct
// table instead of a hash map.
const denseGroupKeys = 1 << 16

// grouper assigns group ids to group keys. A key is the bucket and one
// code per dimension; while the product of the radixes fits, keys pack
// into a uint64 ((bucket*r1 + c1)*r2 + c2 ...) looked up in a dense table
// or a hash map, otherwise they are held whole. A dimension coded by a
// codebook grows its radix as it meets values; the grouper then re-keys
// the groups it has (their ids do not change).
type grouper struct {
	nb     uint64   // buckets
	radix  []uint64 // per dimension
	packed bool
	space  uint64
	dense  []int32 // packed key → gid+1
	m      map[uint64]int32
	wide   map[groupKey]int32
	keys   []uint64   // packed: key per gid
	wkeys  []groupKey // wide: key per gid
	prev   []uint64   // the radixes keys were packed with
}

func newGrouper(nb int, radix []uint64) *grouper {
	g := &grouper{nb: uint64(max(nb, 1)), radix: slices.Clone(radix)}
	g.layout()
	return g
}

// layout sizes the key space for the current radixes and files every
// group under its key in it.
func (g *grouper) layout() {
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
		g.wide = make(map[groupKey]int32, len(g.wkeys)+len(old))
	case space <= denseGroupKeys:
		g.dense = make([]int32, space)
	default:
		g.m = make(map[uint64]int32, len(old))
	}
	g.prev = slices.Clone(g.radix)
	if wasWide {
		for gid, k := range g.wkeys {
			g.wide[k] = int32(gid)
		}
		return
	}
	g.keys = nil
	for gid, k := range old {
		parts := unpack(k, oldRadix)
		if !packed {
			g.wkeys = append(g.wkeys, parts)
			g.wide[parts] = int32(gid)
			continue
		}
		nk := g.pack(parts)
		g.keys = append(g.keys, nk)
		if g.dense != nil {
			g.dense[nk] = int32(gid) + 1
		} else {
			g.m[nk] = int32(gid)
		}
	}
}

// unpack splits a packed key into the bucket and the codes.
func unpack(k uint64, radix []uint64) groupKey {
	var parts groupKey
	for d := len(radix) - 1; d >= 0; d-- {
		parts[d+1] = uint32(k % radix[d])
		k /= radix[d]
	}
	parts[0] = uint32(k)
	return parts
}

// pack is the packed key of parts under the current radixes.
func (g *grouper) pack(parts groupKey) uint64 {
	k := uint64(parts[0])
	for d, r := range g.radix {
		k = k*r + uint64(parts[d+1])
	}
	return k
}

// grow makes dimension d's radix hold code card (codes 0..card), doubling
// it, and re-keys the groups when it changes.
func (g *grouper) grow(d int, card int) {
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

// Len is the number of groups.
func (g *grouper) Len() int {
	if g.wide != nil {
		return len(g.wkeys)
	}
	return len(g.keys)
}

// Parts returns the bucket and codes of group gid.
func (g *grouper) Parts(gid int) groupKey {
	if g.wide != nil {
		return g.wkeys[gid]
	}
	return unpack(g.keys[gid], g.radix)
}

func (g *grouper) packedID(key uint64) int32 {
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

func (g *grouper) wideID(key groupKey) int32 {
	id, ok := g.wide[key]
	if !ok {
		id = int32(len(g.wkeys))
		g.wkeys = append(g.wkeys, key)
		g.wide[key] = id
	}
	return id
}

// id returns the group of parts, adding it when new.
func (g *grouper) id(parts groupKey) int32 {
	if !g.packed {
		return g.wideID(parts)
	}
	return g.packedID(g.pack(parts))
}

// bytes estimates the memory g holds.
func (g *grouper) bytes() int64 {
	n := int64(g.Len()) * 24
	n += int64(4 * len(g.dense))
	return n
}

// decLess orders two canonical decimal texts by value.
func decLess(a, b string) bool {
	x, sx, _ := column.ParseDecimalText(a)
	y, sy, _ := column.ParseDecimalText(b)
	return column.CompareScaled(x, sx, y, sy) < 0
}

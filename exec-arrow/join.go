package engine

import (
	"context"
	"errors"
	"fmt"
	"math"

	"sutura.dev/domain"
)

// joinIndex finds the row of a dimension table holding a key. It is built
// once per column and cached with it; a key held by two rows is an error
// (a dimension join must reach at most one row, or it would duplicate the
// facts).
type joinIndex struct {
	// Integer keys: dense[v-min] is row+1 (0: none) when the keys are
	// dense enough, else ints.
	min   int64
	dense []int32
	ints  map[int64]int32
	// Text keys: byIdx[dictionary index] is the row, or -1.
	byIdx []int32
	// Keys of every other type, and keys joined across types, by their
	// canonical rendering.
	strs map[string]int32
}

// key64 is the integer form of the value at r of an integer-like column.
func (c *column) key64(r int32) int64 {
	switch c.typ {
	case domain.TypeDate:
		return int64(c.days[r])
	case domain.TypeBoolean:
		if c.bools.Value(int(r)) {
			return 1
		}
		return 0
	case domain.TypeFloat, domain.TypeDecimal:
		v := c.floats[r]
		if v == 0 {
			v = 0
		}
		return int64(math.Float64bits(v))
	}
	return c.ints[r]
}

func (c *column) joinKeys(ctx context.Context) (*joinIndex, error) {
	c.joinMu.Lock()
	defer c.joinMu.Unlock()
	if c.join == nil {
		j, err := c.buildJoin(ctx)
		if err != nil {
			return nil, err
		}
		c.join = j
	}
	return c.join, nil
}

// errDuplicateKey is wrapped by the error of a join whose key column holds
// a key twice.
var errDuplicateKey = errors.New("a dimension join must reach at most one row")

func (c *column) dupKey() error {
	return fmt.Errorf("column %s holds a key twice: %w", c.name, errDuplicateKey)
}

func (c *column) buildJoin(ctx context.Context) (*joinIndex, error) {
	j := &joinIndex{}
	switch c.typ {
	case domain.TypeText:
		size := int64(4 * len(c.dict))
		if err := c.reserve(size); err != nil {
			return nil, err
		}
		j.byIdx = make([]int32, len(c.dict))
		for i := range j.byIdx {
			j.byIdx[i] = -1
		}
		for r := 0; r < c.n; r++ {
			if !c.isValid(int32(r)) {
				continue
			}
			k := c.idx[r]
			if j.byIdx[k] >= 0 {
				c.unreserve(size)
				return nil, c.dupKey()
			}
			j.byIdx[k] = int32(r)
		}
		return j, nil
	case domain.TypeInteger:
		lo, hi, any := int64(math.MaxInt64), int64(math.MinInt64), false
		for r := 0; r < c.n; r++ {
			if c.isValid(int32(r)) {
				v := c.ints[r]
				lo, hi, any = min(lo, v), max(hi, v), true
			}
		}
		if any && hi-lo >= 0 && uint64(hi-lo) < uint64(4*c.n+1024) {
			size := 4 * (hi - lo + 1)
			if err := c.reserve(size); err != nil {
				return nil, err
			}
			j.min = lo
			j.dense = make([]int32, hi-lo+1)
			for r := 0; r < c.n; r++ {
				if c.isValid(int32(r)) {
					o := c.ints[r] - lo
					if j.dense[o] != 0 {
						c.unreserve(size)
						return nil, c.dupKey()
					}
					j.dense[o] = int32(r) + 1
				}
			}
			return j, nil
		}
	}
	size := int64(32 * c.n)
	if err := c.reserve(size); err != nil {
		return nil, err
	}
	j.ints = make(map[int64]int32, c.n)
	for r := 0; r < c.n; r++ {
		if r%checkEvery == 0 && ctx.Err() != nil {
			c.unreserve(size)
			return nil, ctx.Err()
		}
		if c.isValid(int32(r)) {
			k := c.key64(int32(r))
			if _, dup := j.ints[k]; dup {
				c.unreserve(size)
				return nil, c.dupKey()
			}
			j.ints[k] = int32(r)
		}
	}
	return j, nil
}

// renderedKeys indexes the rows of c by the canonical rendering of their
// values, for joins between columns of different types.
func (c *column) renderedKeys() (map[string]int32, error) {
	c.joinMu.Lock()
	defer c.joinMu.Unlock()
	if c.rendered != nil {
		return c.rendered, nil
	}
	size := int64(64 * c.n)
	if err := c.reserve(size); err != nil {
		return nil, err
	}
	m := make(map[string]int32, c.n)
	for r := 0; r < c.n; r++ {
		if c.isValid(int32(r)) {
			k := c.cell(int32(r)).Render()
			if _, dup := m[k]; dup {
				c.unreserve(size)
				return nil, c.dupKey()
			}
			m[k] = int32(r)
		}
	}
	c.rendered = m
	return m, nil
}

// joinStep is one LEFT JOIN of a query: rows of alias to are found from
// the rows of alias from.
type joinStep struct {
	from, to int
	fromSlot int     // the key's base slot, when from is 0
	fromCol  *column // the key column (a joined one, or the base column or its prototype)
	idx      *joinIndex
	// fromDict maps the dictionary index of a cached text key column to
	// the to-row; a streamed batch's dictionary is mapped through toLook
	// and toIdx as its rows need it.
	fromDict []int32
	toLook   map[string]int32
	toIdx    *joinIndex
	// strs is set for joins across types.
	strs map[string]int32
}

// newJoinStep prepares the lookup of to's rows from values of fromCol.
func newJoinStep(ctx context.Context, from, to int, fromCol, toCol *column) (*joinStep, error) {
	s := &joinStep{from: from, to: to, fromCol: fromCol}
	// Same-typed keys compare as integers (floats by their bits); keys of
	// different types compare by canonical rendering, as text parameters
	// would.
	sameInt := fromCol.typ == toCol.typ && fromCol.typ != domain.TypeText
	sameText := fromCol.typ == domain.TypeText && toCol.typ == domain.TypeText
	switch {
	case sameText && fromCol.dict != nil:
		m, err := fromCol.dictRows(ctx, toCol)
		if err != nil {
			return nil, err
		}
		s.fromDict = m
	case sameText:
		idx, look, err := toCol.textKeys(ctx)
		if err != nil {
			return nil, err
		}
		s.toIdx, s.toLook = idx, look
	case sameInt:
		idx, err := toCol.joinKeys(ctx)
		if err != nil {
			return nil, err
		}
		s.idx = idx
	default:
		m, err := toCol.renderedKeys()
		if err != nil {
			return nil, err
		}
		s.strs = m
	}
	return s, nil
}

// textKeys returns the join index of a text key column and its
// dictionary's lookup: a key's text gives its dictionary index, which
// gives its row.
func (c *column) textKeys(ctx context.Context) (*joinIndex, map[string]int32, error) {
	idx, err := c.joinKeys(ctx)
	if err != nil {
		return nil, nil, err
	}
	look, err := c.dictLookup()
	if err != nil {
		return nil, nil, err
	}
	return idx, look, nil
}

// dictRows returns, per dictionary index of c, the row of toCol holding
// the same text (-1: none), built once per pair of columns.
func (c *column) dictRows(ctx context.Context, toCol *column) ([]int32, error) {
	c.fromMu.Lock()
	defer c.fromMu.Unlock()
	if m, ok := c.fromDict[toCol]; ok {
		return m, nil
	}
	idx, look, err := toCol.textKeys(ctx)
	if err != nil {
		return nil, err
	}
	size := int64(4 * len(c.dict))
	if err := c.reserve(size); err != nil {
		return nil, err
	}
	m := make([]int32, len(c.dict))
	for i, v := range c.dict {
		m[i] = -1
		if k, ok := look[v]; ok {
			m[i] = idx.byIdx[k]
		}
	}
	if c.fromDict == nil {
		c.fromDict = map[*column][]int32{}
	}
	for k := range c.fromDict {
		if k.owner != nil && k.owner.retired() {
			delete(c.fromDict, k) // the joined column was reloaded or evicted
		}
	}
	c.fromDict[toCol] = m
	return m, nil
}

// apply writes to out[k] the to-row of the row from[k] of c (-1: none); c
// is the key column of this batch. m caches a streamed dictionary's rows.
func (s *joinStep) apply(c *column, from []int32, out []int32, m *dictMap) {
	switch {
	case s.fromDict != nil && c == s.fromCol:
		for k, r := range from {
			if r < 0 || !c.isValid(r) {
				out[k] = -1
				continue
			}
			out[k] = s.fromDict[c.idx[r]]
		}
	case s.toLook != nil:
		m.reset(c)
		for k, r := range from {
			if r < 0 || !c.isValid(r) {
				out[k] = -1
				continue
			}
			i := c.idx[r]
			t := m.vals[i]
			if t < 0 {
				t = -2 // looked up: no row
				if look, ok := s.lookText(c.dict[i]); ok {
					t = look
				}
				m.vals[i] = t
			}
			out[k] = max(t, -1)
		}
	case s.idx != nil && s.idx.dense != nil:
		d, lo := s.idx.dense, s.idx.min
		for k, r := range from {
			out[k] = -1
			if r < 0 || !c.isValid(r) {
				continue
			}
			o := uint64(c.ints[r] - lo)
			if o < uint64(len(d)) {
				out[k] = d[o] - 1
			}
		}
	case s.idx != nil:
		for k, r := range from {
			out[k] = -1
			if r < 0 || !c.isValid(r) {
				continue
			}
			if t, ok := s.idx.ints[c.key64(r)]; ok {
				out[k] = t
			}
		}
	default:
		for k, r := range from {
			out[k] = -1
			if r < 0 || !c.isValid(r) {
				continue
			}
			if t, ok := s.strs[c.cell(r).Render()]; ok {
				out[k] = t
			}
		}
	}
}

// lookText finds the to-row of a text key of a streamed batch.
func (s *joinStep) lookText(v string) (int32, bool) {
	k, ok := s.toLook[v]
	if !ok {
		return 0, false
	}
	r := s.toIdx.byIdx[k]
	return r, r >= 0
}

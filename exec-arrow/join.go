package engine

import (
	"context"

	"sutura.dev/domain"
)

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

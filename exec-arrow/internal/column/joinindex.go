package column

import (
	"context"
	"errors"
	"fmt"
	"math"

	"sutura.dev/domain"
)

// JoinIndex finds the row of a dimension table holding a key. It is built
// once per column and cached with it; a key held by two rows is an error
// (a dimension join must reach at most one row, or it would duplicate the
// facts).
type JoinIndex struct {
	// Integer keys: dense[v-min] is row+1 (0: none) when the keys are
	// dense enough, else ints.
	Min   int64
	Dense []int32
	Ints  map[int64]int32
	// Text keys: byIdx[dictionary index] is the row, or -1.
	ByIdx []int32
	// Keys of every other type, and keys joined across types, by their
	// canonical rendering.
	strs map[string]int32
}

// Key64 is the integer form of the value at r of an integer-like column.
func (c *Column) Key64(r int32) int64 {
	switch c.Type {
	case domain.TypeDate:
		return int64(c.Days[r])
	case domain.TypeBoolean:
		if c.Bools.Value(int(r)) {
			return 1
		}
		return 0
	case domain.TypeFloat, domain.TypeDecimal:
		v := c.Floats[r]
		if v == 0 {
			v = 0
		}
		return int64(math.Float64bits(v))
	}
	return c.Ints[r]
}

// JoinKeys returns the column's join index, building it once.
func (c *Column) JoinKeys(ctx context.Context) (*JoinIndex, error) {
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

// ErrDuplicateKey is wrapped by the error of a join whose key column holds
// a key twice.
var ErrDuplicateKey = errors.New("a dimension join must reach at most one row")

func (c *Column) dupKey() error {
	return fmt.Errorf("column %s holds a key twice: %w", c.Name, ErrDuplicateKey)
}

func (c *Column) buildJoin(ctx context.Context) (*JoinIndex, error) {
	j := &JoinIndex{}
	switch c.Type {
	case domain.TypeText:
		size := int64(4 * len(c.Dict))
		if err := c.Reserve(size); err != nil {
			return nil, err
		}
		j.ByIdx = make([]int32, len(c.Dict))
		for i := range j.ByIdx {
			j.ByIdx[i] = -1
		}
		for r := 0; r < c.N; r++ {
			if !c.IsValid(int32(r)) {
				continue
			}
			k := c.Idx[r]
			if j.ByIdx[k] >= 0 {
				c.unreserve(size)
				return nil, c.dupKey()
			}
			j.ByIdx[k] = int32(r)
		}
		return j, nil
	case domain.TypeInteger:
		lo, hi, any := int64(math.MaxInt64), int64(math.MinInt64), false
		for r := 0; r < c.N; r++ {
			if c.IsValid(int32(r)) {
				v := c.Ints[r]
				lo, hi, any = min(lo, v), max(hi, v), true
			}
		}
		if any && hi-lo >= 0 && uint64(hi-lo) < uint64(4*c.N+1024) {
			size := 4 * (hi - lo + 1)
			if err := c.Reserve(size); err != nil {
				return nil, err
			}
			j.Min = lo
			j.Dense = make([]int32, hi-lo+1)
			for r := 0; r < c.N; r++ {
				if c.IsValid(int32(r)) {
					o := c.Ints[r] - lo
					if j.Dense[o] != 0 {
						c.unreserve(size)
						return nil, c.dupKey()
					}
					j.Dense[o] = int32(r) + 1
				}
			}
			return j, nil
		}
	}
	size := int64(32 * c.N)
	if err := c.Reserve(size); err != nil {
		return nil, err
	}
	j.Ints = make(map[int64]int32, c.N)
	for r := 0; r < c.N; r++ {
		if r%CheckEvery == 0 && ctx.Err() != nil {
			c.unreserve(size)
			return nil, ctx.Err()
		}
		if c.IsValid(int32(r)) {
			k := c.Key64(int32(r))
			if _, dup := j.Ints[k]; dup {
				c.unreserve(size)
				return nil, c.dupKey()
			}
			j.Ints[k] = int32(r)
		}
	}
	return j, nil
}

// RenderedKeys indexes the rows of c by the canonical rendering of their
// values, for joins between columns of different types.
func (c *Column) RenderedKeys() (map[string]int32, error) {
	c.joinMu.Lock()
	defer c.joinMu.Unlock()
	if c.rendered != nil {
		return c.rendered, nil
	}
	size := int64(64 * c.N)
	if err := c.Reserve(size); err != nil {
		return nil, err
	}
	m := make(map[string]int32, c.N)
	for r := 0; r < c.N; r++ {
		if c.IsValid(int32(r)) {
			k := c.Cell(int32(r)).Render()
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

// TextKeys returns the join index of a text key column and its
// dictionary's lookup: a key's text gives its dictionary index, which
// gives its row.
func (c *Column) TextKeys(ctx context.Context) (*JoinIndex, map[string]int32, error) {
	idx, err := c.JoinKeys(ctx)
	if err != nil {
		return nil, nil, err
	}
	look, err := c.DictLookup()
	if err != nil {
		return nil, nil, err
	}
	return idx, look, nil
}

// DictRows returns, per dictionary index of c, the row of toCol holding
// the same text (-1: none), built once per pair of columns.
func (c *Column) DictRows(ctx context.Context, toCol *Column) ([]int32, error) {
	c.FromMu.Lock()
	defer c.FromMu.Unlock()
	if m, ok := c.FromDict[toCol]; ok {
		return m, nil
	}
	idx, look, err := toCol.TextKeys(ctx)
	if err != nil {
		return nil, err
	}
	size := int64(4 * len(c.Dict))
	if err := c.Reserve(size); err != nil {
		return nil, err
	}
	m := make([]int32, len(c.Dict))
	for i, v := range c.Dict {
		m[i] = -1
		if k, ok := look[v]; ok {
			m[i] = idx.ByIdx[k]
		}
	}
	if c.FromDict == nil {
		c.FromDict = map[*Column][]int32{}
	}
	for k := range c.FromDict {
		if k.Owner != nil && k.Owner.Retired() {
			delete(c.FromDict, k) // the joined column was reloaded or evicted
		}
	}
	c.FromDict[toCol] = m
	return m, nil
}

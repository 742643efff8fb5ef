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

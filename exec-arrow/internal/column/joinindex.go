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
		return int64(c.Day(r))
	case domain.TypeBoolean:
		if c.Bools.Value(int(r)) {
			return 1
		}
		return 0
	case domain.TypeDecimal:
		// Decimal keys join by their rendering (kernel's join plan); this
		// form is exact only at one scale.
		return int64(c.DecAt(r).Lo)
	case domain.TypeFloat:
		v := c.Floats[r]
		if v == 0 {
			v = 0
		}
		return int64(math.Float64bits(v))
	}
	return c.Int(r)
}

// JoinKeys returns the column's join index, building it once.
func (d *Derived) JoinKeys(ctx context.Context) (*JoinIndex, error) {
	d.joinMu.Lock()
	defer d.joinMu.Unlock()
	if d.join == nil {
		j, err := d.buildJoin(ctx)
		if err != nil {
			return nil, err
		}
		d.join = j
	}
	return d.join, nil
}

// ErrDuplicateKey is wrapped by the error of a join whose key column holds
// a key twice.
var ErrDuplicateKey = errors.New("a dimension join must reach at most one row")

func (c *Column) dupKey() error {
	return fmt.Errorf("column %s holds a key twice: %w", c.Name, ErrDuplicateKey)
}

func (d *Derived) buildJoin(ctx context.Context) (*JoinIndex, error) {
	c := d.col
	j := &JoinIndex{}
	switch c.Type {
	case domain.TypeText:
		size := int64(4 * len(c.Dict))
		if err := d.reserve(size); err != nil {
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
			k := c.Index(int32(r))
			if j.ByIdx[k] >= 0 {
				d.unreserve(size)
				return nil, c.dupKey()
			}
			j.ByIdx[k] = int32(r)
		}
		return j, nil
	case domain.TypeInteger:
		lo, hi, any := int64(math.MaxInt64), int64(math.MinInt64), false
		for r := 0; r < c.N; r++ {
			if c.IsValid(int32(r)) {
				v := c.Int(int32(r))
				lo, hi, any = min(lo, v), max(hi, v), true
			}
		}
		if any && hi-lo >= 0 && uint64(hi-lo) < uint64(4*c.N+1024) {
			size := 4 * (hi - lo + 1)
			if err := d.reserve(size); err != nil {
				return nil, err
			}
			j.Min = lo
			j.Dense = make([]int32, hi-lo+1)
			for r := 0; r < c.N; r++ {
				if c.IsValid(int32(r)) {
					o := c.Int(int32(r)) - lo
					if j.Dense[o] != 0 {
						d.unreserve(size)
						return nil, c.dupKey()
					}
					j.Dense[o] = int32(r) + 1
				}
			}
			return j, nil
		}
	}
	size := int64(32 * c.N)
	if err := d.reserve(size); err != nil {
		return nil, err
	}
	j.Ints = make(map[int64]int32, c.N)
	for r := 0; r < c.N; r++ {
		if r%CheckEvery == 0 && ctx.Err() != nil {
			d.unreserve(size)
			return nil, ctx.Err()
		}
		if c.IsValid(int32(r)) {
			k := c.Key64(int32(r))
			if _, dup := j.Ints[k]; dup {
				d.unreserve(size)
				return nil, c.dupKey()
			}
			j.Ints[k] = int32(r)
		}
	}
	return j, nil
}

// RenderedKeys indexes the rows of c by the canonical rendering of their
// values, for joins between columns of different types.
func (d *Derived) RenderedKeys() (map[string]int32, error) {
	c := d.col
	d.joinMu.Lock()
	defer d.joinMu.Unlock()
	if d.rendered != nil {
		return d.rendered, nil
	}
	size := int64(64 * c.N)
	if err := d.reserve(size); err != nil {
		return nil, err
	}
	m := make(map[string]int32, c.N)
	for r := 0; r < c.N; r++ {
		if c.IsValid(int32(r)) {
			k := c.Cell(int32(r)).Render()
			if _, dup := m[k]; dup {
				d.unreserve(size)
				return nil, c.dupKey()
			}
			m[k] = int32(r)
		}
	}
	d.rendered = m
	return m, nil
}

// TextKeys returns the join index of a text key column and its
// dictionary's lookup: a key's text gives its dictionary index, which
// gives its row.
func (d *Derived) TextKeys(ctx context.Context) (*JoinIndex, map[string]int32, error) {
	idx, err := d.JoinKeys(ctx)
	if err != nil {
		return nil, nil, err
	}
	look, err := d.DictLookup()
	if err != nil {
		return nil, nil, err
	}
	return idx, look, nil
}

// RowsTo returns, per row of d's column, the row of to's column that a
// join from it reaches (-1: none), as rows finds them for every row in
// order, built once per pair of columns while to is held: a join from a
// joined table's key then reads one row's entry, not its key and the
// join index (join.Step).
func (d *Derived) RowsTo(to *Derived, rows func(out []int32)) ([]int32, error) {
	return d.joinedRows([2]*Derived{nil, to}, d.col.N, func() []int32 {
		m := make([]int32, d.col.N)
		rows(m)
		return m
	})
}

// Composed returns, for two joins through d's table — one on to it by
// the key column via, whose join index is dense over n offsets, and one
// from it by d's column to the key column to — the final row+1 (0: none)
// per offset of via's index: both joins as one lookup. build makes it;
// it is kept once per pair (via, to) while both are held.
func (d *Derived) Composed(via, to *Derived, n int, build func() []int32) ([]int32, error) {
	return d.joinedRows([2]*Derived{via, to}, n, build)
}

// joinedRows finds the n entries kept for key, or reserves room for
// them, builds them and keeps them, dropping those of columns since
// reloaded or evicted.
func (d *Derived) joinedRows(key [2]*Derived, n int, build func() []int32) ([]int32, error) {
	d.fromMu.Lock()
	defer d.fromMu.Unlock()
	if m, ok := d.joined[key]; ok {
		return m, nil
	}
	if err := d.reserve(int64(4 * n)); err != nil {
		return nil, err
	}
	m := build()
	if d.joined == nil {
		d.joined = map[[2]*Derived][]int32{}
	}
	retired := func(c *Derived) bool { return c != nil && c.owner != nil && c.owner.Retired() }
	for k, old := range d.joined {
		if retired(k[0]) || retired(k[1]) {
			delete(d.joined, k)
			d.unreserve(int64(4 * len(old)))
		}
	}
	d.joined[key] = m
	return m, nil
}

// DictRows returns, per dictionary index of d's column, the row of to's
// column holding the same text (-1: none), built once per pair of columns.
func (d *Derived) DictRows(ctx context.Context, to *Derived) ([]int32, error) {
	c := d.col
	d.fromMu.Lock()
	defer d.fromMu.Unlock()
	if m, ok := d.fromDict[to]; ok {
		return m, nil
	}
	idx, look, err := to.TextKeys(ctx)
	if err != nil {
		return nil, err
	}
	size := int64(4 * len(c.Dict))
	if err := d.reserve(size); err != nil {
		return nil, err
	}
	m := make([]int32, len(c.Dict))
	for i, v := range c.Dict {
		m[i] = -1
		if k, ok := look[v]; ok {
			m[i] = idx.ByIdx[k]
		}
	}
	if d.fromDict == nil {
		d.fromDict = map[*Derived][]int32{}
	}
	for k := range d.fromDict {
		if k.owner != nil && k.owner.Retired() {
			delete(d.fromDict, k) // the joined column was reloaded or evicted
		}
	}
	d.fromDict[to] = m
	return m, nil
}

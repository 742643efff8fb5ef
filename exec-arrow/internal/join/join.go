// Package join finds the rows of a joined table from the key values of
// the rows joined to it: one LEFT JOIN of a question (Step), over the
// join indexes a key column derives (column.Derived).
package join

import (
	"context"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
)

// Step is one LEFT JOIN of a query: rows of alias to are found from
// the rows of alias from.
type Step struct {
	From, To int
	FromSlot int            // the key's base slot, when from is 0
	FromCol  *column.Column // the key column (a joined one, or the base column or its prototype)
	idx      *column.JoinIndex
	// fromDict maps the dictionary index of a cached text key column to
	// the to-row; a streamed batch's dictionary is mapped through toLook
	// and toIdx as its rows need it.
	fromDict []int32
	toLook   map[string]int32
	toIdx    *column.JoinIndex
	// strs is set for joins across types.
	strs map[string]int32
	// rowTo, for a join from a joined table (whose key column is held
	// whole), is the to-row of each of its rows (Derived.RowsTo): the
	// rows reached through the first join are in no order, and one
	// entry each is read instead of the key, its validity and the index.
	rowTo []int32
}

// NewStep prepares the lookup of to's rows from values of fromKey's
// column, building (or finding) the join index among toKey's derived
// structures.
func NewStep(ctx context.Context, from, to int, fromKey, toKey *column.Derived) (*Step, error) {
	fromCol, toCol := fromKey.Column(), toKey.Column()
	s := &Step{From: from, To: to, FromCol: fromCol}
	// Same-typed keys compare as integers (floats by their bits); keys of
	// different types compare by canonical rendering, as text parameters
	// would.
	// Decimal keys join by their rendering: two columns' scales may differ.
	sameInt := fromCol.Type == toCol.Type && fromCol.Type != domain.TypeText && fromCol.Type != domain.TypeDecimal
	sameText := fromCol.Type == domain.TypeText && toCol.Type == domain.TypeText
	switch {
	case sameText && fromCol.Dict != nil:
		m, err := fromKey.DictRows(ctx, toKey)
		if err != nil {
			return nil, err
		}
		s.fromDict = m
	case sameText:
		idx, look, err := toKey.TextKeys(ctx)
		if err != nil {
			return nil, err
		}
		s.toIdx, s.toLook = idx, look
	case sameInt:
		idx, err := toKey.JoinKeys(ctx)
		if err != nil {
			return nil, err
		}
		s.idx = idx
	default:
		m, err := toKey.RenderedKeys()
		if err != nil {
			return nil, err
		}
		s.strs = m
	}
	if from != 0 && fromCol.N > 0 {
		rt, err := fromKey.RowsTo(toKey, func(out []int32) {
			all := make([]int32, len(out))
			for r := range all {
				all[r] = int32(r)
			}
			s.Apply(fromCol, all, out, &column.DictMap{}, nil)
		})
		if err == nil { // else (no room for it) each row's key is looked up
			s.rowTo = rt
		}
	}
	return s, nil
}

// Apply writes to out[k] the to-row of the row from[k] of c (-1: none); c
// is the key column of this batch. m caches a streamed dictionary's rows.
// keys, when not nil, is scratch room for as many keys.
func (s *Step) Apply(c *column.Column, from []int32, out []int32, m *column.DictMap, keys []uint64) {
	switch {
	case s.rowTo != nil && c == s.FromCol:
		rt := s.rowTo
		for k, r := range from {
			t := int32(-1)
			if r >= 0 {
				t = rt[r]
			}
			out[k] = t
		}
	case s.fromDict != nil && c == s.FromCol:
		for k, r := range from {
			if r < 0 || !c.IsValid(r) {
				out[k] = -1
				continue
			}
			out[k] = s.fromDict[c.Index(r)]
		}
	case s.toLook != nil:
		m.Reset(c)
		for k, r := range from {
			if r < 0 || !c.IsValid(r) {
				out[k] = -1
				continue
			}
			i := c.Index(r)
			t := m.Vals[i]
			if t < 0 {
				t = -2 // looked up: no row
				if look, ok := s.lookText(c.Dict[i]); ok {
					t = look
				}
				m.Vals[i] = t
			}
			out[k] = max(t, -1)
		}
	case s.idx != nil && s.idx.Dense != nil && c.Valid == nil && keys != nil && (len(c.Ints) > 0 || len(c.Ints32) > 0):
		// The keys are gathered first (row 0's for no row), in a loop
		// short enough to keep many rows' reads in flight, then looked up.
		d, lo, ks := s.idx.Dense, s.idx.Min, keys[:len(from)]
		if c.Ints32 != nil {
			offsets(ks, c.Ints32, from, lo)
		} else {
			offsets(ks, c.Ints, from, lo)
		}
		for k, o := range ks {
			t := int32(-1)
			if o < uint64(len(d)) && from[k] >= 0 {
				t = d[o] - 1
			}
			out[k] = t
		}
	case s.idx != nil && s.idx.Dense != nil:
		d, lo := s.idx.Dense, s.idx.Min
		for k, r := range from {
			out[k] = -1
			if r < 0 || !c.IsValid(r) {
				continue
			}
			o := uint64(c.Int(r) - lo)
			if o < uint64(len(d)) {
				out[k] = d[o] - 1
			}
		}
	case s.idx != nil:
		for k, r := range from {
			out[k] = -1
			if r < 0 || !c.IsValid(r) {
				continue
			}
			if t, ok := s.idx.Ints[c.Key64(r)]; ok {
				out[k] = t
			}
		}
	default:
		for k, r := range from {
			out[k] = -1
			if r < 0 || !c.IsValid(r) {
				continue
			}
			if t, ok := s.strs[c.Cell(r).Render()]; ok {
				out[k] = t
			}
		}
	}
}

// Compose is the join from first's from-table to second's to-table
// through the table first reaches, as one lookup a row, for a question
// that reads nothing of that table but second's key: first joins from
// the base table by a dense integer index, second from first's table
// (its rows per row set, NewStep). composed finds or builds (with the
// function it is given) the combined index, per offset of first's: the
// final row+1, 0 for none. ok is false when the two do not compose so.
func Compose(first, second *Step, composed func(n int, build func() []int32) ([]int32, error)) (*Step, bool) {
	if first.From != 0 || second.From != first.To || first.idx == nil || first.idx.Dense == nil ||
		first.rowTo != nil || first.fromDict != nil || first.toLook != nil || first.strs != nil || second.rowTo == nil {
		return nil, false
	}
	d, rt := first.idx.Dense, second.rowTo
	dense, err := composed(len(d), func() []int32 {
		out := make([]int32, len(d))
		for o, r := range d {
			if r > 0 {
				out[o] = rt[r-1] + 1 // -1 (no row) is 0
			}
		}
		return out
	})
	if err != nil {
		return nil, false
	}
	s := *first
	s.To = second.To
	s.idx = &column.JoinIndex{Min: first.idx.Min, Dense: dense}
	return &s, true
}

// lookText finds the to-row of a text key of a streamed batch.
func (s *Step) lookText(v string) (int32, bool) {
	k, ok := s.toLook[v]
	if !ok {
		return 0, false
	}
	r := s.toIdx.ByIdx[k]
	return r, r >= 0
}

// offsets sets ks[k] to the value of row from[k] (row 0's for no row,
// -1) less lo.
func offsets[T column.Integer](ks []uint64, ints []T, from []int32, lo int64) {
	for k, r := range from {
		ks[k] = uint64(int64(ints[max(r, 0)]) - lo)
	}
}

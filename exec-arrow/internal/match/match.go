// Package match compiles the filters of a question — a caller's eq, in
// and not_in, a metric's required filters — against one column, and tests
// rows against them: type by type, a text column by its dictionary
// entries' outcomes (once per cached column, once per batch otherwise),
// and a chunk by its statistics when no row of it can pass. A value is
// compared by its canonical rendering (docs/reference.md, "Numbers"): a
// filter value that no value of the column renders as matches nothing.
package match

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/i128"
	"sutura.dev/exec-arrow/internal/parse"
)

// Predicate is a filter compiled against one column: a row passes when
// its value's canonical rendering is one of the values (negate: is none of
// them); a null (or an unmatched join) passes exactly when keepNull.
type Predicate struct {
	Alias    int
	Slot     int            // the base-table slot when alias is 0
	Col      *column.Column // the joined column, or the base column's prototype
	negate   bool
	keepNull bool
	AnyValue bool // is_not_null: every non-null value matches

	ints   []int64         // integer, timestamp, date (days), boolean (0/1)
	floats []float64       // float
	decs   []decValue      // decimal, each at its fewest fractional digits
	texts  map[string]bool // text: the values
	// DictOut is the outcome per dictionary index of col, when col is a
	// cached or joined column every batch shares (text only).
	DictOut []bool
}

// New compiles values against c. Values no value of c renders as
// are dropped: they can match nothing.
func New(alias int, held *column.Derived, values []string, negate, keepNull bool) (*Predicate, error) {
	c := held.Column()
	p := &Predicate{Alias: alias, Col: c, negate: negate, keepNull: keepNull}
	for _, s := range values {
		switch c.Type {
		case domain.TypeText:
			if p.texts == nil {
				p.texts = map[string]bool{}
			}
			p.texts[s] = true
		case domain.TypeInteger:
			if v, ok := parse.Int(s); ok && strconv.FormatInt(v, 10) == s {
				p.ints = append(p.ints, v)
			}
		case domain.TypeFloat:
			if v, ok := parse.Float(s); ok && domain.Float(v).Render() == s {
				p.floats = append(p.floats, v)
			}
		case domain.TypeDecimal:
			if c, ok := domain.DecimalText(s); ok && c.Render() == s {
				if v, sc, ok := column.ParseDecimalText(s); ok {
					p.decs = append(p.decs, decValue{v, sc})
				}
			}
		case domain.TypeBoolean:
			if v, ok := parse.Bool(s); ok {
				p.ints = append(p.ints, int64(column.BitOf(v)))
			}
		case domain.TypeDate:
			if v, ok := parse.Day(s); ok {
				p.ints = append(p.ints, int64(v))
			}
		case domain.TypeTimestamp:
			if v, ok := parse.Micros(s); ok && column.RenderTimestamp(v) == s {
				p.ints = append(p.ints, v)
			}
		default:
			return nil, fmt.Errorf("column %s has unknown type %s", c.Name, c.Type)
		}
	}
	if c.Type == domain.TypeText && c.Dict != nil && !c.ValidOnly {
		// A column every batch shares (cached or joined): look the values
		// up in its dictionary once.
		look, err := held.DictLookup()
		if err != nil {
			return nil, err
		}
		hit := make([]bool, len(c.Dict))
		for s := range p.texts {
			if k, ok := look[s]; ok {
				hit[k] = true
			}
		}
		for i := range hit {
			hit[i] = hit[i] != negate
		}
		p.DictOut = hit
	}
	return p, nil
}

// Key is what p keeps, as text: two predicates compiled against columns
// of one type with equal keys pass the same rows of any column. It names
// no column; a caller comparing predicates adds which each tests.
func (p *Predicate) Key() string {
	key := fmt.Sprintf("%s %t %t %t", p.Col.Type, p.negate, p.keepNull, p.AnyValue)
	for _, v := range slices.Compact(slices.Sorted(slices.Values(p.ints))) {
		key += " " + strconv.FormatInt(v, 10)
	}
	for _, v := range slices.Compact(slices.Sorted(slices.Values(p.floats))) {
		key += " " + strconv.FormatFloat(v, 'g', -1, 64)
	}
	decs := make([]string, len(p.decs))
	for i, v := range p.decs {
		decs[i] = v.v.Cell(v.sc).Render()
	}
	slices.Sort(decs)
	for _, v := range slices.Compact(decs) {
		key += " " + v
	}
	for _, v := range slices.Sorted(maps.Keys(p.texts)) {
		key += " " + strconv.Quote(v)
	}
	return key
}

// TextOutcome is the outcome of dictionary entry k of a streamed batch's
// column, computed once per batch and entry.
func (p *Predicate) TextOutcome(dict []string, m *column.DictMap, k int32) bool {
	v := m.Vals[k]
	if v < 0 {
		v = int32(column.BitOf(p.texts[dict[k]] != p.negate))
		m.Vals[k] = v
	}
	return v != 0
}

// Caller compiles a caller filter: eq and in keep rows whose value
// is one of the values; not_in keeps the others and the nulls.
func Caller(alias int, held *column.Derived, f domain.FilterRef) (*Predicate, error) {
	switch f.Op {
	case domain.OpEq, domain.OpIn:
		return New(alias, held, f.Values, false, false)
	case domain.OpNotIn:
		return New(alias, held, f.Values, true, true)
	}
	return nil, fmt.Errorf("filter on %s: unknown operator %q", f.Dimension, f.Op)
}

// Required compiles a metric's required filter, with SQL's
// semantics: a null passes none of them.
func Required(held *column.Derived, rf domain.RequiredFilter) (*Predicate, error) {
	c := held.Column()
	switch rf.Op {
	case domain.Equals:
		return New(0, held, []string{rf.Value}, false, false)
	case domain.NotEquals:
		return New(0, held, []string{rf.Value}, true, false)
	case domain.IsTrue:
		if c.Type != domain.TypeBoolean {
			return nil, fmt.Errorf("required filter is_true on column %s, which is %s, not boolean", c.Name, c.Type)
		}
		return New(0, held, []string{"true"}, false, false)
	case domain.IsNotNull:
		return &Predicate{Col: c, AnyValue: true}, nil
	}
	return nil, fmt.Errorf("required filter on column %s: unknown operator %q", c.Name, rf.Op)
}

// Eval sets out[k] for the row rows[k] of c (-1: no row, as after an
// unmatched join); c is the batch's column for a base-table predicate and
// p.col for a joined one. m caches per-batch dictionary outcomes. Each
// column type has its own loop.
func (p *Predicate) Eval(c *column.Column, rows []int32, out []bool, m *column.DictMap) {
	valid, keepNull := c.Valid, p.keepNull
	null := func(r int32) bool { return r < 0 || (valid != nil && !bitutil.BitIsSet(valid, int(r))) }
	if p.AnyValue {
		for k, r := range rows {
			out[k] = !null(r)
		}
		return
	}
	switch c.Type {
	case domain.TypeText:
		if c.Idx8 != nil {
			evalText(p, c, c.Idx8, rows, out, m)
		} else {
			evalText(p, c, c.Idx, rows, out, m)
		}
	case domain.TypeBoolean:
		res := p.BoolOutcomes()
		bits := c.BoolBits
		if valid == nil {
			for k, r := range rows {
				if r < 0 {
					out[k] = keepNull
					continue
				}
				out[k] = res[bits[r>>3]>>(r&7)&1]
			}
			return
		}
		for k, r := range rows {
			if null(r) {
				out[k] = keepNull
				continue
			}
			out[k] = res[column.BitOf(bitutil.BitIsSet(bits, int(r)))]
		}
	case domain.TypeDecimal:
		want := p.decsAt(c.Scale)
		for k, r := range rows {
			if null(r) {
				out[k] = keepNull
				continue
			}
			out[k] = slices.Contains(want, c.DecAt(r)) != p.negate
		}
	case domain.TypeFloat:
		vals := c.Floats
		for k, r := range rows {
			if null(r) {
				out[k] = keepNull
				continue
			}
			out[k] = slices.Contains(p.floats, vals[r]) != p.negate
		}
	case domain.TypeDate:
		for k, r := range rows {
			if null(r) {
				out[k] = keepNull
				continue
			}
			out[k] = slices.Contains(p.ints, int64(c.Day(r))) != p.negate
		}
	default: // integer, timestamp
		if c.Ints32 != nil {
			evalInts(p, c, c.Ints32, rows, out)
		} else {
			evalInts(p, c, c.Ints, rows, out)
		}
	}
}

// evalInts is Eval of integer or timestamp column c, whose values are
// vals.
func evalInts[T column.Integer](p *Predicate, c *column.Column, vals []T, rows []int32, out []bool) {
	valid, keepNull := c.Valid, p.keepNull
	null := func(r int32) bool { return r < 0 || (valid != nil && !bitutil.BitIsSet(valid, int(r))) }
	if len(p.ints) == 1 {
		x := p.ints[0]
		for k, r := range rows {
			if null(r) {
				out[k] = keepNull
				continue
			}
			out[k] = (int64(vals[r]) == x) != p.negate
		}
		return
	}
	for k, r := range rows {
		if null(r) {
			out[k] = keepNull
			continue
		}
		out[k] = slices.Contains(p.ints, int64(vals[r])) != p.negate
	}
}

// InOnePass reports whether p can be tested over n rows of c by its
// outcome per value with no null check: c has no null, and is boolean or
// text whose dictionary's outcomes are known (cached) or fewer than its
// rows (a streamed batch's).
func (p *Predicate) InOnePass(c *column.Column, n int) bool {
	switch {
	case c.Valid != nil || p.AnyValue:
		return false
	case c.Type == domain.TypeBoolean:
		return true
	case c.Type == domain.TypeText:
		return (c.Idx != nil || c.Idx8 != nil) && (p.DictOut != nil && c == p.Col || len(c.Dict) <= n)
	}
	return false
}

// evalText is Eval of text column c, whose dictionary indexes are idx.
func evalText[I column.Index](p *Predicate, c *column.Column, idx []I, rows []int32, out []bool, m *column.DictMap) {
	valid, keepNull := c.Valid, p.keepNull
	null := func(r int32) bool { return r < 0 || (valid != nil && !bitutil.BitIsSet(valid, int(r))) }
	if res := p.DictOut; res != nil && c == p.Col {
		for k, r := range rows {
			if null(r) {
				out[k] = keepNull
				continue
			}
			out[k] = res[idx[r]]
		}
		return
	}
	m.Reset(c)
	if len(c.Dict) <= len(rows) {
		// A batch's dictionary smaller than its rows (the usual
		// filter column): every entry's outcome first, then one load
		// per row.
		for k := range c.Dict {
			p.TextOutcome(c.Dict, m, int32(k))
		}
		vals := m.Vals
		if valid == nil {
			for k, r := range rows {
				out[k] = r >= 0 && vals[idx[r]] != 0 || r < 0 && keepNull
			}
			return
		}
		for k, r := range rows {
			if null(r) {
				out[k] = keepNull
				continue
			}
			out[k] = vals[idx[r]] != 0
		}
		return
	}
	for k, r := range rows {
		if null(r) {
			out[k] = keepNull
			continue
		}
		out[k] = p.TextOutcome(c.Dict, m, int32(idx[r]))
	}
}

// BoolOutcomes is the outcome of a boolean column's false and true.
func (p *Predicate) BoolOutcomes() [2]bool {
	var res [2]bool
	for _, v := range p.ints {
		res[v] = true
	}
	res[0], res[1] = res[0] != p.negate, res[1] != p.negate
	return res
}

// decValue is a decimal filter value: v × 10^-sc.
type decValue struct {
	v  i128.Int
	sc int32
}

// decsAt is the predicate's decimal values as coefficients at scale sc;
// a value with more fractional digits (or past 38 digits at sc) matches
// no value of the column and is left out.
func (p *Predicate) decsAt(sc int32) []i128.Int {
	out := make([]i128.Int, 0, len(p.decs))
	for _, d := range p.decs {
		if d.sc > sc {
			continue
		}
		if v, ok := d.v.MulPow10(sc - d.sc); ok {
			out = append(out, v)
		}
	}
	return out
}

// MayPass reports whether some row of a chunk of st may pass p; false
// only when none can (no value of p lies between its extremes, and a null
// does not pass or there is none).
func (p *Predicate) MayPass(st column.ChunkStats) bool {
	if p.Alias != 0 || p.negate || p.AnyValue || p.keepNull && st.Nulls {
		return true
	}
	switch {
	case st.Text && p.Col.Type == domain.TypeText:
		for v := range p.texts {
			if v >= st.Lo && v <= st.Hi {
				return true
			}
		}
		return false
	case !st.Text && p.Col.Type == domain.TypeInteger:
		for _, v := range p.ints {
			if v >= st.ILo && v <= st.IHi {
				return true
			}
		}
		return false
	}
	return true
}

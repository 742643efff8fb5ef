package engine

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"sutura.dev/domain"
)

// predicate is a filter compiled against one column: a row passes when
// its value's canonical rendering is one of the values (negate: is none of
// them); a null (or an unmatched join) passes exactly when keepNull.
type predicate struct {
	alias    int
	col      *column
	negate   bool
	keepNull bool
	anyValue bool // is_not_null: every non-null value matches

	ints    []int64   // integer, timestamp, date (days), boolean (0/1)
	floats  []float64 // float, decimal
	dictHit []bool    // text: per dictionary index
	dictOut []bool    // text: the outcome per dictionary index (dictHit xor negate)
}

// newPredicate compiles values against c. Values no value of c renders as
// are dropped: they can match nothing.
func newPredicate(alias int, c *column, values []string, negate, keepNull bool) (*predicate, error) {
	p := &predicate{alias: alias, col: c, negate: negate, keepNull: keepNull}
	for _, s := range values {
		switch c.typ {
		case domain.TypeText:
			look, err := c.dictLookup()
			if err != nil {
				return nil, err
			}
			if p.dictHit == nil {
				p.dictHit = make([]bool, len(c.dict))
			}
			if k, ok := look[s]; ok {
				p.dictHit[k] = true
			}
		case domain.TypeInteger:
			if v, ok := parseInt(s); ok && strconv.FormatInt(v, 10) == s {
				p.ints = append(p.ints, v)
			}
		case domain.TypeFloat, domain.TypeDecimal:
			if v, ok := parseFloat(s); ok && domain.Float(v).Render() == s {
				p.floats = append(p.floats, v)
			}
		case domain.TypeBoolean:
			if v, ok := parseBool(s); ok {
				p.ints = append(p.ints, b2i(v))
			}
		case domain.TypeDate:
			if v, ok := parseDay(s); ok {
				p.ints = append(p.ints, int64(v))
			}
		case domain.TypeTimestamp:
			if v, ok := parseMicros(s); ok && renderTimestamp(v) == s {
				p.ints = append(p.ints, v)
			}
		default:
			return nil, fmt.Errorf("column %s has unknown type %s", c.name, c.typ)
		}
	}
	if c.typ == domain.TypeText {
		p.dictOut = make([]bool, len(c.dict))
		for i := range p.dictOut {
			p.dictOut[i] = (p.dictHit != nil && p.dictHit[i]) != negate
		}
	}
	return p, nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// callerPredicate compiles a caller filter: eq and in keep rows whose value
// is one of the values; not_in keeps the others and the nulls.
func callerPredicate(alias int, c *column, f domain.FilterRef) (*predicate, error) {
	switch f.Op {
	case domain.OpEq, domain.OpIn:
		return newPredicate(alias, c, f.Values, false, false)
	case domain.OpNotIn:
		return newPredicate(alias, c, f.Values, true, true)
	}
	return nil, fmt.Errorf("filter on %s: unknown operator %q", f.Dimension, f.Op)
}

// requiredPredicate compiles a metric's required filter, with SQL's
// semantics: a null passes none of them.
func requiredPredicate(c *column, rf domain.RequiredFilter) (*predicate, error) {
	switch rf.Op {
	case domain.Equals:
		return newPredicate(0, c, []string{rf.Value}, false, false)
	case domain.NotEquals:
		return newPredicate(0, c, []string{rf.Value}, true, false)
	case domain.IsTrue:
		if c.typ != domain.TypeBoolean {
			return nil, fmt.Errorf("required filter is_true on column %s, which is %s, not boolean", c.name, c.typ)
		}
		return newPredicate(0, c, []string{"true"}, false, false)
	case domain.IsNotNull:
		return &predicate{col: c, anyValue: true}, nil
	}
	return nil, fmt.Errorf("required filter on column %s: unknown operator %q", c.name, rf.Op)
}

// eval sets out[k] for the row rows[k] (-1: no row, as after an unmatched
// join). Each column type has its own loop.
func (p *predicate) eval(rows []int32, out []bool) {
	c := p.col
	valid, keepNull := c.valid, p.keepNull
	null := func(r int32) bool { return r < 0 || (valid != nil && !bitutil.BitIsSet(valid, int(r))) }
	if p.anyValue {
		for k, r := range rows {
			out[k] = !null(r)
		}
		return
	}
	switch c.typ {
	case domain.TypeText:
		res := p.dictOut
		idx := c.idx
		for k, r := range rows {
			if null(r) {
				out[k] = keepNull
				continue
			}
			out[k] = res[idx[r]]
		}
	case domain.TypeBoolean:
		var res [2]bool
		for _, v := range p.ints {
			res[v] = true
		}
		res[0], res[1] = res[0] != p.negate, res[1] != p.negate
		bits := c.boolBits
		for k, r := range rows {
			if null(r) {
				out[k] = keepNull
				continue
			}
			out[k] = res[b2i(bitutil.BitIsSet(bits, int(r)))]
		}
	case domain.TypeFloat, domain.TypeDecimal:
		vals := c.floats
		for k, r := range rows {
			if null(r) {
				out[k] = keepNull
				continue
			}
			out[k] = slices.Contains(p.floats, vals[r]) != p.negate
		}
	case domain.TypeDate:
		days := c.days
		for k, r := range rows {
			if null(r) {
				out[k] = keepNull
				continue
			}
			out[k] = slices.Contains(p.ints, int64(days[r])) != p.negate
		}
	default: // integer, timestamp
		vals := c.ints
		if len(p.ints) == 1 {
			x := p.ints[0]
			for k, r := range rows {
				if null(r) {
					out[k] = keepNull
					continue
				}
				out[k] = (vals[r] == x) != p.negate
			}
			return
		}
		for k, r := range rows {
			if null(r) {
				out[k] = keepNull
				continue
			}
			out[k] = slices.Contains(p.ints, vals[r]) != p.negate
		}
	}
}

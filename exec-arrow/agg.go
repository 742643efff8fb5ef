package engine

import (
	"context"
	"fmt"
	"math/bits"

	"sutura.dev/domain"
)

// termOp is an aggregate kernel.
type termOp uint8

const (
	opSum termOp = iota
	opCount
	opDistinct
	opAvg
	opMin
	opMax
	opCountIf
)

var termOpNames = [...]string{"sum", "count", "count_distinct", "avg", "min", "max", "count_if"}

// termPlan is one aggregate over a base-table column.
type termPlan struct {
	op    termOp
	col   *column
	float bool     // the values are float64 (float, decimal)
	codes *codeSet // count_distinct: the column's codes
	words int      // count_distinct: bitset words per group, 0 for a hash set
	rank  []int32  // min/max of text: byte-order rank per dictionary index
}

// distinctBitsetMaxBytes bounds the bitsets count_distinct keeps per
// worker (one bit per distinct value per possible group); above it, a
// hash set of (group, value) pairs is used instead.
const distinctBitsetMaxBytes = 32 << 20

func newTermPlan(ctx context.Context, t domain.Term, c *column, groupSpace uint64) (*termPlan, error) {
	tp := &termPlan{col: c, float: c.typ == domain.TypeFloat || c.typ == domain.TypeDecimal}
	if t.CountIf != "" {
		if c.typ != domain.TypeBoolean {
			return nil, fmt.Errorf("count_if column %s is %s, not boolean", c.name, c.typ)
		}
		tp.op = opCountIf
		return tp, nil
	}
	switch t.Aggregate {
	case domain.Sum, domain.Avg:
		if !c.numeric() {
			return nil, fmt.Errorf("%s over column %s, which is %s, not a number", t.Aggregate, c.name, c.typ)
		}
		tp.op = opSum
		if t.Aggregate == domain.Avg {
			tp.op = opAvg
		}
	case domain.Count:
		tp.op = opCount
	case domain.CountDistinct:
		tp.op = opDistinct
		codes, err := c.groupCodes(ctx)
		if err != nil {
			return nil, err
		}
		tp.codes = codes
		words := uint64(codes.card()+1+63) / 64
		if hi, lo := bits.Mul64(words*8, groupSpace); hi == 0 && lo <= distinctBitsetMaxBytes {
			tp.words = int(words)
		}
	case domain.Min, domain.Max:
		tp.op = opMin
		if t.Aggregate == domain.Max {
			tp.op = opMax
		}
		if c.typ == domain.TypeText {
			tp.rank = c.ranks()
		}
	default:
		return nil, fmt.Errorf("unknown aggregate %q", t.Aggregate)
	}
	return tp, nil
}

func (t *termPlan) name() string { return termOpNames[t.op] }

// numericResult reports whether the term yields a number (for ratios).
func (t *termPlan) numericResult() bool {
	switch t.op {
	case opMin, opMax:
		return t.col.numeric()
	}
	return true
}

// intVal is the integer form min and max compare for a non-float column.
func (t *termPlan) intVal(r int32) int64 {
	c := t.col
	switch c.typ {
	case domain.TypeText:
		return int64(t.rank[c.idx[r]])
	case domain.TypeDate:
		return int64(c.days[r])
	case domain.TypeBoolean:
		return b2i(c.bools.Value(int(r)))
	}
	return c.ints[r]
}

// termState is one term's partial aggregates, indexed by group.
type termState struct {
	i    []int64   // sum (integers), min/max (integer forms), count_if
	f    []float64 // sum (floats), min/max (floats)
	n    []int64   // non-null values seen
	bits []uint64  // count_distinct bitsets, words per group
	set  map[uint64]struct{}
}

func (s *termState) grow(t *termPlan, ng int) {
	for len(s.n) < ng {
		s.n = append(s.n, 0)
		s.i = append(s.i, 0)
		if t.float {
			s.f = append(s.f, 0)
		}
	}
	if t.op == opDistinct {
		if t.words > 0 {
			if need := ng * t.words; len(s.bits) < need {
				s.bits = append(s.bits, make([]uint64, need-len(s.bits))...)
			}
		} else if s.set == nil {
			s.set = map[uint64]struct{}{}
		}
	}
}

// update folds the rows rows[k] into the groups gids[k].
func (s *termState) update(t *termPlan, rows, gids []int32) {
	c := t.col
	nulls := c.valid != nil
	switch t.op {
	case opSum, opAvg:
		if t.float {
			for k, r := range rows {
				if nulls && !c.isValid(r) {
					continue
				}
				g := gids[k]
				s.f[g] += c.floats[r]
				s.n[g]++
			}
			return
		}
		for k, r := range rows {
			if nulls && !c.isValid(r) {
				continue
			}
			g := gids[k]
			s.i[g] += c.ints[r]
			s.n[g]++
		}
	case opCount:
		for k, r := range rows {
			if nulls && !c.isValid(r) {
				continue
			}
			s.n[gids[k]]++
		}
	case opCountIf:
		for k, r := range rows {
			if (nulls && !c.isValid(r)) || !c.bools.Value(int(r)) {
				continue
			}
			s.i[gids[k]]++
		}
	case opDistinct:
		codes := t.codes.codes
		if t.words > 0 {
			w := t.words
			for k, r := range rows {
				if code := codes[r]; code > 0 {
					s.bits[int(gids[k])*w+int(code>>6)] |= 1 << (uint(code) & 63)
				}
			}
			return
		}
		for k, r := range rows {
			if code := codes[r]; code > 0 {
				s.set[uint64(gids[k])<<32|uint64(code)] = struct{}{}
			}
		}
	case opMin, opMax:
		isMax := t.op == opMax
		if t.float {
			for k, r := range rows {
				if nulls && !c.isValid(r) {
					continue
				}
				g, v := gids[k], c.floats[r]
				if s.n[g] == 0 || (v > s.f[g]) == isMax && v != s.f[g] {
					s.f[g] = v
				}
				s.n[g]++
			}
			return
		}
		for k, r := range rows {
			if nulls && !c.isValid(r) {
				continue
			}
			g, v := gids[k], t.intVal(r)
			if s.n[g] == 0 || (v > s.i[g]) == isMax && v != s.i[g] {
				s.i[g] = v
			}
			s.n[g]++
		}
	}
}

// merge folds src's group sg into s's group dg for every pair of remap
// (remap[sg] = dg).
func (s *termState) merge(t *termPlan, src *termState, remap []int32) {
	for sg, dg := range remap {
		if src.n[sg] == 0 && src.i[sg] == 0 && t.op != opDistinct {
			continue
		}
		switch t.op {
		case opSum, opAvg, opCount, opCountIf:
			s.i[dg] += src.i[sg]
			if t.float {
				s.f[dg] += src.f[sg]
			}
		case opMin, opMax:
			if src.n[sg] == 0 {
				continue
			}
			isMax := t.op == opMax
			if t.float {
				if v := src.f[sg]; s.n[dg] == 0 || (v > s.f[dg]) == isMax && v != s.f[dg] {
					s.f[dg] = v
				}
			} else if v := src.i[sg]; s.n[dg] == 0 || (v > s.i[dg]) == isMax && v != s.i[dg] {
				s.i[dg] = v
			}
		case opDistinct:
			if t.words > 0 {
				w := t.words
				d, o := s.bits[int(dg)*w:int(dg+1)*w], src.bits[sg*w:(sg+1)*w]
				for i := range d {
					d[i] |= o[i]
				}
			}
		}
		s.n[dg] += src.n[sg]
	}
	if t.op == opDistinct && t.words == 0 {
		for k := range src.set {
			s.set[uint64(remap[k>>32])<<32|k&(1<<32-1)] = struct{}{}
		}
	}
}

// distinctCounts returns the number of distinct values per group.
func (s *termState) distinctCounts(t *termPlan, ng int) []int64 {
	out := make([]int64, ng)
	if t.words > 0 {
		w := t.words
		for g := 0; g < ng; g++ {
			for _, x := range s.bits[g*w : (g+1)*w] {
				out[g] += int64(bits.OnesCount64(x))
			}
		}
		return out
	}
	for k := range s.set {
		out[k>>32]++
	}
	return out
}

// value is a finished aggregate of one group: a typed cell with its sort
// key.
type value struct {
	null bool
	kind domain.Kind
	i    int64
	f    float64
	s    string
	// byInt orders a text value by i (a timestamp rendered as text).
	byInt bool
}

func (v value) cell() domain.Cell {
	if v.null {
		return domain.Null()
	}
	switch v.kind {
	case domain.KindInt:
		return domain.Int(v.i)
	case domain.KindFloat:
		return domain.Float(v.f)
	case domain.KindDate:
		return domain.DateCell(domain.Date(v.i))
	case domain.KindBool:
		return domain.Bool(v.i != 0)
	}
	return domain.Text(v.s)
}

// num is the value as a float64, for ratios.
func (v value) num() float64 {
	if v.kind == domain.KindFloat {
		return v.f
	}
	return float64(v.i)
}

// finish returns the term's value in group g.
func (t *termPlan) finish(s *termState, distinct []int64, sorted []string, g int) value {
	switch t.op {
	case opCount:
		return value{kind: domain.KindInt, i: s.n[g]}
	case opCountIf:
		return value{kind: domain.KindInt, i: s.i[g]}
	case opDistinct:
		return value{kind: domain.KindInt, i: distinct[g]}
	}
	if s.n[g] == 0 {
		return value{null: true}
	}
	switch t.op {
	case opSum:
		if t.float {
			return value{kind: domain.KindFloat, f: s.f[g]}
		}
		return value{kind: domain.KindInt, i: s.i[g]}
	case opAvg:
		if t.float {
			return value{kind: domain.KindFloat, f: s.f[g] / float64(s.n[g])}
		}
		return value{kind: domain.KindFloat, f: float64(s.i[g]) / float64(s.n[g])}
	}
	// min, max
	if t.float {
		return value{kind: domain.KindFloat, f: s.f[g]}
	}
	v := s.i[g]
	switch t.col.typ {
	case domain.TypeDate:
		return value{kind: domain.KindDate, i: v}
	case domain.TypeBoolean:
		return value{kind: domain.KindBool, i: v}
	case domain.TypeTimestamp:
		return value{kind: domain.KindText, s: renderTimestamp(v), i: v, byInt: true}
	case domain.TypeText:
		return value{kind: domain.KindText, s: sorted[v]}
	}
	return value{kind: domain.KindInt, i: v}
}

// sortedDict returns a text column's dictionary in byte order.
func (t *termPlan) sortedDict() []string {
	if t.rank == nil {
		return nil
	}
	out := make([]string, len(t.rank))
	for i, r := range t.rank {
		out[r] = t.col.dict[i]
	}
	return out
}

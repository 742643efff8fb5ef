package kernel

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strings"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/distinct"
	"sutura.dev/exec-arrow/internal/exact"
	"sutura.dev/exec-arrow/internal/gate"
	"sutura.dev/exec-arrow/internal/groups"
	"sutura.dev/exec-arrow/internal/i128"
	"sutura.dev/exec-arrow/internal/value"
)

// PlainFloatSums makes float sums add plainly, without compensation: a
// benchmark's hook, to measure what compensation costs
// (docs/performance.md), and a test's, to make a sum's bits tell the
// order of its rows. Never set it outside a benchmark or a test.
var PlainFloatSums bool

// TermOp is an aggregate kernel.
type TermOp uint8

const (
	OpSum TermOp = iota
	opCount
	OpDistinct
	opAvg
	OpMin
	OpMax
	opCountIf
)

var termOpNames = [...]string{"sum", "count", "count_distinct", "avg", "min", "max", "count_if"}

// TermPlan is one aggregate over a base-table column.
type TermPlan struct {
	Op    TermOp
	Slot  int            // the input column's base slot
	Col   *column.Column // the input column, or its prototype when streamed
	Float bool           // the values are float64 (float)
	Dec   bool           // the values are exact decimals
	// count_distinct over a cached column: its codes, and the bitset words
	// per group (0: a hash set). Streamed, each worker numbers the values it
	// meets in a codebook instead.
	Codes *column.CodeSet
	words int
	// sparse: the term's pairs start in a distinct.Pairs, and become
	// bitsets only once dense (termState.densify).
	sparse bool
	// bitsets is what the bitsets of words words a group take over the
	// group space, on each worker (Bitsets).
	bitsets int64
	// count_distinct over a streamed integer or date column whose Parquet
	// statistics bound it: a value v has code v-lo+1 (at most base)
	// without hashing; a value outside (statistics that do not hold) is
	// numbered by the worker's codebook after base.
	Lo   int64
	Base int32
	// min, max of a cached text column: byte-order rank per dictionary
	// index. Streamed text keeps the smallest (largest) text itself.
	Rank []int32
}

// OrderFree reports whether the term's answer is the same whichever rows
// each partial meets: a float's or a decimal's is not (compensation,
// signed zeros, overflow past 38 digits), an integer sum's only when
// bounded says no partial of its slot can pass int64.
func (t *TermPlan) OrderFree(bounded func(slot int) bool) bool {
	switch {
	case t.Op == opCount || t.Op == OpDistinct || t.Op == opCountIf:
		return true
	case t.Float || t.Dec:
		return false
	}
	return t.Op == OpMin || t.Op == OpMax || bounded(t.Slot)
}

// OrderFree reports whether the question's answer is the same whichever
// worker meets which group: it has terms, and every one is order-free
// (TermPlan.OrderFree, with bounded for integer sums).
func (q *Query) OrderFree(bounded func(slot int) bool) bool {
	if q.union() {
		for _, mb := range q.Members {
			if !mb.Q.OrderFree(mapped(mb, bounded)) {
				return false
			}
		}
		return true
	}
	for _, m := range q.Metrics {
		for _, t := range m.Terms {
			if !t.OrderFree(bounded) {
				return false
			}
		}
	}
	return len(q.Metrics) > 0
}

// DistinctSparseBytes is the most memory a cached column's count_distinct
// term plans for its bitsets (a bit per code per group, over the group
// space) and still starts in them: above it, the term's (group, code)
// pairs start in a distinct.Pairs, and move to bitsets once that set takes
// more than 1/DistinctDenseShare of the bitsets of the groups met so far
// (densify). A filtered question that meets a few codes per group then
// never touches (let alone zeroes, merges and counts) groups × domain
// bits, while a dense one ends in the bitsets having built a set of at
// most an eighth of their size (docs/performance.md). Tests change both.
var DistinctSparseBytes int64 = 1 << 20

// DistinctDenseShare: pairs become bitsets once their set passes this
// share of the bitsets' memory, or 1/64 of it when the pairs met per row
// the batches spanned, over all the column's rows at 16 bytes a pair,
// would pass the bitsets. A set holds a pair in 11 to 21 bytes, so at an
// eighth the pairs are about one in a thousand bits: dense enough that a
// set would keep growing towards the bitsets; the projection turns a term
// that meets a new pair in most rows into bitsets early, having spent
// little on its set.
var DistinctDenseShare int64 = 8

// DistinctBitsetMaxBytes bounds the bitsets count_distinct keeps per
// worker (one bit per distinct value per group); above it, a set of
// (group, value) pairs is used instead. Tests lower it.
var DistinctBitsetMaxBytes int64 = 32 << 20

// NewTermPlan plans term t over the column held (in base slot slot): its
// operation, and for a cached column the group codes count_distinct counts
// and the ranks min and max of text compare.
func NewTermPlan(ctx context.Context, t domain.Term, slot int, held *column.Derived, groupSpace uint64, cached bool) (*TermPlan, error) {
	c := held.Column()
	tp := &TermPlan{Slot: slot, Col: c, Float: c.Type == domain.TypeFloat, Dec: c.Type == domain.TypeDecimal}
	if t.CountIf != "" {
		if c.Type != domain.TypeBoolean {
			return nil, fmt.Errorf("count_if column %s is %s, not boolean", c.Name, c.Type)
		}
		tp.Op = opCountIf
		return tp, nil
	}
	switch t.Aggregate {
	case domain.Sum, domain.Avg:
		if !c.Numeric() {
			return nil, fmt.Errorf("%s over column %s, which is %s, not a number", t.Aggregate, c.Name, c.Type)
		}
		tp.Op = OpSum
		if t.Aggregate == domain.Avg {
			tp.Op = opAvg
		}
	case domain.Count:
		tp.Op = opCount
	case domain.CountDistinct:
		tp.Op = OpDistinct
		if !cached {
			return tp, nil
		}
		codes, err := held.GroupCodes(ctx)
		if err != nil {
			return nil, err
		}
		tp.Codes = codes
		// Bitsets up to DistinctBitsetMaxBytes, or up to 8 bytes a row: a
		// set's pair of codes takes ~24, and a column has as many pairs as rows.
		words := uint64(codes.Card()+1+63) / 64
		bound := uint64(DistinctBitsetMaxBytes)
		if bound > 0 {
			bound = max(bound, 8*uint64(c.N))
		}
		if hi, lo := bits.Mul64(words*8, groupSpace); hi == 0 && lo <= bound {
			tp.words = int(words)
			tp.sparse = int64(lo) > DistinctSparseBytes
			tp.bitsets = int64(lo)
		}
	case domain.Min, domain.Max:
		tp.Op = OpMin
		if t.Aggregate == domain.Max {
			tp.Op = OpMax
		}
		if c.Type == domain.TypeText && cached {
			tp.Rank = held.Ranks()
		}
	default:
		return nil, fmt.Errorf("unknown aggregate %q", t.Aggregate)
	}
	return tp, nil
}

// Bitsets is what a count_distinct over a cached column may hold in
// bitsets on each worker once its pairs are dense: a bit per code per
// group of the group space; 0 for any other term.
func (t *TermPlan) Bitsets() int64 { return t.bitsets }

// Name names the term's operation, for messages.
func (t *TermPlan) Name() string { return termOpNames[t.Op] }

// NumericResult reports whether the term yields a number (for ratios).
func (t *TermPlan) NumericResult() bool {
	switch t.Op {
	case OpMin, OpMax:
		return t.Col.Numeric()
	}
	return true
}

// streamText reports whether the term keeps text values themselves (min
// or max of a streamed text column).
func (t *TermPlan) streamText() bool {
	return (t.Op == OpMin || t.Op == OpMax) && t.Col.Type == domain.TypeText && t.Rank == nil
}

// intVal is the integer form min and max compare for a non-float column.
func (t *TermPlan) intVal(c *column.Column, r int32) int64 {
	switch c.Type {
	case domain.TypeText:
		return int64(t.Rank[c.Index(r)])
	case domain.TypeDate:
		return int64(c.Day(r))
	case domain.TypeBoolean:
		return int64(column.BitOf(c.Bools.Value(int(r))))
	}
	return c.Int(r)
}

// termState is one term's partial aggregates, indexed by group.
type termState struct {
	i []int64 // sum (integers), min/max (integer forms), count_if
	// iovf holds, in its sign bit, whether an integer sum passed int64
	// (exact.AddInt): such a sum is refused, never wrapped (docs/reference.md).
	iovf int64
	f    []float64 // sum (floats), min/max (floats)
	// fc is the compensation of each float sum: the rounding errors of
	// f's additions, summed (Neumaier), so f+fc is the sum to within one
	// rounding in all but pathological cancellations (docs/reference.md).
	fc  []float64
	dec exact.Decimals // sums, mins and maxes of decimals
	n   []int64        // non-null values seen
	s   []string       // min/max of streamed text

	// count_distinct: bitsets of words per group, or a set of
	// group<<32|code; streamed, book numbers the values (m caches a
	// batch dictionary's codes).
	words int
	bits  []uint64
	set   *distinct.PairSet
	book  *groups.Codebook
	// spanned: the rows the batches that added to a cached column's set
	// spanned (densify).
	spanned int64
	base    int32 // codes up to base are the term's span codes, the book's follow
	m       column.DictMap
	// dset holds the values, with their groups, once the codebook passes
	// DistinctBookMax values (distinct.go).
	dset *distinct.Set
	// shared: the state keeps the codes codeLo up to codeHi only (bit
	// code-codeLo), and counted what merged shares counted per group
	// (share.go).
	shared         bool
	codeLo, codeHi int32
	counted        []int64
}

func newTermState(t *TermPlan) *termState {
	s := &termState{}
	if t.Op == OpDistinct {
		switch {
		case t.Codes == nil:
			s.book = groups.NewCodebook(t.Col.Type)
			s.base = t.Base
			s.words = (int(t.Base) + 1 + 63) / 64
		case t.words > 0:
			s.words = t.words
			if t.sparse {
				s.set = &distinct.PairSet{Pairs: distinct.NewPairs(0)}
			}
		default:
			s.dset = distinct.New(SpillDir) // spillable, unlike a map
		}
	}
	return s
}

func (s *termState) grow(t *TermPlan, ng int) {
	for len(s.n) < ng {
		s.n = append(s.n, 0)
		s.i = append(s.i, 0)
		if t.Float {
			s.f = append(s.f, 0)
			s.fc = append(s.fc, 0)
		}
		if t.Dec {
			s.dec.Grow(1)
		}
		if t.streamText() {
			s.s = append(s.s, "")
		}
	}
	if t.Op == OpDistinct && s.set == nil {
		s.fitBits(ng, s.words)
	}
}

// fitBits makes the bitsets hold ng groups of at least words words each,
// or, for values a codebook numbers, turns them into a hash set when that
// would pass DistinctBitsetMaxBytes (a cached column's bitsets were
// bounded when the term was planned).
func (s *termState) fitBits(ng, words int) {
	if s.set != nil {
		return
	}
	words = max(words, s.words)
	if s.book != nil && int64(ng)*int64(words)*8 > DistinctBitsetMaxBytes {
		s.toSet()
		return
	}
	if words == s.words {
		if need := ng * words; len(s.bits) < need {
			s.bits = append(s.bits, make([]uint64, need-len(s.bits))...)
		}
		return
	}
	nb := make([]uint64, ng*words)
	for g := 0; g < len(s.bits)/s.words; g++ {
		copy(nb[g*words:], s.bits[g*s.words:(g+1)*s.words])
	}
	s.bits, s.words = nb, words
}

// toSet turns the bitsets into a hash set of group<<32|code.
func (s *termState) toSet() {
	if s.set != nil {
		return
	}
	set := &distinct.PairSet{Runs: &distinct.Runs{}}
	for g := 0; s.words > 0 && g < len(s.bits)/s.words; g++ {
		for w, x := range s.bits[g*s.words : (g+1)*s.words] {
			for x != 0 {
				b := bits.TrailingZeros64(x)
				x &= x - 1
				set.Add(uint64(g)<<32 | uint64(w*64+b))
			}
		}
	}
	s.set, s.bits = set, nil
}

// densify turns a cached column's pairs into bitsets of the groups met so
// far once they are dense (DistinctDenseShare). A codebook's set stays a
// set: its bitsets were the smaller form it outgrew (fitBits).
func (s *termState) densify(t *TermPlan) {
	if t.Codes == nil || s.set == nil || s.set.Len() == 0 {
		return
	}
	set, bits := s.set.Bytes(), int64(len(s.n))*int64(s.words)*8
	proj := int64(s.set.Len()) * 16 * int64(t.Col.N) / max(s.spanned, 1)
	if set*DistinctDenseShare > bits || set*64 > bits && proj > bits {
		s.toBits()
	}
}

// toBits turns the pairs into bitsets of the groups met so far.
func (s *termState) toBits() {
	s.bits = make([]uint64, len(s.n)*s.words)
	for k := range s.set.All() {
		s.bits[int(k>>32)*s.words+int(uint32(k)>>6)] |= 1 << (k & 63)
	}
	s.set = nil
}

// addDistinct records code (≥ 1) in group g.
func (s *termState) addDistinct(g int32, code int32) {
	if s.set != nil {
		s.set.Add(uint64(g)<<32 | uint64(code))
		return
	}
	s.bits[int(g)*s.words+int(code>>6)] |= 1 << (uint(code) & 63)
}

// update folds rows rows[k] of c into the groups gids[k]; h, when not
// nil, is the number of positions per group (a column with no null then
// adds it as its count of values).
func (s *termState) update(t *TermPlan, c *column.Column, rows, gids []int32, h []int32) {
	nulls := c.Valid != nil
	if !nulls && h != nil {
		switch t.Op {
		case OpSum, opAvg:
			// one: every position is in one group (a batch of one period,
			// grouped by nothing else), summed in registers.
			one := len(rows) > 0 && int(h[gids[0]]) == len(rows)
			switch {
			case t.Dec:
				s.dec.Sum(c, rows, gids, false, one)
			case t.Float && PlainFloatSums && one:
				g, v := gids[0], s.f[gids[0]]
				for _, r := range rows {
					v += c.Floats[r]
				}
				s.f[g] = v
			case t.Float && PlainFloatSums:
				for k, r := range rows {
					s.f[gids[k]] += c.Floats[r]
				}
			case t.Float && one:
				g := gids[0]
				s.f[g], s.fc[g] = exact.TwoSumRows(s.f[g], s.fc[g], c.Floats, rows)
			case t.Float:
				f, fc := s.f, s.fc
				for k, r := range rows {
					g := gids[k]
					f[g], fc[g] = exact.TwoSum(f[g], fc[g], c.Floats[r])
				}
			case one:
				g, ovf := gids[0], int64(0)
				sum := s.i[g]
				var vals [256]int64 // gathered first, summed in a register
				for k0 := 0; k0 < len(rows); k0 += len(vals) {
					for _, v := range column.GatherInts(vals[:], c, rows[k0:min(k0+len(vals), len(rows))]) {
						var o int64
						sum, o = exact.AddInt(sum, v)
						ovf |= o
					}
				}
				s.i[g] = sum
				s.iovf |= ovf
			default:
				var ovf int64
				for k, r := range rows {
					g := gids[k]
					var o int64
					s.i[g], o = exact.AddInt(s.i[g], c.Int(r))
					ovf |= o
				}
				s.iovf |= ovf
			}
			s.addCounts(h)
			return
		case opCount:
			s.addCounts(h)
			return
		}
	}
	switch t.Op {
	case OpSum, opAvg:
		if t.Dec {
			s.dec.Sum(c, rows, gids, true, false)
			for k, r := range rows {
				if !nulls || c.IsValid(r) {
					s.n[gids[k]]++
				}
			}
			return
		}
		if t.Float {
			f, fc := s.f, s.fc
			for k, r := range rows {
				if nulls && !c.IsValid(r) {
					continue
				}
				g := gids[k]
				if PlainFloatSums {
					f[g] += c.Floats[r]
				} else {
					f[g], fc[g] = exact.TwoSum(f[g], fc[g], c.Floats[r])
				}
				s.n[g]++
			}
			return
		}
		var ovf int64
		var vals [256]int64 // gathered first, nulls' too
		for k0 := 0; k0 < len(rows); k0 += len(vals) {
			block := rows[k0:min(k0+len(vals), len(rows))]
			for k, v := range column.GatherInts(vals[:], c, block) {
				if nulls && !c.IsValid(block[k]) {
					continue
				}
				g := gids[k0+k]
				var o int64
				s.i[g], o = exact.AddInt(s.i[g], v)
				ovf |= o
				s.n[g]++
			}
		}
		s.iovf |= ovf
	case opCount:
		if !nulls {
			for _, g := range gids {
				s.n[g]++
			}
			return
		}
		for k, r := range rows {
			if !c.IsValid(r) {
				continue
			}
			s.n[gids[k]]++
		}
	case opCountIf:
		// Branch-free: a true is added as 1, a false or a null as 0 (a
		// branch on booleans in no order is a coin toss per row).
		bits, valid := c.BoolBits, c.Valid
		if valid == nil {
			for k, r := range rows {
				s.i[gids[k]] += int64(bits[r>>3] >> (r & 7) & 1)
			}
			return
		}
		for k, r := range rows {
			s.i[gids[k]] += int64(bits[r>>3] & valid[r>>3] >> (r & 7) & 1)
		}
	case OpDistinct:
		s.updateDistinct(t, c, rows, gids)
	case OpMin, OpMax:
		isMax := t.Op == OpMax
		switch {
		case t.Dec:
			s.dec.MinMax(c, rows, gids, s.n, isMax)
		case t.Float:
			for k, r := range rows {
				if nulls && !c.IsValid(r) {
					continue
				}
				g, v := gids[k], c.Floats[r]
				if s.n[g] == 0 || (v > s.f[g]) == isMax && v != s.f[g] {
					s.f[g] = v
				}
				s.n[g]++
			}
		case t.streamText():
			for k, r := range rows {
				if nulls && !c.IsValid(r) {
					continue
				}
				g, v := gids[k], c.Dict[c.Index(r)]
				if s.n[g] == 0 || (v > s.s[g]) == isMax && v != s.s[g] {
					s.s[g] = strings.Clone(v)
				}
				s.n[g]++
			}
		default:
			for k, r := range rows {
				if nulls && !c.IsValid(r) {
					continue
				}
				g, v := gids[k], t.intVal(c, r)
				if s.n[g] == 0 || (v > s.i[g]) == isMax && v != s.i[g] {
					s.i[g] = v
				}
				s.n[g]++
			}
		}
	}
}

// updateDistinctCodes adds rows rows[k] to groups gids[k] of a distinct
// count over a code set's codes (t.Codes): every code but null's, or,
// for a state that keeps a share of them, the codes codeLo up to codeHi,
// each less codeLo-1 (share.go).
func updateDistinctCodes[C column.Index](s *termState, t *TermPlan, codes []C, rows, gids []int32) {
	plus := t.Codes.Plus
	if s.dset != nil {
		updateCodes(s, codes, plus, rows, gids)
		return
	}
	lo, hi, off := int32(1), int32(math.MaxInt32), int32(0)
	if s.shared {
		lo, hi, off = max(s.codeLo, 1), s.codeHi, s.codeLo-1
	}
	if s.set == nil {
		w := s.words
		for k, r := range rows {
			if code := int32(codes[r]) + plus; code >= lo && code < hi {
				code -= off
				s.bits[int(gids[k])*w+int(code>>6)] |= 1 << (uint(code) & 63)
			}
		}
		return
	}
	var ks [aheadBatch]uint64
	n := 0
	if len(rows) > 0 {
		s.spanned += int64(rows[len(rows)-1]-rows[0]) + 1
	}
	for k, r := range rows {
		if code := int32(codes[r]) + plus; code >= lo && code < hi {
			ks[n] = uint64(gids[k])<<32 | uint64(code-off)
			if n++; n == aheadBatch {
				s.set.AddKeys(ks[:])
				n = 0
			}
		}
	}
	s.set.AddKeys(ks[:n])
	s.densify(t)
}

// addCounts adds h[g] values to group g.
func (s *termState) addCounts(h []int32) {
	n := s.n[:len(h)]
	for g, c := range h {
		n[g] += int64(c)
	}
}

func (s *termState) updateDistinct(t *TermPlan, c *column.Column, rows, gids []int32) {
	if t.Codes != nil {
		if t.Codes.Codes8 != nil {
			updateDistinctCodes(s, t, t.Codes.Codes8, rows, gids)
		} else {
			updateDistinctCodes(s, t, t.Codes.Codes, rows, gids)
		}
		return
	}
	if t.Base > 0 {
		s.updateSpan(t, c, rows, gids)
		return
	}
	if s.dset != nil {
		s.updateSet(c, rows, gids)
		return
	}
	if s.book.Card() > DistinctBookMax {
		s.toDistinct(t)
		s.updateSet(c, rows, gids)
		return
	}
	if c.Type == domain.TypeText {
		s.m.Reset(c)
	}
	for k, r := range rows {
		code := s.book.CodeOf(c, r, &s.m)
		if code == 0 {
			continue
		}
		if s.set == nil && int(code>>6) >= s.words {
			s.fitBits(len(s.n), max(int(code>>6)+1, 2*s.words))
		}
		s.addDistinct(gids[k], code)
	}
}

// updateSpan codes integer or date values by their offset in the span
// the statistics give.
func (s *termState) updateSpan(t *TermPlan, c *column.Column, rows, gids []int32) {
	nulls, days := c.Valid != nil, c.HasDays()
	for k, r := range rows {
		if nulls && !c.IsValid(r) {
			continue
		}
		var v int64
		if days {
			v = int64(c.Day(r))
		} else {
			v = c.Int(r)
		}
		var code int32
		if o := v - t.Lo; o >= 0 && o < int64(t.Base) {
			code = int32(o) + 1
		} else {
			code = t.Base + s.book.Int(v)
			if s.set == nil && int(code>>6) >= s.words {
				s.fitBits(len(s.n), max(int(code>>6)+1, 2*s.words))
			}
		}
		s.addDistinct(gids[k], code)
	}
}

// merge folds src's group sg into s's group dg for every pair of remap
// (remap[sg] = dg). tr translates src's distinct codes into s's (nil when
// both share one code space).
func (s *termState) merge(t *TermPlan, src *termState, remap []int32, tr []int32) {
	s.iovf |= src.iovf
	for sg, dg := range remap {
		if src.n[sg] == 0 && src.i[sg] == 0 {
			continue
		}
		switch t.Op {
		case OpSum, opAvg, opCount, opCountIf:
			var o int64
			s.i[dg], o = exact.AddInt(s.i[dg], src.i[sg])
			s.iovf |= o
			if t.Float {
				s.f[dg], s.fc[dg] = exact.TwoSum(s.f[dg], s.fc[dg]+src.fc[sg], src.f[sg])
			}
			if t.Dec && src.n[sg] > 0 {
				s.dec.MergeSum(&src.dec, sg, int(dg))
			}
		case OpMin, OpMax:
			if src.n[sg] == 0 {
				continue
			}
			isMax := t.Op == OpMax
			switch {
			case t.Dec:
				s.dec.MergeMinMax(&src.dec, sg, int(dg), s.n[dg] == 0, isMax)
			case t.Float:
				if v := src.f[sg]; s.n[dg] == 0 || (v > s.f[dg]) == isMax && v != s.f[dg] {
					s.f[dg] = v
				}
			case t.streamText():
				if v := src.s[sg]; s.n[dg] == 0 || (v > s.s[dg]) == isMax && v != s.s[dg] {
					s.s[dg] = v
				}
			default:
				if v := src.i[sg]; s.n[dg] == 0 || (v > s.i[dg]) == isMax && v != s.i[dg] {
					s.i[dg] = v
				}
			}
		}
		s.n[dg] += src.n[sg]
	}
	if t.Op != OpDistinct {
		return
	}
	if src.shared {
		s.mergeShare(src, remap)
		return
	}
	if s.dset != nil || src.dset != nil {
		s.toDistinct(t)
		src.toDistinct(t)
		s.dset.Absorb(src.dset, remap)
		return
	}
	code := func(k int32) int32 {
		if tr == nil || k <= s.base {
			return k
		}
		return s.base + tr[k-s.base]
	}
	if src.set != nil {
		if t.Codes == nil {
			s.toSet()
		}
		s.spanned += src.spanned
		if s.set != nil && s.set.Runs != nil && src.set.Runs != nil {
			// Sorted runs take the other's translated where they lie.
			s.set.Runs.Absorb(src.set.Runs, func(k uint64) uint64 {
				return uint64(remap[k>>32])<<32 | uint64(code(int32(k&(1<<32-1))))
			}, tr == nil)
			return
		}
		if s.set != nil {
			// Room for all of src's pairs first: they come in the order
			// of its slots, where their searches start, and in a table
			// growing from smaller they would pile up (distinct.Pairs.Grow).
			s.set.Grow(src.set.Len())
		}
		for k := range src.set.All() {
			s.addDistinct(remap[k>>32], code(int32(k&(1<<32-1))))
		}
		s.densify(t)
		return
	}
	if t.Codes != nil && s.set != nil {
		// src's pairs grew into bitsets: s's, with them, are as dense.
		s.toBits()
	}
	if tr == nil && s.set == nil && s.words == src.words {
		w := s.words
		for sg, dg := range remap {
			d, o := s.bits[int(dg)*w:int(dg+1)*w], src.bits[sg*w:(sg+1)*w]
			for i := range d {
				d[i] |= o[i]
			}
		}
		return
	}
	if s.book != nil {
		s.fitBits(len(s.n), (int(s.base)+s.book.Card())>>6+1)
	}
	for sg, dg := range remap {
		for w, x := range src.bits[sg*src.words : (sg+1)*src.words] {
			for x != 0 {
				b := bits.TrailingZeros64(x)
				x &= x - 1
				s.addDistinct(dg, code(int32(w*64+b)))
			}
		}
	}
}

// DistinctCounts returns the number of distinct values per group; the
// memory a spilled distinct set takes to count is taken from mem.
func (s *termState) DistinctCounts(ng int, mem *gate.Reservation) ([]int64, error) {
	if s.shared {
		return s.shareCounts(ng), nil
	}
	if s.dset != nil {
		return s.dset.Counts(ng, func(n int64) error {
			if n < 0 {
				mem.Shrink(-n)
				return nil
			}
			return mem.Grow(n)
		})
	}
	out := make([]int64, ng)
	if s.set == nil {
		w := s.words
		for g := 0; g < ng; g++ {
			for _, x := range s.bits[g*w : (g+1)*w] {
				out[g] += int64(bits.OnesCount64(x))
			}
		}
		return out, nil
	}
	for k := range s.set.All() {
		out[k>>32]++
	}
	return out, nil
}

// bytes estimates the memory s holds.
func (s *termState) bytes() int64 {
	n := int64(8*(cap(s.i)+cap(s.f)+cap(s.fc)+cap(s.n)+cap(s.bits))) + s.dec.Bytes() + s.set.Bytes() + int64(16*cap(s.s))
	if s.book != nil {
		n += s.book.Bytes()
	}
	if s.dset != nil {
		n += s.dset.Bytes()
	}
	return n
}

// Finish returns the term's value in group g.
func (t *TermPlan) Finish(s *termState, distinct []int64, sorted []string, g int) value.Value {
	if t.streamText() && s.n[g] > 0 {
		return value.Value{Kind: domain.KindText, S: s.s[g]}
	}
	switch t.Op {
	case opCount:
		return value.Value{Kind: domain.KindInt, I: s.n[g]}
	case opCountIf:
		return value.Value{Kind: domain.KindInt, I: s.i[g]}
	case OpDistinct:
		return value.Value{Kind: domain.KindInt, I: distinct[g]}
	}
	if s.n[g] == 0 {
		return value.Value{Null: true}
	}
	if t.Dec {
		// The decimal, or for avg the float64 nearest to the exact
		// quotient of the sum by the n values (PostgreSQL's and DuckDB's
		// AVG cast to double, docs/reference.md).
		x, sc, ok := s.dec.Value(g)
		switch {
		case !ok:
			return value.Value{Kind: domain.KindDecimal, Overflow: true}
		case t.Op == opAvg:
			return value.Value{Kind: domain.KindFloat, F: i128.Quotient(x, sc, big.NewInt(s.n[g]), 0)}
		}
		return value.Value{Kind: domain.KindDecimal, D: x, Sc: sc}
	}
	if (t.Op == OpSum || t.Op == opAvg) && !t.Float && s.iovf < 0 {
		return value.Value{Overflow: true, IntOverflow: true}
	}
	switch t.Op {
	case OpSum:
		if t.Float {
			return value.Value{Kind: domain.KindFloat, F: s.f[g] + s.fc[g]}
		}
		return value.Value{Kind: domain.KindInt, I: s.i[g]}
	case opAvg:
		if t.Float {
			return value.Value{Kind: domain.KindFloat, F: (s.f[g] + s.fc[g]) / float64(s.n[g])}
		}
		return value.Value{Kind: domain.KindFloat, F: float64(s.i[g]) / float64(s.n[g])}
	}
	// min, max
	if t.Float {
		return value.Value{Kind: domain.KindFloat, F: s.f[g]}
	}
	v := s.i[g]
	switch t.Col.Type {
	case domain.TypeDate:
		return value.Value{Kind: domain.KindDate, I: v}
	case domain.TypeBoolean:
		return value.Value{Kind: domain.KindBool, I: v}
	case domain.TypeTimestamp:
		return value.Value{Kind: domain.KindText, S: column.RenderTimestamp(v), I: v, ByInt: true}
	case domain.TypeText:
		return value.Value{Kind: domain.KindText, S: sorted[v]}
	}
	return value.Value{Kind: domain.KindInt, I: v}
}

// SortedDict returns a text column's dictionary in byte order.
func (t *TermPlan) SortedDict() []string {
	if t.Rank == nil {
		return nil
	}
	out := make([]string, len(t.Rank))
	for i, r := range t.Rank {
		out[r] = t.Col.Dict[i]
	}
	return out
}

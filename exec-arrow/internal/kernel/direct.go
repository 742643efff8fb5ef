package kernel

import (
	"math"
	"unsafe"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/exact"
	"sutura.dev/exec-arrow/internal/kept"
	"sutura.dev/exec-arrow/internal/match"
)

// The direct kernel aggregates a batch with no selection vector and no
// group ids, when the question's shape allows: no dimension and no join
// (a group is a bucket), every metric needing the same required filters
// (a row counts for all or none), every term a count, an integer sum, or
// an integer minimum or maximum, over a column with no null in the batch, every filter tested by its
// outcome per dictionary entry or boolean value, and the batch wholly in
// the range. Each filter is tested over the batch's rows in order into a
// keep flag per row; one pass counts the kept rows per bucket, one per
// sum adds each row's value times its flag, and one per minimum or
// maximum takes each kept row's value. The counts, sums, minima and maxima
// are those the stages of query.chunk reach (integer sums are exact in any
// order).

// directOff, set by tests only, keeps every batch on query.chunk's
// stages; directHook, when set (by tests only), runs for every batch the
// direct kernel aggregates.
var (
	DirectOff  bool
	DirectHook func()
)

// DirectShape reports whether q's shape allows the direct kernel (the
// batch is checked by direct).
func (q *Query) DirectShape() bool {
	if len(q.Dims) > 0 || len(q.Joins) > 0 || len(q.JoinFilters) > 0 || !q.sameNeeds() {
		return false
	}
	for _, mp := range q.Metrics {
		for _, tp := range mp.Terms {
			if tp.Op != opCount && !tp.directSum() && !tp.directMinMax() {
				return false
			}
		}
	}
	return true
}

// direct aggregates b into p with the direct kernel and reports true, or
// reports false, having done nothing, when the batch does not allow it.
func (q *Query) direct(s *scratch, p *Partial, b *Batch) bool {
	if !q.DirectOK || !b.inside && !b.OneBucket {
		return false
	}
	lo, hi := b.Lo, b.Hi
	tests := s.tests[:0]
	for i, f := range q.BaseFilters {
		tests = append(tests, directTest{f, b.Cols[f.Slot], &s.filterMaps[i]})
	}
	if len(q.Needs) > 0 {
		for i, rp := range q.Required {
			if q.Needs[0]>>i&1 != 0 {
				tests = append(tests, directTest{rp, b.Cols[rp.Slot], &s.reqMaps[i]})
			}
		}
	}
	s.tests = tests
	for _, t := range tests {
		if !t.p.InOnePass(t.c, hi-lo) {
			return false
		}
	}
	for _, mp := range q.Metrics {
		for _, tp := range mp.Terms {
			if b.Cols[tp.Slot].Valid != nil {
				return false
			}
		}
	}
	if DirectHook != nil {
		DirectHook()
	}
	keep := directKeep(b, flags(s.pass[:hi-lo]), tests) // 1: the row passes every filter
	nb := len(q.Buckets)
	bucket, hc := s.bucket[:hi-lo], s.bcount[:nb]
	clear(hc)
	switch t := b.Cols[q.TimeSlot]; {
	case b.OneBucket:
		// Every row's bucket is b.Bucket: the terms sum in a register
		// (exact.SumKeptOne), and no bucket is written a row.
		hc[b.Bucket] = kept.Count(keep)
	case t.Days16 != nil:
		kept.Buckets(bucket, hc, t.Days16[lo:hi], q.Start-t.DayBase, q.BucketOf, keep)
	case t.Days != nil:
		kept.Buckets(bucket, hc, t.Days[lo:hi], q.Start, q.BucketOf, keep)
	default:
		start, of := q.Start, q.BucketOf
		for i, us := range t.Ints[lo:hi] {
			bk := of[column.DayOfMicros(us)-start]
			bucket[i] = bk
			hc[bk] += int64(keep[i])
		}
	}
	// The groups of the buckets that kept a row, in bucket order (the
	// order groups are met in does not change an answer).
	gidOf := s.bgids[:nb]
	for bk, c := range hc {
		gidOf[bk] = -1
		if c > 0 {
			gidOf[bk] = p.Groups.PackedID(uint64(bk))
		}
	}
	p.grow(q)
	for m, mp := range q.Metrics {
		counts := p.Rows[m]
		for bk, g := range gidOf {
			if g >= 0 {
				counts[g] += hc[bk]
			}
		}
		for t, tp := range mp.Terms {
			st := p.Terms[m][t]
			if tp.directMinMax() {
				minMaxDirect(st, tp.Op == OpMax, b.Cols[tp.Slot], b, s.bsum[:nb], bucket, hc, gidOf, keep)
				continue
			}
			if tp.Op != opCount {
				hs := s.bsum[:nb]
				clear(hs)
				var ovf int64
				switch c := b.Cols[tp.Slot]; {
				case b.OneBucket && c.Ints32 != nil:
					hs[b.Bucket], ovf = exact.SumKeptOne(c.Ints32[lo:hi], keep)
				case b.OneBucket:
					hs[b.Bucket], ovf = exact.SumKeptOne(c.Ints[lo:hi], keep)
				case c.Ints32 != nil:
					ovf = exact.SumKept(hs, c.Ints32[lo:hi], bucket, keep)
				default:
					ovf = exact.SumKept(hs, c.Ints[lo:hi], bucket, keep)
				}
				for bk, g := range gidOf {
					if g >= 0 {
						var o int64
						st.i[g], o = exact.AddInt(st.i[g], hs[bk])
						ovf |= o
					}
				}
				st.iovf |= ovf
			}
			for bk, g := range gidOf {
				if g >= 0 {
					st.n[g] += hc[bk]
				}
			}
		}
	}
	return true
}

// directSum reports whether the direct kernel sums the term: an integer
// sum or average.
func (t *TermPlan) directSum() bool {
	return (t.Op == OpSum || t.Op == opAvg) && !t.Float && !t.Dec
}

// directMinMax reports whether the direct kernel takes the term's
// minimum or maximum: one of an integer column.
func (t *TermPlan) directMinMax() bool {
	return (t.Op == OpMin || t.Op == OpMax) && !t.Float && !t.Dec && t.Col.Type == domain.TypeInteger
}

// minMaxDirect folds into st the minimum (or, isMax, the maximum) of c's
// kept rows of b (keep) per bucket, and counts them: hs is room for a
// value per bucket, bucket each row's (unless b is in one), hc the kept
// rows per bucket, gidOf each bucket's group (-1: none kept).
func minMaxDirect(st *termState, isMax bool, c *column.Column, b *Batch, hs []int64, bucket []int32, hc []int64, gidOf []int32, keep []uint8) {
	lo, hi := b.Lo, b.Hi
	none := int64(math.MaxInt64) // what a row left out counts as: never the minimum
	if isMax {
		none = math.MinInt64
	}
	for bk := range hs {
		hs[bk] = none
	}
	switch {
	case b.OneBucket && c.Ints32 != nil:
		hs[b.Bucket] = kept.ExtremeOne(c.Ints32[lo:hi], keep, none, isMax)
	case b.OneBucket:
		hs[b.Bucket] = kept.ExtremeOne(c.Ints[lo:hi], keep, none, isMax)
	case c.Ints32 != nil:
		kept.Extreme(hs, c.Ints32[lo:hi], bucket, keep, none, isMax)
	default:
		kept.Extreme(hs, c.Ints[lo:hi], bucket, keep, none, isMax)
	}
	for bk, g := range gidOf {
		if g < 0 || hc[bk] == 0 {
			continue
		}
		if v := hs[bk]; st.n[g] == 0 || (v > st.i[g]) == isMax && v != st.i[g] {
			st.i[g] = v
		}
		st.n[g] += hc[bk]
	}
}

// directTest is one filter of the direct kernel: a predicate, the batch's
// column it tests, and its per-batch dictionary cache.
type directTest struct {
	p *match.Predicate
	c *column.Column
	m *column.DictMap
}

// apply clears keep[i] for the row lo+i that fails the test.
func (t directTest) apply(keep []uint8, lo, hi int) {
	c := t.c
	if c.Type == domain.TypeBoolean {
		out, bits := t.p.BoolOutcomes(), c.BoolBits
		for i := range keep {
			r := lo + i
			keep[i] &= uint8(column.BitOf(out[bits[r>>3]>>(r&7)&1]))
		}
		return
	}
	if c.Idx8 != nil {
		keepText(t, c.Idx8[lo:hi], keep)
	} else {
		keepText(t, c.Idx[lo:hi], keep)
	}
}

// keepText clears keep[i] for the row whose dictionary index idx[i]
// fails t (a text column's).
func keepText[I column.Index](t directTest, idx []I, keep []uint8) {
	c := t.c
	if res := t.p.DictOut; res != nil && c == t.p.Col {
		for i, x := range idx {
			keep[i] &= uint8(column.BitOf(res[x]))
		}
		return
	}
	t.m.Reset(c)
	for k := range c.Dict {
		t.p.TextOutcome(c.Dict, t.m, int32(k))
	}
	vals := t.m.Vals
	for i, x := range idx {
		keep[i] &= uint8(vals[x]) // 0 or 1: every entry's outcome is set
	}
}

// flags is b's memory as bytes, for arithmetic on 0 and 1 without a
// branch; the kernel stores only 0 and 1 in it (a bool's two
// representations), so b reads as bools again after.
func flags(b []bool) []uint8 {
	return unsafe.Slice((*uint8)(unsafe.Pointer(unsafe.SliceData(b))), len(b))
}

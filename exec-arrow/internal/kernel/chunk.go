package kernel

import (
	"math/bits"
	"slices"

	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/exact"
	"sutura.dev/exec-arrow/internal/groups"
	"sutura.dev/exec-arrow/internal/match"
)

// chunk aggregates the rows of b into p. The pipeline narrows a selection
// vector of row indexes: range and bucket, caller filters on the base
// table, the metrics' required filters (a row stays when it counts for at
// least one metric), the joins, caller filters on joined tables; then it
// packs the group keys, finds the group ids, and runs each metric's
// kernels over the rows that count for it.
func (q *Query) chunk(s *scratch, p *Partial, b *Batch) {
	s.masked = false
	same := q.sameNeeds()
	var n int
	if b.picked != nil {
		n = s.take(b.picked)
	} else {
		if q.direct(s, p, b) {
			return
		}
		n = q.selectRows(s, b, same)
	}
	if n == 0 {
		return
	}
	for i, j := range q.Joins {
		from, fc, keys := s.sel[:n], j.FromCol, s.keys[:n]
		if j.From == 0 {
			fc = b.Cols[j.FromSlot]
		} else {
			from = s.mapped[j.From][:n]
		}
		j.Apply(fc, from, s.mapped[j.To][:n], &s.joinMaps[i], keys)
	}
	for _, f := range q.JoinFilters {
		f.Eval(f.Col, s.mapped[f.Alias][:n], s.pass[:n], nil)
		n = s.compact(n, s.pass, len(s.mapped)-1)
	}
	if n == 0 {
		return
	}
	q.groupIDs(s, p, b, n)
	p.grow(q)
	// With metrics of different required filters, one pass counts each
	// group's positions per combination of metrics (when they are few),
	// and each metric's counts are summed from it.
	var combos []int32
	if !same {
		combos = s.comboHistogram(n, len(p.Rows[0]), len(q.Metrics))
		s.sumSlots = s.sumSlots[:0]
	}
	for m, mp := range q.Metrics {
		ng := len(p.Rows[m])
		rows, gids := s.sel[:n], s.gids[:n]
		masked := len(mp.Required) > 0 && !same
		var h []int32
		if combos != nil {
			// A metric with no required filter holds every position,
			// and its bit is in every mask: its counts are combos' too.
			h = s.metricCounts(combos, m, ng, len(q.Metrics))
		}
		// A metric counted from combos selects its rows only for a term
		// that cannot skip the others by their mask.
		selected := !masked
		if masked && h == nil || masked && !q.maskable(mp, b) {
			rows, gids = s.selectMetric(m, n)
			selected = true
		}
		if h == nil {
			h = s.histogram(gids, ng)
		}
		counts := p.Rows[m]
		if h != nil {
			for g, c := range h {
				counts[g] += int64(c)
			}
		} else {
			for _, g := range gids {
				counts[g]++
			}
		}
		for t, tp := range mp.Terms {
			if !selected {
				// Maskable: a count of a column with no null, counted
				// by h, or an integer sum or average.
				st := p.Terms[m][t]
				if tp.Op == OpSum || tp.Op == opAvg {
					st.iovf |= s.maskedSum(st.i, tp.Slot, b.Cols[tp.Slot], n, m, ng, len(q.Metrics))
				}
				st.addCounts(h)
				continue
			}
			p.Terms[m][t].update(tp, b.Cols[tp.Slot], rows, gids, h)
		}
	}
}

// selectMetric returns the rows and group ids of the positions whose mask
// holds metric m.
func (s *scratch) selectMetric(m, n int) (rows, gids []int32) {
	j := 0
	mask, sel, all, mrows, mgids := s.mask[:n], s.sel[:n], s.gids[:n], s.mrows[:n], s.mgids[:n]
	for k, g := range all {
		mrows[j], mgids[j] = sel[k], g
		j += int(mask[k] >> m & 1) // branch-free: masks are unpredictable
	}
	if j == n {
		return sel, all
	}
	return mrows[:j], mgids[:j]
}

// maskedSum adds to sums, per group, integer column c's values at the n
// positions whose mask holds metric m, and returns the overflow bits.
// Every metric summing c under a mask reads one pass over the positions
// (comboSum): each position's value added to its group's sum for its
// mask, among the masks of nm metrics; a metric's sum for a group is
// then that of the masks holding it (a net sum under one filter and an
// average under another, over one amount: one pass, not two). A pass
// that overflowed gives way to one per metric (exact.SumMasked), as before.
func (s *scratch) maskedSum(sums []int64, slot int, c *column.Column, n, m, ng, nm int) int64 {
	cs, ok := s.comboSum(slot, c, n, ng, nm)
	rows, gids, mask := s.sel[:n], s.gids[:n], s.mask[:n]
	switch {
	case !ok && c.Ints32 != nil:
		return exact.SumMasked(sums, c.Ints32, rows, gids, mask, m)
	case !ok:
		return exact.SumMasked(sums, c.Ints, rows, gids, mask, m)
	}
	var ovf int64
	for g := range ng {
		for mk, x := range cs[g<<nm : (g+1)<<nm] {
			if mk>>m&1 != 0 {
				var o int64
				sums[g], o = exact.AddInt(sums[g], x)
				ovf |= o
			}
		}
	}
	return ovf
}

// comboSum is the sums per group and metric mask (g<<nm|mask) of integer
// column c (slot) over the batch's n positions, found once per batch and
// column; ok is false when one of them overflowed.
func (s *scratch) comboSum(slot int, c *column.Column, n, ng, nm int) (sums []int64, ok bool) {
	if i := slices.Index(s.sumSlots, slot); i >= 0 {
		return s.sums[i], s.sumOK[i]
	}
	i := len(s.sumSlots)
	s.sumSlots = append(s.sumSlots, slot)
	if i == len(s.sums) {
		s.sums, s.sumOK = append(s.sums, nil), append(s.sumOK, false)
	}
	sums = slices.Grow(s.sums[i][:0], ng<<nm)[:ng<<nm]
	clear(sums)
	var ovf int64
	if c.Ints32 != nil {
		ovf = exact.SumCombos(sums, c.Ints32, s.sel[:n], s.gids[:n], s.mask[:n], nm)
	} else {
		ovf = exact.SumCombos(sums, c.Ints, s.sel[:n], s.gids[:n], s.mask[:n], nm)
	}
	s.sums[i], s.sumOK[i] = sums, ovf >= 0
	return sums, ovf >= 0
}

// maxCombined is the most metrics whose combinations comboHistogram
// counts.
const maxCombined = 4

// comboHistogram counts the positions of each group per metric mask
// (group g, mask c at g<<nm|c), or returns nil when the metrics or the
// groups are too many for a batch.
func (s *scratch) comboHistogram(n, ng, nm int) []int32 {
	if nm > maxCombined || 2*ng<<nm > n {
		return nil
	}
	size := ng << nm
	if cap(s.combos) < size {
		s.combos = make([]int32, size)
	}
	h := s.combos[:size]
	clear(h)
	for k, g := range s.gids[:n] {
		h[int(g)<<nm|int(s.mask[k])]++
	}
	return h
}

// metricCounts sums, per group, the combinations that hold metric m.
func (s *scratch) metricCounts(combos []int32, m, ng, nm int) []int32 {
	if cap(s.hist) < ng {
		s.hist = make([]int32, ng)
	}
	h := s.hist[:ng]
	for g := range h {
		var c int32
		for mask, x := range combos[g<<nm : (g+1)<<nm] {
			c += x & -int32(mask>>m&1)
		}
		h[g] = c
	}
	return h
}

// maskable reports whether every term of mp can be updated over all the
// batch's positions, skipping those outside the metric by their mask: an
// integer sum or a count over a column with no null.
func (q *Query) maskable(mp *MetricPlan, b *Batch) bool {
	for _, tp := range mp.Terms {
		c := b.Cols[tp.Slot]
		switch {
		case c.Valid != nil:
			return false
		case tp.Op == opCount:
		case (tp.Op == OpSum || tp.Op == opAvg) && !tp.Float && !tp.Dec:
		default:
			return false
		}
	}
	return true
}

// histogram counts the positions of each group, or returns nil when the
// groups are too many for a batch (then each position is counted where it
// is used). The positions are spread over four lanes, so runs of one group
// (rows in time order) do not wait on their own increments; the lanes
// fold into the first ng counts.
func (s *scratch) histogram(gids []int32, ng int) []int32 {
	if 4*ng > len(gids) {
		return nil
	}
	if cap(s.hist) < 4*ng {
		s.hist = make([]int32, 4*ng)
	}
	if ng == 1 {
		h := s.hist[:1]
		h[0] = int32(len(gids))
		return h
	}
	h := s.hist[:4*ng]
	clear(h)
	k := 0
	for ; k+4 <= len(gids); k += 4 {
		h[gids[k]<<2]++
		h[gids[k+1]<<2|1]++
		h[gids[k+2]<<2|2]++
		h[gids[k+3]<<2|3]++
	}
	for ; k < len(gids); k++ {
		h[gids[k]<<2]++
	}
	for g := range ng {
		h[g] = h[g<<2] + h[g<<2|1] + h[g<<2|2] + h[g<<2|3]
	}
	return h[:ng]
}

// take starts the selection from what a Selector found for the batch.
func (s *scratch) take(pk *picked) int {
	n := len(pk.sel)
	s.sel, s.bucket = s.sel[:n], s.bucket[:n]
	copy(s.sel, pk.sel)
	copy(s.bucket, pk.bucket)
	if pk.masked {
		copy(s.mask[:n], pk.mask)
		s.masked = true
	}
	return n
}

// selectRows narrows the selection to the rows of b that may count: in
// the range (with their bucket), passing the caller's filters on the base
// table, and the required filters every metric needs (same) or, with
// metrics of different needs, those of some metric (each position then
// holds its metric mask). The range and the filters are conjunctions of
// per-row tests, so their order changes no row of the result; the more
// selective side (by the pass rates this scratch has seen) goes first, so
// the other is tested only on its survivors.
func (q *Query) selectRows(s *scratch, b *Batch, same bool) int {
	early := len(q.BaseFilters) > 0 || same && len(q.Needs) > 0 && q.Needs[0] != 0
	ranged := !b.OneBucket && !b.inside // the range is tested per row
	all := b.Hi - b.Lo
	var n int
	switch {
	case ranged && b.picks != nil && early:
		// Members of a union with this range and these early filters
		// share the rows that pass both (found once).
		n = q.sharedPicks(s, b, same)
	case ranged && (b.shared != nil || b.within != nil):
		// Members of a union with this range share its rows: the range
		// goes first (found once), then the filters on its survivors.
		n = q.sharedRange(s, b)
		if m := n; early && n > 0 {
			n = q.earlyFilters(s, b, n, same)
			s.order.Filters(m, n)
		}
	case early && !ranged && s.order.SparseFilters():
		// Every row is in the range and the filters pass few: they go
		// first, and only the survivors' buckets are found.
		n = q.filterSpan(s, b, same)
		s.order.Filters(all, n)
		q.bucketsOf(s, b, n)
	case early && ranged && s.order.FilterFirst():
		n = q.filterSpan(s, b, same)
		s.order.Filters(all, n)
		if m := n; n > 0 {
			n = q.rangeOn(s, b, n)
			s.order.Ranges(m, n)
		}
	default:
		n = q.selectRange(s, b)
		if ranged {
			s.order.Ranges(all, n)
		}
		if m := n; early && n > 0 {
			n = q.earlyFilters(s, b, n, same)
			s.order.Filters(m, n)
		}
	}
	if !same && n > 0 {
		n = q.maskMetrics(s, b, n)
		s.masked = true
	}
	return n
}

// filterSpan selects the rows of b that pass the early filters, buckets
// not set. The first of them, when tested by its outcome per dictionary
// entry over a text column with no null — a cached dictionary's, known
// once, or a streamed batch's own, found for each of its entries — runs
// over the batch's codes in order (no selection vector is read); the
// rest, and any other first filter, over its survivors (the first tested
// again: it passes them all).
func (q *Query) filterSpan(s *scratch, b *Batch, same bool) int {
	var f *match.Predicate
	var m *column.DictMap
	if len(q.BaseFilters) > 0 {
		f, m = q.BaseFilters[0], &s.filterMaps[0]
	} else if i := bits.TrailingZeros64(q.Needs[0]); i < len(q.Required) {
		f, m = q.Required[i], &s.reqMaps[i]
	}
	lo, hi := b.Lo, b.Hi
	var c *column.Column
	if f != nil {
		c = b.Cols[f.Slot]
	}
	if c == nil || c.Valid != nil || f.AnyValue || c.Type != domain.TypeText || c.Idx8 == nil && c.Idx == nil {
		return q.earlyFilters(s, b, s.identity(lo, hi), same)
	}
	res := f.DictOut
	if res == nil || c != f.Col {
		if len(c.Dict) > hi-lo {
			return q.earlyFilters(s, b, s.identity(lo, hi), same)
		}
		m.Reset(c)
		s.outcomes = s.outcomes[:0]
		for k := range c.Dict {
			s.outcomes = append(s.outcomes, f.TextOutcome(c.Dict, m, int32(k)))
		}
		res = s.outcomes
	}
	var j int
	if c.Idx8 != nil {
		j = column.SelectCodes(s.sel[:hi-lo], c.Idx8[lo:hi], lo, res)
	} else {
		j = column.SelectCodes(s.sel[:hi-lo], c.Idx[lo:hi], lo, res)
	}
	s.sel, s.bucket = s.sel[:j], s.bucket[:j]
	return q.earlyFilters(s, b, j, same)
}

// earlyFilters drops the positions failing a caller filter on the base
// table or (same) a required filter every metric needs.
func (q *Query) earlyFilters(s *scratch, b *Batch, n int, same bool) int {
	for i, f := range q.BaseFilters {
		if n > 0 {
			n = s.filter(f, b.Cols[f.Slot], n, &s.filterMaps[i])
		}
	}
	if same && n > 0 {
		n = q.requireAll(s, b, n)
	}
	return n
}

// identity selects every row of [lo, hi), buckets not yet set.
func (s *scratch) identity(lo, hi int) int {
	sel := s.sel[:hi-lo]
	for i := range sel {
		sel[i] = int32(lo + i)
	}
	s.sel, s.bucket = sel, s.bucket[:hi-lo]
	return len(sel)
}

// rangeOn keeps, of the n selected positions, those whose time falls in
// the range, and sets their bucket (selectRange over a selection).
func (q *Query) rangeOn(s *scratch, b *Batch, n int) int {
	sel, bucket := s.sel[:n], s.bucket[:n]
	t := b.Cols[q.TimeSlot]
	start, span, of, valid := q.Start, uint32(q.Span), q.BucketOf, t.Valid
	j := 0
	switch {
	case span == 0:
	case t.Days16 != nil:
		j = column.RangeDays(sel, bucket, t.Days16, start-t.DayBase, span, of, valid)
	case t.Days != nil:
		j = column.RangeDays(sel, bucket, t.Days, start, span, of, valid)
	case valid != nil:
		first, length, ints := int64(start)*perDay, uint64(span)*perDay, t.Ints
		for _, r := range sel {
			o := uint64(ints[r] - first)
			in := column.BitOf(o < length) & int(valid[r>>3]>>(r&7)&1)
			sel[j], bucket[j] = r, of[o/perDay&-uint64(in)]
			j += in
		}
	default:
		// Branch-free, as selectRange's.
		first, length, ints := int64(start)*perDay, uint64(span)*perDay, t.Ints
		for _, r := range sel {
			o := uint64(ints[r] - first)
			in := column.BitOf(o < length)
			sel[j], bucket[j] = r, of[o/perDay&-uint64(in)]
			j += in
		}
	}
	s.sel, s.bucket = sel[:j], bucket[:j]
	return j
}

// perDay is a day's microseconds.
const perDay = 86_400_000_000

// selectRange fills sel with the rows of b whose time falls in the range,
// and bucket with their bucket.
func (q *Query) selectRange(s *scratch, b *Batch) int {
	lo, hi := b.Lo, b.Hi
	sel, bucket := s.sel[:hi-lo], s.bucket[:hi-lo]
	j := 0
	if b.OneBucket {
		for i := range sel {
			sel[i] = int32(lo + i)
		}
		for i := range bucket {
			bucket[i] = b.Bucket
		}
		j = len(sel)
	} else if n, ok := q.selectByDayOf(s, b); ok {
		j = n
	} else {
		t := b.Cols[q.TimeSlot]
		start, span, of := q.Start, uint32(q.Span), q.BucketOf
		valid := t.Valid
		switch {
		case b.inside && t.Days16 != nil:
			j = column.InsideDays(sel, bucket, t.Days16[lo:hi], lo, start-t.DayBase, of)
		case b.inside && t.Days != nil:
			j = column.InsideDays(sel, bucket, t.Days[lo:hi], lo, start, of)
		case b.inside:
			first := int64(start) * perDay
			for i, us := range t.Ints[lo:hi] {
				sel[i], bucket[i] = int32(lo+i), of[uint64(us-first)/perDay]
			}
			j = len(sel)
		case span == 0:
		case t.Days16 != nil:
			j = column.SelectDays(sel, bucket, t.Days16[lo:hi], lo, start-t.DayBase, span, of, valid)
		case t.Days != nil:
			j = column.SelectDays(sel, bucket, t.Days[lo:hi], lo, start, span, of, valid)
		default:
			// A time is in the range when its offset from the range's
			// first microsecond, unsigned, is below the range's length
			// (a time before the range wraps to a large offset); its day
			// is then that offset over a day's microseconds, a division
			// of non-negative numbers.
			first, length := int64(start)*perDay, uint64(span)*perDay
			// Branch-free: times in no order would make a branch on the
			// range a coin toss per row. Every row is written at j (a
			// row outside the range with bucket 0's day), and j moves
			// past the rows in the range (and not null).
			if s.order.SparseRange() {
				// Few rows were in the range so far: select first, and
				// find the day of the selected rows only.
				// Their times were just read: no gather (bucketsOf).
				ints := t.Ints
				j = column.SelectTimes(sel, ints[lo:hi], lo, first, length, valid)
				for k, r := range sel[:j] {
					bucket[k] = of[uint64(ints[r]-first)/perDay]
				}
				break
			}
			if valid != nil {
				for i, us := range t.Ints[lo:hi] {
					o, r := uint64(us-first), lo+i
					in := column.BitOf(o < length) & int(valid[r>>3]>>(r&7)&1)
					sel[j], bucket[j] = int32(r), of[o/perDay&-uint64(in)]
					j += in
				}
				break
			}
			for i, us := range t.Ints[lo:hi] {
				o := uint64(us - first)
				in := column.BitOf(o < length)
				sel[j], bucket[j] = int32(lo+i), of[o/perDay&-uint64(in)]
				j += in
			}
		}
	}
	s.sel, s.bucket = sel[:j], bucket[:j]
	return j
}

// selectByDayOf selects the rows of cached segment b in the range through
// its day index (Batch.days, column.DayIndex.Select), when they are few:
// in day order when any order will do, else in row order.
func (q *Query) selectByDayOf(s *scratch, b *Batch) (n int, ok bool) {
	if b.days == nil || b.inside || q.Span == 0 {
		return 0, false
	}
	n = b.Hi - b.Lo
	return b.days.Select(b.seg, b.Lo, n, q.Start, q.Start+q.Span, q.BucketOf, s.sel[:n], s.bucket[:n], !b.anyOrder)
}

// bucketsOf sets the bucket of each of the n selected rows of b, whose
// times are in the range and not null.
func (q *Query) bucketsOf(s *scratch, b *Batch, n int) {
	sel, bucket, of, t := s.sel[:n], s.bucket[:n], q.BucketOf, b.Cols[q.TimeSlot]
	switch {
	case b.OneBucket:
		for k := range bucket {
			bucket[k] = b.Bucket
		}
	case t.Days16 != nil:
		column.BucketDays(bucket, sel, t.Days16, q.Start-t.DayBase, of)
	case t.Days != nil:
		column.BucketDays(bucket, sel, t.Days, q.Start, of)
	default:
		// The times are gathered first (column.Gather), a block at a time.
		first, ints := int64(q.Start)*perDay, t.Ints
		var times [256]int64
		for k0 := 0; k0 < n; k0 += len(times) {
			rows := sel[k0:min(k0+len(times), n)]
			for k, us := range column.Gather(times[:], ints, rows) {
				bucket[k0+k] = of[uint64(us-first)/perDay]
			}
		}
	}
	s.sel, s.bucket = sel, bucket
}

// sameNeeds reports whether every metric needs the same required
// filters: a row that passes them then counts for every metric, and no
// per-metric mask is kept.
func (q *Query) sameNeeds() bool {
	for _, need := range q.Needs {
		if need != q.Needs[0] {
			return false
		}
	}
	return true
}

// requireAll drops the positions that fail a required filter every metric
// needs (when the metrics need the same ones).
func (q *Query) requireAll(s *scratch, b *Batch, n int) int {
	if len(q.Needs) == 0 {
		return n
	}
	need := q.Needs[0]
	for i, rp := range q.Required {
		if need>>i&1 == 0 || n == 0 {
			continue
		}
		n = s.filter(rp, b.Cols[rp.Slot], n, &s.reqMaps[i])
	}
	return n
}

// maskMetrics sets each position's metric mask from the required filters
// and drops the positions no metric counts.
func (q *Query) maskMetrics(s *scratch, b *Batch, n int) int {
	all := uint64(1)<<len(q.Metrics) - 1
	if len(q.Required) == 0 {
		for k := 0; k < n; k++ {
			s.mask[k] = all
		}
		return n
	}
	pass := s.pass[:n]
	j := 0
	sel, bucket, mask := s.sel[:n], s.bucket[:n], s.mask[:n]
	if len(q.Required) == 1 {
		// One required filter: its outcome is the combination.
		q.Required[0].Eval(b.Cols[q.Required[0].Slot], sel, pass, &s.reqMaps[0])
		table := [2]uint64{q.metricMask(0), q.metricMask(1)}
		for k, ok := range pass {
			m := table[column.BitOf(ok)]
			sel[j], bucket[j], mask[j] = sel[k], bucket[k], m
			j += column.BitOf(m != 0)
		}
		s.sel, s.bucket = s.sel[:j], s.bucket[:j]
		return j
	}
	// bits[k] holds bit i when required filter i passes at position k.
	bits := s.keys[:n]
	clear(bits)
	for i, rp := range q.Required {
		rp.Eval(b.Cols[rp.Slot], s.sel[:n], pass, &s.reqMaps[i])
		for k, ok := range pass {
			bits[k] |= uint64(column.BitOf(ok)) << i // branch-free: filters are unpredictable
		}
	}
	// With few required filters, the mask of every combination of them
	// is looked up rather than computed per position.
	if len(q.Required) <= maxTabled {
		var table [1 << maxTabled]uint64
		for c := range 1 << len(q.Required) {
			table[c] = q.metricMask(uint64(c))
		}
		for k, c := range bits {
			m := table[c&(1<<maxTabled-1)]
			sel[j], bucket[j], mask[j] = sel[k], bucket[k], m
			j += column.BitOf(m != 0)
		}
	} else {
		for k, c := range bits {
			m := q.metricMask(c)
			sel[j], bucket[j], mask[j] = sel[k], bucket[k], m
			j += column.BitOf(m != 0)
		}
	}
	s.sel, s.bucket = s.sel[:j], s.bucket[:j]
	return j
}

// maxTabled is the most required filters whose combinations maskMetrics
// tabulates.
const maxTabled = 6

// metricMask is the mask of the metrics whose required filters all pass
// in b (bit i: required filter i passes).
func (q *Query) metricMask(b uint64) uint64 {
	var m uint64
	for mi, need := range q.Needs {
		m |= uint64(column.BitOf(b&need == need)) << mi
	}
	return m
}

// filter drops the positions whose base row fails p (c is the batch's
// column of it), before any join is mapped and any metric mask set. A
// column with no null whose outcome is known per dictionary entry or per
// boolean value is tested and compacted in one pass; others go through
// eval and compact.
func (s *scratch) filter(p *match.Predicate, c *column.Column, n int, m *column.DictMap) int {
	sel, bucket := s.sel[:n], s.bucket[:n]
	var res []bool // outcome per dictionary index
	switch {
	case c.Valid != nil || p.AnyValue:
	case c.Type == domain.TypeText && p.DictOut != nil && c == p.Col:
		res = p.DictOut
	case c.Type == domain.TypeText && len(c.Dict) <= n:
		m.Reset(c)
		for k := range c.Dict {
			p.TextOutcome(c.Dict, m, int32(k))
		}
		var j int
		if c.Idx8 != nil {
			j = keepCoded(sel, bucket, c.Idx8, m.Vals)
		} else {
			j = keepCoded(sel, bucket, c.Idx, m.Vals)
		}
		s.sel, s.bucket = sel[:j], bucket[:j]
		return j
	case c.Type == domain.TypeBoolean:
		out := p.BoolOutcomes()
		bits, j := c.BoolBits, 0
		for k, r := range sel {
			sel[j], bucket[j] = r, bucket[k]
			j += column.BitOf(out[bits[r>>3]>>(r&7)&1])
		}
		s.sel, s.bucket = sel[:j], bucket[:j]
		return j
	}
	if res == nil {
		p.Eval(c, sel, s.pass[:n], m)
		return s.compact(n, s.pass, 0)
	}
	var j int
	if c.Idx8 != nil {
		j = keepPassing(sel, bucket, c.Idx8, res)
	} else {
		j = keepPassing(sel, bucket, c.Idx, res)
	}
	s.sel, s.bucket = sel[:j], bucket[:j]
	return j
}

// keepCoded keeps, in place, the rows sel[k] (and their buckets) whose
// dictionary index has outcome 1 in vals (every entry's is 0 or 1), and
// returns how many.
func keepCoded[I column.Index](sel, bucket []int32, idx []I, vals []int32) int {
	j := 0
	for k, r := range sel {
		sel[j], bucket[j] = r, bucket[k]
		j += int(vals[idx[r]])
	}
	return j
}

// keepPassing is keepCoded of outcomes as booleans.
func keepPassing[I column.Index](sel, bucket []int32, idx []I, res []bool) int {
	j := 0
	for k, r := range sel {
		sel[j], bucket[j] = r, bucket[k]
		j += column.BitOf(res[idx[r]])
	}
	return j
}

// compact keeps the positions where keep is true, moving the mapped rows
// of aliases 1..joined along (and the metric masks, once they are set).
func (s *scratch) compact(n int, keep []bool, joined int) int {
	sel, bucket, keep := s.sel[:n], s.bucket[:n], keep[:n]
	j := 0
	switch {
	case joined > 0 || s.masked:
		mask := s.mask[:n]
		for k := range sel {
			sel[j], bucket[j], mask[j] = sel[k], bucket[k], mask[k]
			for a := 1; a <= joined; a++ {
				s.mapped[a][j] = s.mapped[a][k]
			}
			j += column.BitOf(keep[k])
		}
	default:
		for k := range sel {
			sel[j], bucket[j] = sel[k], bucket[k]
			j += column.BitOf(keep[k])
		}
	}
	s.sel, s.bucket = sel[:j], bucket[:j]
	return j
}

// groupIDs computes the group id of every position. Dimensions the worker
// numbers itself are coded first, since their codes may grow the key
// space; then the keys are packed (or held whole) and looked up.
func (q *Query) groupIDs(s *scratch, p *Partial, b *Batch, n int) {
	if len(q.Dims) == 0 && len(q.Buckets) == 1 {
		// One group (a range of one period grouped by nothing: an
		// anchor): every row's id is its.
		var id int32
		if g := p.Groups; g.Packed() {
			id = g.PackedID(0)
		} else {
			id = g.WideID(groups.Key{})
		}
		for k := range s.gids[:n] {
			s.gids[k] = id
		}
		return
	}
	rowsOf := func(alias int) []int32 {
		if alias == 0 {
			return s.sel[:n]
		}
		return s.mapped[alias][:n]
	}
	for d, dim := range q.Dims {
		if dim.Codes != nil {
			continue
		}
		c, book, m := b.Cols[dim.Slot], p.Books[d], &p.maps[d]
		dc := s.dcodes[d][:n]
		if c.Type == domain.TypeText {
			m.Reset(c)
			if c.Idx8 != nil {
				codeTexts(dc, s.sel[:n], c, c.Idx8, book, m)
			} else {
				codeTexts(dc, s.sel[:n], c, c.Idx, book, m)
			}
		} else {
			for k, r := range s.sel[:n] {
				dc[k] = book.CodeOf(c, r, m)
			}
		}
		p.Groups.Grow(d, book.Card())
	}
	g := p.Groups
	if !g.Packed() {
		for k := 0; k < n; k++ {
			var key groups.Key
			key[0] = uint32(s.bucket[k])
			for d, dim := range q.Dims {
				if dim.Codes == nil {
					key[d+1] = uint32(s.dcodes[d][k])
				} else if r := rowsOf(dim.Alias)[k]; r >= 0 {
					key[d+1] = uint32(dim.Codes.Code(r))
				}
			}
			s.gids[k] = g.WideID(key)
		}
		return
	}
	keys := s.keys[:n]
	for k, bk := range s.bucket[:n] {
		keys[k] = uint64(bk)
	}
	for d, dim := range q.Dims {
		radix := g.Radix(d)
		if dim.Codes == nil {
			for k, c := range s.dcodes[d][:n] {
				keys[k] = keys[k]*radix + uint64(c)
			}
			continue
		}
		if dim.Codes.Codes8 != nil {
			packCodes(keys, rowsOf(dim.Alias), dim.Codes.Codes8, dim.Codes.Plus, radix)
		} else {
			packCodes(keys, rowsOf(dim.Alias), dim.Codes.Codes, dim.Codes.Plus, radix)
		}
	}
	g.PackedIDs(keys, s.gids[:n])
}

// codeTexts sets dc[k] to the worker's code (book's) of text column c's
// row rows[k], 0 when null; idx are c's dictionary indexes, and m caches
// the code of each entry.
func codeTexts[I column.Index](dc, rows []int32, c *column.Column, idx []I, book *groups.Codebook, m *column.DictMap) {
	valid := c.Valid
	for k, r := range rows {
		if valid != nil && !bitutil.BitIsSet(valid, int(r)) {
			dc[k] = 0
			continue
		}
		i := idx[r]
		code := m.Vals[i]
		if code < 0 {
			code = book.Text(c.Dict[i])
			m.Vals[i] = code
		}
		dc[k] = code
	}
}

// packCodes appends to each keys[k] the code of row rows[k] (codes[r] +
// plus; 0 for no row, -1) as one more digit of radix.
func packCodes[C column.Index](keys []uint64, rows []int32, codes []C, plus int32, radix uint64) {
	for k, r := range rows {
		var c uint64
		if r >= 0 {
			c = uint64(int32(codes[r]) + plus)
		}
		keys[k] = keys[k]*radix + c
	}
}

// Selector finds, for a producer decoding a batch, the rows that may
// count (late materialisation): rows in the range that pass the caller's
// filters on the base table and the required filters of some metric, as
// chunk selects them. It reads only the columns of SelectSlots; the
// producer decodes the others only for batches with such rows, and may
// leave the values of the other rows out (null).
type Selector struct {
	q  *Query
	s  *scratch
	pk picked
	// A union's: each member's selector and batch, and their placing;
	// what its members share (memberShares).
	members []*Selector
	batches []Batch
	zones   *memberZones
	shares  memberShares
	lent    *scratch // the per-row buffers its members pick with in turn (pickScratch)
}

// NewSelector returns a selector of q's rows; Release gives back its
// buffers.
func (q *Query) NewSelector() *Selector { return &Selector{q: q, s: newScratch(q)} }

// Release gives back the selector's buffers.
func (sl *Selector) Release() {
	if sl.lent != nil {
		putScratch(sl.lent) // the members' own buffers are left to the collector
	}
	putScratch(sl.s)
}

// SelectSlots are the base slots a Selector reads: the time column's
// and those of the base-table and required filters.
func (q *Query) SelectSlots() []int {
	if q.union() {
		return q.unionSlots()
	}
	slots := []int{q.TimeSlot}
	for _, f := range q.BaseFilters {
		slots = append(slots, f.Slot)
	}
	for _, f := range q.Required {
		slots = append(slots, f.Slot)
	}
	return slots
}

// Rows returns the rows of b that may count (b's columns of the slots
// SelectSlots does not name may be nil), in a slice of the selector's,
// valid until its next call. It records them (with their buckets and
// metric masks) in b, so that the aggregation of b, before that next
// call, starts from them instead of selecting again.
func (sl *Selector) Rows(b *Batch) []int32 {
	s, q := sl.s, sl.q
	if q.union() {
		return sl.unionRows(b)
	}
	s.masked = false
	n := q.selectRows(s, b, q.sameNeeds())
	sl.pk = picked{sel: s.sel[:n], bucket: s.bucket[:n], masked: s.masked}
	if s.masked {
		sl.pk.mask = s.mask[:n]
	}
	b.picked = &sl.pk
	return s.sel[:n]
}

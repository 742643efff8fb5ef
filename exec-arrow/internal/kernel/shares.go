package kernel

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"sutura.dev/exec-arrow/internal/kept"
)

// memberShares are what several members of a union compute alike for a
// batch, found once per batch by the first of them and read by the
// others:
//
//   - a range: members reading one time column over one range (anchors
//     over one year, with a question over it by month) on rows in no
//     order, where no zone places them, test that range once
//     (sharedRange);
//   - a range inside another: a member over a range that another
//     member's range holds (an anchor's month in a question's quarter)
//     tests its own only on the rows the other found in it, when the
//     other has found them for this batch;
//   - a range and the filters tested early on its rows: members of one
//     such range whose early filters (caller filters on the base table,
//     and the required filters every metric needs) are the same start
//     from the rows the first of them kept (sharedRange, picks);
//   - a filter set: members whose batch the direct kernel aggregates
//     (in one bucket, or inside the range) under the same caller and
//     required filters (anchors under "not cancelled", say) test those
//     filters once (sharedKeep).
type memberShares struct {
	// order is the order the members take a batch in: wider ranges
	// first, so that a range is found before those it holds.
	order                   []int
	rangeOf, pickOf, keepOf []int // per member, its share of each kind, -1 when none
	// withinOf is, per member, the range share of the narrowest other
	// range of its time column holding its range, -1 when none.
	withinOf      []int
	ranges, picks []sharedRange
	keeps         []sharedKeep
}

// sharedRange is one batch's rows in a shared range (not null), or in
// that range and passing a shared set of early filters, with their
// buckets as the member that found them (of its buckets by day) buckets
// them; found once per batch.
type sharedRange struct {
	sel, bucket, of []int32
	found           bool
}

// sharedKeep is one batch's flags of the rows passing a shared filter set
// (direct), in the buffer of the member that found them: read, never
// written, by the others before that member's next batch.
type sharedKeep struct {
	keep  []uint8
	found bool
}

// SharedRangeHook and SharedFilterHook, when set (by tests only), run for
// every batch a member starts from the rows another member found in
// their range, or from the rows another found passing their filters.
var SharedRangeHook, SharedFilterHook func()

// NestedRangeHook, when set (by tests only), runs for every batch a
// member tests its range on the rows another member found in a range
// holding it.
var NestedRangeHook func()

func newMemberShares(q *Query) memberShares {
	type rangeKey struct {
		slot        int
		start, span int32
	}
	type pickKey struct {
		rangeKey
		early string
	}
	n := len(q.Members)
	rangeKeys, pickKeys, keepKeys := make([]rangeKey, n), make([]pickKey, n), make([]string, n)
	rangeMay, pickMay, keepMay := make([]bool, n), make([]bool, n), make([]bool, n)
	for i, mb := range q.Members {
		rangeKeys[i], rangeMay[i] = rangeKey{mb.timeSlot(), mb.Q.Start, mb.Q.Span}, mb.Slots != nil && mb.Q.Span > 0
		pickKeys[i] = pickKey{rangeKeys[i], earlyFilterKey(mb)}
		pickMay[i] = rangeMay[i] && pickKeys[i].early != ""
		keepKeys[i] = directFilters(mb)
		keepMay[i] = keepKeys[i] != ""
	}
	// A member's range held by another (found first in each batch: the
	// members take a batch widest range first) is selected from that
	// range's rows: the narrowest such range, shared even when one
	// member alone reads it.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(q.Members[b].Q.Span, q.Members[a].Q.Span) })
	outer := make([]int, n) // per member, the member whose range holds its own, -1: none
	holds := map[rangeKey]bool{}
	for i, k := range rangeKeys {
		outer[i] = -1
		for j, o := range rangeKeys {
			if !rangeMay[i] || !rangeMay[j] || o == k || o.slot != k.slot || o.start > k.start || o.start+o.span < k.start+k.span {
				continue
			}
			if c := outer[i]; c < 0 || o.span < rangeKeys[c].span {
				outer[i] = j
			}
		}
		if outer[i] >= 0 {
			holds[rangeKeys[outer[i]]] = true
		}
	}
	ms := memberShares{order: order}
	var ranges, picks, keeps int
	ms.rangeOf, ranges = sharesOf(rangeKeys, rangeMay, holds)
	ms.pickOf, picks = sharesOf(pickKeys, pickMay, nil)
	ms.keepOf, keeps = sharesOf(keepKeys, keepMay, nil)
	ms.withinOf = make([]int, n)
	for i, j := range outer {
		ms.withinOf[i] = -1
		if j >= 0 {
			ms.withinOf[i] = ms.rangeOf[j]
		}
	}
	ms.ranges, ms.picks, ms.keeps = make([]sharedRange, ranges), make([]sharedRange, picks), make([]sharedKeep, keeps)
	return ms
}

// sharesOf numbers the keys more than one member has, or any member has
// that alone marks, among the members that may share (may), in the order
// first met: of[i] is member i's share, -1 when it has none; n is how
// many shares there are.
func sharesOf[K comparable](keys []K, may []bool, alone map[K]bool) (of []int, n int) {
	count := map[K]int{}
	for i, k := range keys {
		if may[i] {
			count[k]++
		}
	}
	index := map[K]int{}
	of = make([]int, len(keys))
	for i, k := range keys {
		of[i] = -1
		if !may[i] || count[k] < 2 && !alone[k] {
			continue
		}
		j, ok := index[k]
		if !ok {
			j = len(index)
			index[k] = j
		}
		of[i] = j
	}
	return of, len(index)
}

// directFilters is the filter set the direct kernel tests for member mb
// (its caller filters and the required filters its metrics need), as
// text naming each filter's column by its slot of the union; "" when the
// direct kernel does not take mb's batches.
func directFilters(mb Member) string {
	if !mb.Q.DirectOK || mb.Slots == nil {
		return ""
	}
	return filterKey(mb, "direct", len(mb.Q.Needs) > 0) // not "" when there is no filter
}

// earlyFilterKey is the set of filters selectRows tests early for member
// mb (its caller filters on the base table and, when every metric needs
// the same, the required filters they need), as text naming each filter's
// column by its slot of the union; "" when it tests none.
func earlyFilterKey(mb Member) string {
	q := mb.Q
	all := q.sameNeeds() && len(q.Needs) > 0 && q.Needs[0] != 0
	if mb.Slots == nil || len(q.BaseFilters) == 0 && !all {
		return ""
	}
	return filterKey(mb, "early", all)
}

// filterKey is kind, then one line per filter of member mb's caller
// filters on the base table and (required) the required filters its
// first metric needs: the filter's union slot and match.Predicate.Key, in
// sorted order (a conjunction: the order keeps the same rows).
func filterKey(mb Member, kind string, required bool) string {
	q := mb.Q
	tests := []string{kind}
	for _, f := range q.BaseFilters {
		tests = append(tests, strconv.Itoa(mb.Slots[f.Slot])+" "+f.Key())
	}
	if required {
		for i, rp := range q.Required {
			if q.Needs[0]>>i&1 != 0 {
				tests = append(tests, strconv.Itoa(mb.Slots[rp.Slot])+" "+rp.Key())
			}
		}
	}
	slices.Sort(tests[1:])
	return strings.Join(tests, "\n")
}

// next starts a batch: nothing shared is found yet.
func (ms *memberShares) next() {
	for i := range ms.ranges {
		ms.ranges[i].found = false
	}
	for i := range ms.picks {
		ms.picks[i].found = false
	}
	for i := range ms.keeps {
		ms.keeps[i].found = false
	}
}

// lend gives member i's batch mb its shares: its range and its range's
// rows passing its early filters, when it tests the range row by row over
// this batch (its zone placed it neither outside nor inside the range:
// members of one range are placed alike), and its filter set.
func (ms *memberShares) lend(i int, mb *Batch) {
	mb.shared, mb.within, mb.picks, mb.keeps = nil, nil, nil, nil
	if !mb.OneBucket && !mb.inside {
		if j := ms.rangeOf[i]; j >= 0 {
			mb.shared = &ms.ranges[j]
			if j := ms.pickOf[i]; j >= 0 {
				mb.picks = &ms.picks[j]
			}
		}
		if j := ms.withinOf[i]; j >= 0 && ms.ranges[j].found {
			mb.within = &ms.ranges[j]
		}
	}
	if j := ms.keepOf[i]; j >= 0 {
		mb.keeps = &ms.keeps[j]
	}
}

// sharedRange selects the rows of b in q's range, with their buckets: as
// the first member of its share found them for this batch, or finding
// them — among the rows of a range holding q's (b.within), else over the
// batch (selectRange) — and keeping them for the others.
func (q *Query) sharedRange(s *scratch, b *Batch) int {
	sr := b.shared
	if sr != nil && sr.found {
		if SharedRangeHook != nil {
			SharedRangeHook()
		}
		return q.take(s, b, sr)
	}
	var n int
	if w := b.within; w != nil {
		// A range holding this one has found its rows: only they are
		// tested.
		if NestedRangeHook != nil {
			NestedRangeHook()
		}
		n = len(w.sel)
		s.sel, s.bucket = s.sel[:n], s.bucket[:n]
		copy(s.sel, w.sel)
		n = q.rangeOn(s, b, n)
	} else {
		n = q.selectRange(s, b)
	}
	s.order.Ranges(b.Hi-b.Lo, n)
	if sr != nil {
		sr.keep(q, s, n)
	}
	return n
}

// sharedPicks selects the rows of b in q's range that pass its early
// filters, with their buckets: as the first member of its share found
// them for this batch, or finding them from its shared range
// (sharedRange, earlyFilters) and keeping them for the others.
func (q *Query) sharedPicks(s *scratch, b *Batch, same bool) int {
	sp := b.picks
	if sp.found {
		if SharedFilterHook != nil {
			SharedFilterHook()
		}
		return q.take(s, b, sp)
	}
	n := q.sharedRange(s, b)
	if m := n; n > 0 {
		n = q.earlyFilters(s, b, n, same)
		s.order.Filters(m, n)
	}
	sp.keep(q, s, n)
	return n
}

// keep records the n rows s selected, and their buckets by q's, as this
// batch's share.
func (sr *sharedRange) keep(q *Query, s *scratch, n int) {
	sr.sel = append(sr.sel[:0], s.sel[:n]...)
	sr.bucket = append(sr.bucket[:0], s.bucket[:n]...)
	sr.of, sr.found = q.BucketOf, true
}

// take selects the rows of share sr, with their buckets: sr's when q
// buckets days alike, else found again.
func (q *Query) take(s *scratch, b *Batch, sr *sharedRange) int {
	n := len(sr.sel)
	s.sel, s.bucket = s.sel[:n], s.bucket[:n]
	copy(s.sel, sr.sel)
	if slices.Equal(sr.of, q.BucketOf) {
		copy(s.bucket, sr.bucket)
	} else {
		q.bucketsOf(s, b, n)
	}
	return n
}

// directKeep returns the flags of b's rows passing the direct kernel's
// tests: as the first member of b's filter share found them, or testing
// them into keep, or into the share's own buffer when b has a share
// (keeping them for the others).
func directKeep(b *Batch, keep []uint8, tests []directTest) []uint8 {
	sk := b.keeps
	if sk != nil && sk.found {
		if SharedFilterHook != nil {
			SharedFilterHook()
		}
		return sk.keep
	}
	if sk != nil {
		// Kept for the members after this one, which write keep's
		// buffer: it is the worker's, lent to each member (lendRows).
		keep = slices.Grow(sk.keep[:0], len(keep))[:len(keep)]
	}
	kept.Fill(keep)
	for _, t := range tests {
		t.apply(keep, b.Lo, b.Hi)
	}
	if sk != nil {
		sk.keep, sk.found = keep, true
	}
	return keep
}

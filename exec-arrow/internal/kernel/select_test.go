package kernel

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/match"
	"sutura.dev/exec-arrow/internal/passrate"
)

// selectRows is the same set of rows whichever of the range and the
// filters goes first, and a batch handed on with a Selector's rows
// (Batch.picked) aggregates to what the batch alone does: same groups,
// same row counts, same term values, over questions with a required
// filter every metric needs, metrics of different needs (masks), a
// caller filter, time (timestamp or date) and filter columns with and
// without nulls, and batches that do not start at row 0.
func TestPickedAndOrderedSelectionsKeepTheAnswer(t *testing.T) {
	const n, start, span = 20_000, int32(20_000), int32(60)
	rng := rand.New(rand.NewPCG(3, 4))
	id := func() uint64 { return column.ColumnIDs.Add(1) }
	tcol := &column.Column{ID: id(), Name: "t", Type: domain.TypeTimestamp, N: n, Ints: make([]int64, n)}
	kind := &column.Column{ID: id(), Name: "kind", Type: domain.TypeText, N: n, Idx: make([]int32, n),
		Dict: []string{"view", "click", "purchase"}}
	amount := &column.Column{ID: id(), Name: "amount", Type: domain.TypeInteger, N: n, Ints: make([]int64, n)}
	nulls := func(every int) []byte {
		v := make([]byte, (n+7)/8)
		for i := range n {
			if i%every != 3 {
				bitutil.SetBit(v, i)
			}
		}
		return v
	}
	for i := range n {
		tcol.Ints[i] = int64(start-30+rng.Int32N(2*span))*perDay + rng.Int64N(perDay)
		switch k := rng.IntN(100); {
		case k < 5:
			kind.Idx[i] = 2
		case k < 30:
			kind.Idx[i] = 1
		}
		amount.Ints[i] = rng.Int64N(1000) - 100
	}
	bucketOf := make([]int32, span)
	for d := range bucketOf {
		bucketOf[d] = int32(d) / 7
	}
	purchase := textPredicate(1, kind, []string{"purchase"}, false, false, nil)
	clickOrBuy := textPredicate(1, kind, []string{"click", "purchase"}, false, false, nil)
	notView := textPredicate(1, kind, []string{"view"}, true, true, nil)
	terms := func() []*TermPlan {
		return []*TermPlan{{Op: OpSum, Slot: 2, Col: amount}, {Op: opCount, Slot: 2, Col: amount}}
	}
	metrics := func(needs []uint64) []*MetricPlan {
		var ms []*MetricPlan
		for i, need := range needs {
			mp := &MetricPlan{Name: fmt.Sprint("m", i), Terms: terms()}
			for r := range 64 {
				if need>>r&1 != 0 {
					mp.Required = append(mp.Required, r)
				}
			}
			ms = append(ms, mp)
		}
		return ms
	}
	shapes := []struct {
		name     string
		filters  []*match.Predicate
		required []*match.Predicate
		needs    []uint64
	}{
		{"required by every metric", nil, []*match.Predicate{purchase}, []uint64{1, 1}},
		{"metrics of different needs", nil, []*match.Predicate{purchase, notView}, []uint64{1, 2}},
		{"caller filter", []*match.Predicate{clickOrBuy}, nil, []uint64{0, 0}},
		{"caller filter and required", []*match.Predicate{notView}, []*match.Predicate{purchase}, []uint64{1, 1}},
	}
	for _, sh := range shapes {
		for _, cs := range []struct{ tnull, knull, date bool }{
			{false, false, false}, {false, true, false}, {true, false, false}, {true, true, false},
			{false, false, true}, {true, true, true},
		} {
			tnull, knull := cs.tnull, cs.knull
			{
				t.Run(fmt.Sprintf("%s, time nulls %v, kind nulls %v, date %v", sh.name, tnull, knull, cs.date), func(t *testing.T) {
					tc, kc := *tcol, *kind
					tc.ID, kc.ID = id(), id()
					if cs.date {
						tc.Type, tc.Ints, tc.Days = domain.TypeDate, nil, make([]arrow.Date32, n)
						for i, us := range tcol.Ints {
							tc.Days[i] = arrow.Date32(us / perDay)
						}
					}
					if tnull {
						tc.Valid = nulls(13)
					}
					if knull {
						kc.Valid = nulls(7)
					}
					q := &Query{Rows: n, Parallel: 1, Aliases: 1, Base: []*column.Column{tcol, kind, amount},
						Start: start, Span: span, BucketOf: bucketOf, Buckets: make([]domain.Date, 9),
						BaseFilters: sh.filters, Required: sh.required, Metrics: metrics(sh.needs), Needs: sh.needs}
					cols := []*column.Column{&tc, &kc, amount}
					batches := func() []*Batch {
						return []*Batch{{Lo: 0, Hi: 9_000, Cols: cols}, {Lo: 9_000, Hi: n, Cols: cols}}
					}
					run := func(first, picked bool) (*Partial, []int) {
						s, p := newScratch(q), newPartial(q)
						defer putScratch(s)
						clear(s.mask[:cap(s.mask)]) // no masks left by an earlier run
						clear(s.bucket[:cap(s.bucket)])
						var sl *Selector
						if picked {
							sl = q.NewSelector()
							defer sl.Release()
						}
						var sizes []int
						for _, b := range batches() {
							if first {
								// Rates that put the filters first.
								s.order = passrate.Rates{RangeIn: 10, RangeOut: 9, FilterIn: 10, FilterOut: 1}
								if sl != nil {
									sl.s.order = s.order
								}
							}
							if sl != nil {
								sizes = append(sizes, len(sl.Rows(b)))
								if first && (len(sh.filters) > 0 || sh.needs[0] == sh.needs[1] && sh.needs[0] != 0) {
									// Every row of the batch was filtered first.
									if got := sl.s.order.FilterIn; got != 10+int64(b.Hi-b.Lo) {
										t.Fatalf("filters tested on %d positions, want every row first", got-10)
									}
								}
							} else {
								sizes = append(sizes, q.selectRows(s, b, q.sameNeeds()))
							}
							q.chunk(s, p, b)
						}
						return p, sizes
					}
					want, wantSizes := run(false, false)
					if want.Groups.Len() == 0 {
						t.Fatal("no group: the test selects nothing")
					}
					for _, c := range []struct{ first, picked bool }{{true, false}, {false, true}, {true, true}} {
						got, sizes := run(c.first, c.picked)
						name := fmt.Sprintf("filters first %v, picked %v", c.first, c.picked)
						if fmt.Sprint(sizes) != fmt.Sprint(wantSizes) {
							t.Fatalf("%s: selected %v rows, want %v", name, sizes, wantSizes)
						}
						if got.Groups.Len() != want.Groups.Len() {
							t.Fatalf("%s: %d groups, want %d", name, got.Groups.Len(), want.Groups.Len())
						}
						for m, mp := range q.Metrics {
							if fmt.Sprint(got.Rows[m]) != fmt.Sprint(want.Rows[m]) {
								t.Fatalf("%s: metric %d rows %v, want %v", name, m, got.Rows[m], want.Rows[m])
							}
							for ti, tp := range mp.Terms {
								for g := range want.Groups.Len() {
									a, b := tp.Finish(got.Terms[m][ti], nil, nil, g), tp.Finish(want.Terms[m][ti], nil, nil, g)
									if a != b {
										t.Fatalf("%s: metric %d term %d group %d: %+v, want %+v", name, m, ti, g, a, b)
									}
								}
							}
						}
					}
				})
			}
		}
	}
}

// selectRange and rangeOn keep exactly the rows whose time is not null
// and falls in the range, each with its day's bucket, for times before,
// in and after the range (day boundaries included), timestamp or date,
// with and without nulls.
func TestSelectRangeMatchesRowByRow(t *testing.T) {
	const n, start, span = 5_000, int32(20_000), int32(40)
	rng := rand.New(rand.NewPCG(5, 6))
	bucketOf := make([]int32, span)
	for d := range bucketOf {
		bucketOf[d] = int32(d) / 3
	}
	ints := make([]int64, n)
	for i := range ints {
		d := int64(start - 20 + rng.Int32N(2*span))
		switch i % 4 {
		case 0:
			ints[i] = d * perDay // a day's first microsecond
		case 1:
			ints[i] = d*perDay - 1 // the day before's last
		default:
			ints[i] = d*perDay + rng.Int64N(perDay)
		}
	}
	valid := make([]byte, (n+7)/8)
	for i := range n {
		if i%9 != 4 {
			bitutil.SetBit(valid, i)
		}
	}
	for _, date := range []bool{false, true} {
		for _, nulls := range []bool{false, true} {
			c := &column.Column{Type: domain.TypeTimestamp, N: n, Ints: ints}
			if date {
				c = &column.Column{Type: domain.TypeDate, N: n, Days: make([]arrow.Date32, n)}
				for i, us := range ints {
					c.Days[i] = arrow.Date32(floorDiv(us, perDay))
				}
			}
			if nulls {
				c.Valid = valid
			}
			q := &Query{Rows: n, Start: start, Span: span, BucketOf: bucketOf, Buckets: make([]domain.Date, 14)}
			var wantSel, wantBucket []int32
			lo, hi := 700, n
			for r := lo; r < hi; r++ {
				d := int32(floorDiv(ints[r], perDay)) - start
				if (!nulls || bitutil.BitIsSet(valid, r)) && d >= 0 && d < span {
					wantSel, wantBucket = append(wantSel, int32(r)), append(wantBucket, bucketOf[d])
				}
			}
			s := newScratch(q)
			k := q.selectRange(s, &Batch{Lo: lo, Hi: hi, Cols: []*column.Column{c}})
			if fmt.Sprint(s.sel[:k], s.bucket[:k]) != fmt.Sprint(wantSel, wantBucket) {
				t.Errorf("selectRange, date %v, nulls %v: rows or buckets differ from row by row", date, nulls)
			}
			// Rates of a sparse range: rows selected first, buckets after.
			s.order = passrate.Rates{RangeIn: 100, RangeOut: 10}
			clear(s.bucket[:cap(s.bucket)])
			k = q.selectRange(s, &Batch{Lo: lo, Hi: hi, Cols: []*column.Column{c}})
			if fmt.Sprint(s.sel[:k], s.bucket[:k]) != fmt.Sprint(wantSel, wantBucket) {
				t.Errorf("selectRange after a sparse range, date %v, nulls %v: rows or buckets differ from row by row", date, nulls)
			}
			s.order = passrate.Rates{}
			k = q.rangeOn(s, &Batch{Lo: lo, Hi: hi, Cols: []*column.Column{c}}, s.identity(lo, hi))
			if fmt.Sprint(s.sel[:k], s.bucket[:k]) != fmt.Sprint(wantSel, wantBucket) {
				t.Errorf("rangeOn, date %v, nulls %v: rows or buckets differ from row by row", date, nulls)
			}
			putScratch(s)
		}
	}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// A batch inside the range whose filters passed few rows so far selects
// by its filters first and finds the buckets of the survivors only
// (filterSpan, column.SelectCodes, bucketsOf): the same rows and buckets as the
// range first, for filters passing some, no and every row, a filter over
// codes and one that cannot be (nulls, no cached outcomes), a caller
// filter with a required one, times on a day's first and last
// microsecond, one-bucket batches, and batches of every length mod 4
// that do not start at row 0. So does a batch whose range is tested
// per row, after filters that passed fewer rows than the range.
func TestInsideFiltersFirstKeepTheRows(t *testing.T) {
	const n, start, span = 9_000, int32(20_000), int32(60)
	rng := rand.New(rand.NewPCG(7, 8))
	id := func() uint64 { return column.ColumnIDs.Add(1) }
	tcol := &column.Column{ID: id(), Type: domain.TypeTimestamp, N: n, Ints: make([]int64, n)}
	dates := &column.Column{ID: id(), Type: domain.TypeDate, N: n, Days: make([]arrow.Date32, n)}
	kind := &column.Column{ID: id(), Type: domain.TypeText, N: n, Idx: make([]int32, n), Dict: []string{"view", "click", "purchase"}}
	nullKind := &column.Column{ID: id(), Type: domain.TypeText, N: n, Idx: kind.Idx, Dict: kind.Dict, Valid: make([]byte, (n+7)/8)}
	for i := range n {
		d := int64(start + rng.Int32N(span))
		switch i % 5 {
		case 0:
			tcol.Ints[i] = d * perDay // a day's first microsecond
		case 1:
			tcol.Ints[i] = (d+1)*perDay - 1 // its last
		default:
			tcol.Ints[i] = d*perDay + rng.Int64N(perDay)
		}
		dates.Days[i] = arrow.Date32(d)
		if k := rng.IntN(100); k < 4 {
			kind.Idx[i] = 2
		} else if k < 30 {
			kind.Idx[i] = 1
		}
		if i%11 != 2 {
			bitutil.SetBit(nullKind.Valid, i)
		}
	}
	bucketOf := make([]int32, span)
	for d := range bucketOf {
		bucketOf[d] = int32(d) / 7
	}
	pred := func(slot int, c *column.Column, out ...bool) *match.Predicate {
		var values []string
		for k, ok := range out {
			if ok {
				values = append(values, c.Dict[k])
			}
		}
		if c.Valid != nil {
			out = nil
		}
		return textPredicate(slot, c, values, false, false, out)
	}
	some := func() *match.Predicate { return pred(2, kind, false, false, true) }
	shapes := []struct {
		name     string
		filters  []*match.Predicate
		required []*match.Predicate
	}{
		{"required, some rows", nil, []*match.Predicate{some()}},
		{"required, no row", nil, []*match.Predicate{pred(2, kind, false, false, false)}},
		{"required, every row", nil, []*match.Predicate{pred(2, kind, true, true, true)}},
		{"caller and required", []*match.Predicate{pred(2, kind, false, true, true)}, []*match.Predicate{some()}},
		{"required with nulls", nil, []*match.Predicate{pred(3, nullKind, false, false, true)}},
		{"no cached outcomes", nil, []*match.Predicate{textPredicate(2, kind, []string{"purchase"}, false, false, nil)}},
	}
	for _, sh := range shapes {
		for _, date := range []bool{false, true} {
			time := tcol
			if date {
				time = dates
			}
			cols := []*column.Column{time, nil, kind, nullKind}
			q := &Query{Rows: n, Parallel: 1, Aliases: 1, Base: cols, Start: start, Span: span,
				BucketOf: bucketOf, Buckets: make([]domain.Date, 9), BaseFilters: sh.filters,
				Required: sh.required, Needs: []uint64{1}}
			for _, c := range []struct{ one, ranged bool }{{false, false}, {true, false}, {false, true}} {
				one := c.one
				for _, edge := range [][2]int{{0, 4096}, {4096, 4101}, {4101, 4103}, {4103, 4106}, {4106, n}} {
					b := func() *Batch {
						b := &Batch{Lo: edge[0], Hi: edge[1], Cols: cols, inside: !c.ranged}
						if one {
							b.OneBucket, b.Bucket, b.Cols = true, 3, []*column.Column{nil, nil, kind, nullKind}
						}
						return b
					}
					s := newScratch(q)
					k := q.selectRows(s, b(), true)
					want := fmt.Sprint(s.sel[:k], s.bucket[:k])
					// Only the survivors' times may be read: the others
					// are moved out of the range (a read would index
					// past the buckets).
					kept := map[int32]bool{}
					for _, r := range s.sel[:k] {
						kept[r] = true
					}
					moved := *time
					moved.Ints, moved.Days = slices.Clone(time.Ints), slices.Clone(time.Days)
					for r := range n {
						if !kept[int32(r)] && date {
							moved.Days[r] = arrow.Date32(start - 1)
						} else if !kept[int32(r)] {
							moved.Ints[r] = int64(start)*perDay - 1
						}
					}
					s.order = passrate.Rates{FilterIn: 100, FilterOut: 1}
					if c.ranged { // the range tested on the filters' rows
						s.order.RangeIn, s.order.RangeOut = 100, 90
					}
					clear(s.bucket[:cap(s.bucket)])
					bm := b()
					if !one {
						bm.Cols = []*column.Column{&moved, nil, kind, nullKind}
					}
					k = q.selectRows(s, bm, true)
					if c.ranged && s.order.RangeIn-100 != int64(k) {
						t.Fatalf("%s: range tested on %d positions, want the filters' %d", sh.name, s.order.RangeIn-100, k)
					}
					if got := fmt.Sprint(s.sel[:k], s.bucket[:k]); got != want {
						t.Errorf("%s, date %v, %+v, rows %v: filters first selected %s, want %s", sh.name, date, c, edge, got, want)
					}
					putScratch(s)
				}
			}
		}
	}
}

// A cached time column's day index (column.Derived.Days) selects the
// rows and buckets its times do when the range holds under a quarter of a
// segment's rows — in day order, each day's rows in row order, when any
// order will do, else in row order — and is left alone otherwise (the
// rows then come in order): timestamps across
// 1970-01-01 (days before it floor, not truncate) on a day's first and
// last microsecond, and dates; segments not at row 0, and a last one
// shorter. A column with a null has no index.
func TestDayIndexSelectsTheRangesRows(t *testing.T) {
	const n, seg = 10_000, 4_096
	rng := rand.New(rand.NewPCG(7, 8))
	ints := make([]int64, n)
	for i := range ints {
		d := int64(-50 + rng.Int32N(100))
		switch i % 4 {
		case 0:
			ints[i] = d * perDay
		case 1:
			ints[i] = d*perDay - 1
		default:
			ints[i] = d*perDay + rng.Int64N(perDay)
		}
	}
	dates := make([]arrow.Date32, n)
	for i, us := range ints {
		dates[i] = arrow.Date32(floorDiv(us, perDay))
	}
	var segs []column.Segment
	for lo := 0; lo < n; lo += seg {
		segs = append(segs, column.Segment{Lo: lo, Hi: min(lo+seg, n), Group: len(segs)})
	}
	for _, c := range []*column.Column{
		{ID: column.ColumnIDs.Add(1), Type: domain.TypeTimestamp, N: n, Ints: ints},
		{ID: column.ColumnIDs.Add(1), Type: domain.TypeDate, N: n, Days: dates},
	} {
		d := column.NewDerived(c, nil)
		zones := d.Zones(segs)
		d.BuildDays(segs, zones)
		d.AwaitDays()
		x := d.Days()
		if x == nil {
			t.Fatalf("%s: a column without nulls has a day index", c.Type)
		}
		for _, r := range []struct {
			start, span int32
			byDay       bool
		}{{-3, 6, true}, {-60, 12, true}, {40, 30, true}, {-30, 60, false}} {
			bucketOf := make([]int32, r.span)
			for k := range bucketOf {
				bucketOf[k] = int32(k) / 5
			}
			q := &Query{Rows: n, Start: r.start, Span: r.span, BucketOf: bucketOf, Buckets: make([]domain.Date, r.span/5+1)}
			for k, sg := range segs {
				type pick struct{ day, row, bucket int32 }
				var want []pick
				for row := sg.Lo; row < sg.Hi; row++ {
					if o := int32(dates[row]) - r.start; o >= 0 && o < r.span {
						want = append(want, pick{int32(dates[row]), int32(row), bucketOf[o]})
					}
				}
				inRows := slices.Clone(want)
				if r.byDay {
					slices.SortStableFunc(want, func(a, b pick) int { return int(a.day - b.day) })
				}
				for _, anyOrder := range []bool{true, false} {
					s := newScratch(q)
					got := q.selectRange(s, &Batch{Lo: sg.Lo, Hi: sg.Hi, Cols: []*column.Column{c}, days: x, seg: k, anyOrder: anyOrder})
					var gotPicks []pick
					for i, row := range s.sel[:got] {
						gotPicks = append(gotPicks, pick{int32(dates[row]), row, s.bucket[i]})
					}
					if w := map[bool][]pick{true: want, false: inRows}[anyOrder]; fmt.Sprint(gotPicks) != fmt.Sprint(w) {
						t.Errorf("%s, days %d+%d, segment %d, any order %v: rows or buckets differ from the times' (by day %v)", c.Type, r.start, r.span, k, anyOrder, r.byDay)
					}
					putScratch(s)
				}
			}
		}
	}
	valid := make([]byte, (n+7)/8)
	bitutil.SetBit(valid, 0)
	nulls := &column.Column{Type: domain.TypeTimestamp, N: n, Ints: ints, Valid: valid}
	d := column.NewDerived(nulls, nil)
	d.BuildDays(segs, d.Zones(segs))
	d.AwaitDays()
	if d.Days() != nil {
		t.Error("a column with a null has a day index")
	}
}

// InRange sets the rows whose day falls in the range of the question, or
// of some member of a union, each member by its own time column, and no
// null: on timestamps (negative ones, before 1970, included) and dates
// alike, as a row-by-row test of the day says; with a zone the range
// holds, every row but those of a null time.
func TestInRangeByDay(t *testing.T) {
	const n = 1_003
	rng := rand.New(rand.NewPCG(8, 9))
	ts := &column.Column{Type: domain.TypeTimestamp, N: n, Ints: make([]int64, n), Valid: make([]byte, (n+7)/8)}
	ds := &column.Column{Type: domain.TypeDate, N: n, Days: make([]arrow.Date32, n)}
	tsDay, dsDay := make([]int32, n), make([]int32, n)
	for r := range n {
		tsDay[r], dsDay[r] = int32(rng.IntN(40))-20, int32(rng.IntN(40))-20
		ts.Ints[r] = int64(tsDay[r])*perDay + rng.Int64N(perDay)
		ds.Days[r] = arrow.Date32(dsDay[r])
		if r%9 != 4 {
			ts.Valid[r>>3] |= 1 << (r & 7)
		}
	}
	cols := []*column.Column{ts, ds}
	days := [][]int32{tsDay, dsDay}
	valid := func(s, r int) bool { return cols[s].Valid == nil || cols[s].Valid[r>>3]>>(r&7)&1 != 0 }
	within := func(q *Query, d int32) bool { return d >= q.Start && d < q.Start+q.Span }
	// slot is the time slot a query of one column reads.
	for slot := range cols {
		one := &Query{Start: -3, Span: 5, TimeSlot: slot}
		union := &Query{TimeSlot: slot, Members: []Member{{Q: &Query{Start: 10, Span: 2, TimeSlot: slot}}, {Q: &Query{Start: -15, Span: 1, TimeSlot: slot}}}}
		// Members of two time columns: the first reads the other column.
		two := &Query{TimeSlot: slot, Members: []Member{
			{Q: &Query{Start: -3, Span: 5}, Slots: []int{1 - slot}},
			{Q: &Query{Start: 10, Span: 2, TimeSlot: 1}, Slots: []int{9, slot}},
			{Q: &Query{Start: -15, Span: 1}, Slots: []int{slot}},
		}}
		for _, q := range []*Query{one, union, two} {
			in := func(r int) bool {
				if !q.union() {
					return within(q, days[slot][r]) && valid(slot, r)
				}
				return slices.ContainsFunc(q.Members, func(mb Member) bool {
					s := mb.timeSlot()
					return within(mb.Q, days[s][r]) && valid(s, r)
				})
			}
			keep := bytes.Repeat([]byte{0xff}, (n+7)/8) // InRange clears it
			got := q.InRange(func(s int) *column.Column { return cols[s] }, keep)
			want := 0
			for r := range n {
				w := in(r)
				if w {
					want++
				}
				if set := keep[r>>3]>>(r&7)&1 != 0; set != w {
					t.Fatalf("slot %d, %d members, row %d (days %d, %d): in range %v, want %v", slot, len(q.Members), r, tsDay[r], dsDay[r], set, w)
				}
			}
			if got != want || want == 0 {
				t.Fatalf("slot %d, %d members: %d rows, want %d (not 0)", slot, len(q.Members), got, want)
			}
		}
	}
	if got := (&Query{Members: []Member{{Q: &Query{}, Slots: []int{1}}}}).TimeSlots(); !slices.Equal(got, []int{0, 1}) {
		t.Fatalf("TimeSlots of a union over another time column: %v", got)
	}
	inside := &column.Column{Type: domain.TypeTimestamp, N: n, Ints: make([]int64, n)}
	for r := range n {
		inside.Ints[r] = int64(10+r%2)*perDay + int64(r)
	}
	union := &Query{Members: []Member{{Q: &Query{Start: 10, Span: 2}}, {Q: &Query{Start: -15, Span: 1}}}}
	insideAt := func(int) *column.Column { return inside }
	for _, q := range []*Query{{Start: 9, Span: 4}, union} {
		keep := make([]byte, (n+7)/8)
		if got := q.InRange(insideAt, keep); got != n || keep[len(keep)-1] != 1<<(n%8)-1 {
			t.Fatalf("union %v: %d rows, last byte %08b; want %d, %08b", q.union(), got, keep[len(keep)-1], n, byte(1<<(n%8)-1))
		}
	}
	inside.Valid = bytes.Repeat([]byte{0xff}, (n+7)/8)
	inside.Valid[3] = 0xfe // row 24's time is null
	keep := make([]byte, (n+7)/8)
	if got := union.InRange(insideAt, keep); got != n-1 || keep[3] != 0xfe {
		t.Fatalf("a null time: %d rows, want %d, and row 24 out", got, n-1)
	}
}

// MeetsAt asks each member of a union the zone of its own time column: a
// zone it does not know may hold a row, an empty one (a column of nulls)
// holds none; Meets knows the zone of TimeSlot alone.
func TestMeetsAtByMember(t *testing.T) {
	two := &Query{Members: []Member{{Q: &Query{Start: 0, Span: 10}, Slots: []int{0}}, {Q: &Query{Start: 100, Span: 10}, Slots: []int{1}}}}
	zones := func(z0, z1 column.DayZone, known bool) func(int) (column.DayZone, bool) {
		return func(s int) (column.DayZone, bool) {
			if s == 0 {
				return z0, true
			}
			return z1, known
		}
	}
	far, near, empty := column.DayZone{Min: 50, Max: 60}, column.DayZone{Min: 105, Max: 106}, column.DayZone{Min: 1, Max: 0}
	for _, c := range []struct {
		z0, z1 column.DayZone
		known  bool
		want   bool
	}{
		{far, far, true, false},
		{far, near, true, true},
		{column.DayZone{Min: 5, Max: 5}, far, true, true},
		{far, far, false, true},
		{far, empty, true, false},
	} {
		if got := two.MeetsAt(zones(c.z0, c.z1, c.known)); got != c.want {
			t.Errorf("zones %v, %v (known %v): meets %v, want %v", c.z0, c.z1, c.known, got, c.want)
		}
	}
	if !two.Meets(far) {
		t.Error("Meets of the first time column's zone rules out the member of the second")
	}
	if (&Query{Members: two.Members[:1]}).Meets(far) {
		t.Error("Meets of a union of one time column holds a zone no member's range meets")
	}
}

// TestMembersMeetingAndNeedSlots: a union's batch names the members
// whose range its zones meet (nil when all do), the slots those members
// read plus every time slot, and a member it leaves out picks no row.
func TestMembersMeetingAndNeedSlots(t *testing.T) {
	// Member 0: time slot 0, reads slot 2; member 1: time slot 1, reads slot 3.
	u := &Query{Base: make([]*column.Column, 5), Members: []Member{
		{Q: &Query{Start: 0, Span: 10, TimeSlot: 0}, Slots: []int{0, 2}},
		{Q: &Query{Start: 100, Span: 10, TimeSlot: 0}, Slots: []int{1, 3}},
	}}
	zones := func(z0, z1 column.DayZone) func(int) (column.DayZone, bool) {
		return func(s int) (column.DayZone, bool) {
			if s == 0 {
				return z0, true
			}
			return z1, true
		}
	}
	in0, in1, far := column.DayZone{Min: 2, Max: 3}, column.DayZone{Min: 101, Max: 104}, column.DayZone{Min: 50, Max: 60}
	if m := u.MembersMeeting(zones(in0, in1), nil); m != nil {
		t.Errorf("every member meets: got %v, want nil", m)
	}
	if need := u.NeedSlots(nil, nil); need != nil {
		t.Errorf("every member meets: need %v, want nil", need)
	}
	m := u.MembersMeeting(zones(far, in1), nil)
	if !slices.Equal(m, []bool{false, true}) {
		t.Fatalf("member 0 out of range: got %v", m)
	}
	if need := u.NeedSlots(m, nil); !slices.Equal(need, []bool{true, true, false, true, false}) {
		t.Errorf("need %v: the time slots and member 1's, not member 0's slot 2 nor slot 4", need)
	}
	if (&Query{}).MembersMeeting(zones(far, far), nil) != nil {
		t.Error("a question that is not a union has no members to leave out")
	}
	b := &Batch{Lo: 0, Hi: 4, Cols: make([]*column.Column, 5), Meets: m}
	var buf Batch
	if got := u.member(0, b, &buf, nil); got.picked != &none {
		t.Error("a member the batch's Meets leaves out picks rows")
	}
	if got := u.member(1, b, &buf, nil); got.picked == &none {
		t.Error("a member the batch's Meets holds picks none")
	}
}

// textPredicate compiles values against text column c at base-table slot
// slot, with outcomes as its per-dictionary-entry outcomes (nil: none
// known, as for a streamed batch's column).
func textPredicate(slot int, c *column.Column, values []string, negate, keepNull bool, outcomes []bool) *match.Predicate {
	p, err := match.New(0, column.NewDerived(c, nil), values, negate, keepNull)
	if err != nil {
		panic(err) // a text column compiles any values
	}
	p.Slot, p.DictOut = slot, outcomes
	return p
}

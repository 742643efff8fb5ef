package kernel

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/match"
	"sutura.dev/exec-arrow/internal/passrate"
)

// BenchmarkCachedRevenue aggregates 10 M cached rows as the warm revenue
// question does (docs/performance.md, issue 30): timestamps in no order
// over two years, every batch inside the range, a required filter on a
// text column passing 3% of rows, and a sum by month over an integer
// column null where the filter fails. It reports the CPU time of the
// benchmark's thread per operation besides the wall time.
//
//	cd exec-arrow && go test -run '^$' -bench CachedRevenue -count 5 ./internal/kernel
func BenchmarkCachedRevenue(b *testing.B) {
	q, cols := webEvents()
	benchChunks(b, q, cols)
}

// BenchmarkStreamedRevenue is BenchmarkCachedRevenue as a streamed
// batch meets it: the filter's column is the batch's own, not the one it
// was compiled against, so its outcomes are found per batch from its
// dictionary instead of known once.
//
//	cd exec-arrow && go test -run '^$' -bench StreamedRevenue -count 5 ./internal/kernel
func BenchmarkStreamedRevenue(b *testing.B) {
	q, cols := webEvents()
	proto := &column.Column{ID: column.ColumnIDs.Add(1), Name: "kind", Type: domain.TypeText}
	q.Required[0] = textPredicate(1, proto, []string{"purchase"}, false, false, nil)
	benchChunks(b, q, cols)
}

// BenchmarkFilterOrder selects an anchor's rows from BenchmarkStreamedRevenue's
// batches: a month of the two years (4% of rows) under the purchase filter
// (3%), the range first ("range") or the filter first ("filter"), each
// forced by pass rates seen before, and as the pass rates choose
// ("chosen": passrate.Rates.FilterFirst).
//
//	cd exec-arrow && go test -run '^$' -bench FilterOrder -count 5 ./internal/kernel
func BenchmarkFilterOrder(b *testing.B) {
	seen := map[string]passrate.Rates{
		"range":  {RangeIn: 1 << 40, RangeOut: 42 << 30, FilterIn: 1 << 40, FilterOut: 3 << 30},
		"filter": {RangeIn: 1 << 40, RangeOut: 1 << 39, FilterIn: 1 << 40, FilterOut: 3 << 30},
		"chosen": {},
	}
	for _, order := range []string{"range", "filter", "chosen"} {
		b.Run(order, func(b *testing.B) {
			q, cols := webEvents()
			proto := &column.Column{ID: column.ColumnIDs.Add(1), Name: "kind", Type: domain.TypeText}
			q.Required[0] = textPredicate(1, proto, []string{"purchase"}, false, false, nil)
			q.Start, q.Span = 19_723+517, 30
			q.BucketOf, q.Buckets = make([]int32, 30), make([]domain.Date, 1)
			n := cols[0].N
			defer threadCPU(b)()
			for range b.N {
				s, p := newScratch(q), newPartial(q)
				s.order = seen[order]
				for lo := 0; lo < n; lo += column.ChunkRows {
					q.chunk(s, p, &Batch{Lo: lo, Hi: min(lo+column.ChunkRows, n), Cols: cols})
				}
				putScratch(s)
			}
		})
	}
}

// BenchmarkCachedTwoMetrics is BenchmarkCachedRevenue with a second
// metric, a count of every row in the range (no required filter), as the
// warm two-metrics question asks: each row's metrics are masked.
//
//	cd exec-arrow && go test -run '^$' -bench CachedTwoMetrics -count 5 ./internal/kernel
func BenchmarkCachedTwoMetrics(b *testing.B) {
	q, cols := webEvents()
	q.Needs = append(q.Needs, 0)
	q.Metrics = append(q.Metrics, &MetricPlan{Name: "events", Terms: []*TermPlan{{Op: opCount, Slot: 0, Col: cols[0]}}})
	benchChunks(b, q, cols)
}

// webEvents is a query over 10 M cached rows of timestamps in no order
// over two years, a text column of four kinds (a required filter on
// "purchase" passes 3% of rows) and an integer amount null where it
// fails, summed by month: the revenue question.
func webEvents() (*Query, []*column.Column) {
	const n, start, span = 10_000_000, int32(19_723), int32(731)
	rng := rand.New(rand.NewPCG(7, 8))
	id := func() uint64 { return column.ColumnIDs.Add(1) }
	tcol := &column.Column{ID: id(), Name: "t", Type: domain.TypeTimestamp, N: n, Ints: make([]int64, n)}
	kind := &column.Column{ID: id(), Name: "kind", Type: domain.TypeText, N: n, Idx: make([]int32, n),
		Dict: []string{"view", "click", "purchase", "add_to_cart"}}
	amount := &column.Column{ID: id(), Name: "amount", Type: domain.TypeInteger, N: n, Ints: make([]int64, n),
		Valid: make([]byte, (n+7)/8)}
	for i := range n {
		tcol.Ints[i] = int64(start)*perDay + rng.Int64N(int64(span)*perDay)
		switch k := rng.IntN(1000); {
		case k < 30:
			kind.Idx[i] = 2
			amount.Ints[i] = 500 + rng.Int64N(20_000)
			bitutil.SetBit(amount.Valid, i)
		case k < 150:
			kind.Idx[i] = 3
		case k < 450:
			kind.Idx[i] = 1
		}
	}
	bucketOf := make([]int32, span)
	for d := range bucketOf {
		bucketOf[d] = int32(d) / 31
	}
	purchase := textPredicate(1, kind, []string{"purchase"}, false, false, []bool{false, false, true, false})
	q := &Query{Rows: n, Parallel: 1, Aliases: 1, Base: []*column.Column{tcol, kind, amount},
		Start: start, Span: span, BucketOf: bucketOf, Buckets: make([]domain.Date, 24),
		Required: []*match.Predicate{purchase}, Needs: []uint64{1},
		Metrics: []*MetricPlan{{Name: "revenue", Required: []int{0}, Terms: []*TermPlan{{Op: OpSum, Slot: 2, Col: amount}}}}}
	return q, []*column.Column{tcol, kind, amount}
}

// benchChunks aggregates every row of cols through q's stages, a chunk
// at a time, per operation, reporting the thread's CPU time too.
func benchChunks(b *testing.B, q *Query, cols []*column.Column) {
	n := cols[0].N
	defer threadCPU(b)()
	for range b.N {
		s, p := newScratch(q), newPartial(q)
		for lo := 0; lo < n; lo += column.ChunkRows {
			q.chunk(s, p, &Batch{Lo: lo, Hi: min(lo+column.ChunkRows, n), Cols: cols, inside: true})
		}
		putScratch(s)
	}
}

// BenchmarkCachedFewDays aggregates a sum of floats and one of integers by
// week over two weeks of 10 M cached rows whose times are in no order over
// two years: by testing every row's time ("scan"), and through the time
// column's day index, in row order as those sums need ("rows",
// column.DayIndex.Rows), and in day order as an order-free term would
// allow ("days", column.DayIndex.Select).
//
//	cd exec-arrow && go test -run '^$' -bench CachedFewDays -count 5 ./internal/kernel
func BenchmarkCachedFewDays(b *testing.B) {
	const n, first, days, start, span = 10_000_000, int32(19_723), int32(731), int32(20_100), int32(14)
	rng := rand.New(rand.NewPCG(9, 10))
	id := func() uint64 { return column.ColumnIDs.Add(1) }
	tcol := &column.Column{ID: id(), Name: "t", Type: domain.TypeTimestamp, N: n, Ints: make([]int64, n)}
	price := &column.Column{ID: id(), Name: "price", Type: domain.TypeFloat, N: n, Floats: make([]float64, n)}
	cents := &column.Column{ID: id(), Name: "cents", Type: domain.TypeInteger, N: n, Ints: make([]int64, n)}
	for i := range n {
		tcol.Ints[i] = int64(first)*perDay + rng.Int64N(int64(days)*perDay)
		price.Floats[i] = rng.Float64() * 100
		cents.Ints[i] = rng.Int64N(10_000)
	}
	var segs []column.Segment
	for lo := 0; lo < n; lo += column.ChunkRows {
		segs = append(segs, column.Segment{Lo: lo, Hi: min(lo+column.ChunkRows, n), Group: len(segs)})
	}
	d := column.NewDerived(tcol, nil)
	d.BuildDays(segs, d.Zones(segs))
	d.AwaitDays()
	bucketOf := make([]int32, span)
	for k := range bucketOf {
		bucketOf[k] = int32(k) / 7
	}
	cols := []*column.Column{tcol, price, cents}
	for _, bc := range []struct {
		name     string
		term     *TermPlan
		days     *column.DayIndex
		anyOrder bool
	}{
		{"float/scan", &TermPlan{Op: OpSum, Slot: 1, Col: price, Float: true}, nil, false},
		{"float/rows", &TermPlan{Op: OpSum, Slot: 1, Col: price, Float: true}, d.Days(), false},
		{"float/days", &TermPlan{Op: OpSum, Slot: 1, Col: price, Float: true}, d.Days(), true},
		{"integer/scan", &TermPlan{Op: OpSum, Slot: 2, Col: cents}, nil, false},
		{"integer/rows", &TermPlan{Op: OpSum, Slot: 2, Col: cents}, d.Days(), false},
		{"integer/days", &TermPlan{Op: OpSum, Slot: 2, Col: cents}, d.Days(), true},
	} {
		q := &Query{Rows: n, Parallel: 1, Aliases: 1, Base: cols, Start: start, Span: span, BucketOf: bucketOf,
			Buckets: make([]domain.Date, 2), Metrics: []*MetricPlan{{Name: "sum", Terms: []*TermPlan{bc.term}}}}
		b.Run(bc.name, func(b *testing.B) {
			defer threadCPU(b)()
			for range b.N {
				s, p := newScratch(q), newPartial(q)
				for k, sg := range segs {
					q.chunk(s, p, &Batch{Lo: sg.Lo, Hi: sg.Hi, Cols: cols, days: bc.days, seg: k, anyOrder: bc.anyOrder})
				}
				putScratch(s)
			}
		})
	}
}

// BenchmarkMaskedSumsByWeek aggregates 10 M cached rows in time order
// over a year, by week (52 groups), into three metrics under two
// required filters (a status not cancelled, passing 90%; a payment,
// 70%): two integer sums and a count, each row's metrics masked, as the
// demo's several-metrics-by-week question asks warm. Rows in time order
// meet one group thousands of times in a row; four running sums a group
// in turn (to keep additions to one group in flight) measured 10% slower
// than one here: the masked sum's loads and tests, not the chain of
// additions, are its time (docs/performance.md).
//
//	cd exec-arrow && go test -run '^$' -bench MaskedSumsByWeek -count 6 ./internal/kernel
func BenchmarkMaskedSumsByWeek(b *testing.B) {
	const n, start, span = 10_000_000, int32(20_089), int32(364)
	rng := rand.New(rand.NewPCG(3, 4))
	id := func() uint64 { return column.ColumnIDs.Add(1) }
	days := &column.Column{ID: id(), Name: "d", Type: domain.TypeDate, N: n, Days: make([]arrow.Date32, n)}
	status := &column.Column{ID: id(), Name: "status", Type: domain.TypeText, N: n, Idx8: make([]uint8, n),
		Dict: []string{"completed", "cancelled"}}
	paid := &column.Column{ID: id(), Name: "paid", Type: domain.TypeText, N: n, Idx8: make([]uint8, n),
		Dict: []string{"yes", "no"}}
	amount := &column.Column{ID: id(), Name: "amount", Type: domain.TypeInteger, N: n, Ints32: make([]int32, n)}
	for i := range n {
		days.Days[i] = arrow.Date32(start + int32(int64(i)*int64(span)/n))
		if rng.IntN(10) == 0 {
			status.Idx8[i] = 1
		}
		if rng.IntN(10) >= 7 {
			paid.Idx8[i] = 1
		}
		amount.Ints32[i] = int32(rng.IntN(100_000))
	}
	bucketOf := make([]int32, span)
	for d := range bucketOf {
		bucketOf[d] = int32(d) / 7
	}
	notCancelled := textPredicate(1, status, []string{"cancelled"}, true, false, []bool{true, false})
	isPaid := textPredicate(2, paid, []string{"yes"}, false, false, []bool{true, false})
	cols := []*column.Column{days, status, paid, amount}
	q := &Query{Rows: n, Parallel: 1, Aliases: 1, Base: cols, Start: start, Span: span, BucketOf: bucketOf,
		Buckets: make([]domain.Date, 52), Required: []*match.Predicate{notCancelled, isPaid}, Needs: []uint64{1, 1, 2},
		Metrics: []*MetricPlan{
			{Name: "net", Required: []int{0}, Terms: []*TermPlan{{Op: OpSum, Slot: 3, Col: amount}}},
			{Name: "orders", Required: []int{0}, Terms: []*TermPlan{{Op: opCount, Slot: 3, Col: amount}}},
			{Name: "paid", Required: []int{1}, Terms: []*TermPlan{{Op: OpSum, Slot: 3, Col: amount}}},
		}}
	benchChunks(b, q, cols)
}

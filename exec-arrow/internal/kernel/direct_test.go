package kernel

import (
	"math/rand/v2"
	"testing"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/match"
)

// TestDirectOneBucketAsRowByRow: the direct kernel aggregates a batch in
// one bucket (Batch.OneBucket: a cached segment's zone, a union member's)
// as it does a batch whose rows it buckets one by one, and as the stages
// do: the same row counts and sums, under a required filter that drops
// most rows, over integers held in eight bytes and in four.
func TestDirectOneBucketAsRowByRow(t *testing.T) {
	const n, start, span = 20_000, int32(20_000), int32(31)
	rng := rand.New(rand.NewPCG(41, 42))
	id := func() uint64 { return column.ColumnIDs.Add(1) }
	tcol := &column.Column{ID: id(), Name: "t", Type: domain.TypeTimestamp, N: n, Ints: make([]int64, n)}
	kind := &column.Column{ID: id(), Name: "kind", Type: domain.TypeText, N: n, Idx: make([]int32, n),
		Dict: []string{"view", "click", "purchase"}}
	wide := &column.Column{ID: id(), Name: "amount", Type: domain.TypeInteger, N: n, Ints: make([]int64, n)}
	narrow := &column.Column{ID: id(), Name: "amount", Type: domain.TypeInteger, N: n, Ints32: make([]int32, n)}
	for i := range n {
		tcol.Ints[i] = int64(start+rng.Int32N(span))*perDay + rng.Int64N(perDay)
		kind.Idx[i] = rng.Int32N(3)
		v := rng.Int32N(100_000) - 20_000
		wide.Ints[i], narrow.Ints32[i] = int64(v), v
	}
	purchase := textPredicate(1, kind, []string{"purchase"}, false, false, nil)
	for _, amount := range []*column.Column{wide, narrow} {
		q := &Query{Rows: n, Parallel: 1, Aliases: 1, Base: []*column.Column{tcol, kind, amount},
			Start: start, Span: span, BucketOf: make([]int32, span), Buckets: make([]domain.Date, 1),
			Required: []*match.Predicate{purchase}, Needs: []uint64{1},
			Metrics: []*MetricPlan{{Name: "revenue", Required: []int{0},
				Terms: []*TermPlan{{Op: OpSum, Slot: 2, Col: amount}, {Op: opCount, Slot: 2, Col: amount}}}}}
		cols := []*column.Column{tcol, kind, amount}
		run := func(direct, one bool) (rows int64, sum, count any) {
			q.DirectOK = direct
			s, p := newScratch(q), newPartial(q)
			defer putScratch(s)
			for lo := 0; lo < n; lo += 6_000 {
				q.chunk(s, p, &Batch{Lo: lo, Hi: min(lo+6_000, n), Cols: cols, inside: true, OneBucket: one})
			}
			if p.Groups.Len() != 1 {
				t.Fatalf("direct %v, one bucket %v: %d groups, want 1", direct, one, p.Groups.Len())
			}
			tp := q.Metrics[0].Terms
			return p.Rows[0][0], tp[0].Finish(p.Terms[0][0], nil, nil, 0), tp[1].Finish(p.Terms[0][1], nil, nil, 0)
		}
		wantRows, wantSum, wantCount := run(false, false)
		if wantRows == 0 || wantRows > n/2 {
			t.Fatalf("the filter kept %d of %d rows: the test does not drop most of them", wantRows, n)
		}
		for _, c := range []struct{ direct, one bool }{{true, false}, {true, true}, {false, true}} {
			rows, sum, count := run(c.direct, c.one)
			if rows != wantRows || sum != wantSum || count != wantCount {
				t.Fatalf("%d-byte integers, direct %v, one bucket %v: %d rows, sum %v, count %v; want %d, %v, %v",
					map[bool]int{true: 4, false: 8}[amount.Ints32 != nil], c.direct, c.one, rows, sum, count, wantRows, wantSum, wantCount)
			}
		}
	}
}

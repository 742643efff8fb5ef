package kernel

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/match"
)

// TestMaskedSumsAsRowByRow: metrics under different required filters,
// whose sums of one integer column are summed once per group and metric
// mask (comboSum) and folded per metric (maskedSum), give each week the
// rows, sums and counts the rows give one by one: a sum and a count
// under one filter, a sum under another, a sum under both (four metrics:
// as many as comboHistogram combines), over integers in eight bytes and
// in four.
func TestMaskedSumsAsRowByRow(t *testing.T) {
	const n, start, span, weeks = 60_000, int32(20_000), int32(56), 8
	rng := rand.New(rand.NewPCG(12, 13))
	id := func() uint64 { return column.ColumnIDs.Add(1) }
	day := &column.Column{ID: id(), Name: "d", Type: domain.TypeDate, N: n, Days: make([]arrow.Date32, n)}
	status := &column.Column{ID: id(), Name: "status", Type: domain.TypeText, N: n, Idx8: make([]uint8, n),
		Dict: []string{"done", "cancelled", "open"}}
	paid := &column.Column{ID: id(), Name: "paid", Type: domain.TypeText, N: n, Idx8: make([]uint8, n),
		Dict: []string{"yes", "no"}}
	wide := &column.Column{ID: id(), Name: "amount", Type: domain.TypeInteger, N: n, Ints: make([]int64, n)}
	narrow := &column.Column{ID: id(), Name: "amount", Type: domain.TypeInteger, N: n, Ints32: make([]int32, n)}
	for i := range n {
		day.Days[i] = arrow.Date32(start + int32(i)*span/n) // in time order: long runs of one week
		status.Idx8[i] = uint8(rng.IntN(3))
		paid.Idx8[i] = uint8(rng.IntN(2))
		v := rng.Int32N(1_000_000) - 300_000
		wide.Ints[i], narrow.Ints32[i] = int64(v), v
	}
	notCancelled := textPredicate(1, status, []string{"cancelled"}, true, false, []bool{true, false, true})
	isPaid := textPredicate(2, paid, []string{"yes"}, false, false, []bool{true, false})
	bucketOf := make([]int32, span)
	for d := range bucketOf {
		bucketOf[d] = int32(d) / 7
	}
	for _, amount := range []*column.Column{wide, narrow} {
		sum := func() []*TermPlan { return []*TermPlan{{Op: OpSum, Slot: 3, Col: amount}} }
		cols := []*column.Column{day, status, paid, amount}
		q := &Query{Rows: n, Parallel: 1, Aliases: 1, Base: cols, Start: start, Span: span, BucketOf: bucketOf,
			Buckets: make([]domain.Date, weeks), Required: []*match.Predicate{notCancelled, isPaid},
			Needs: []uint64{1, 1, 2, 3},
			Metrics: []*MetricPlan{
				{Name: "net", Required: []int{0}, Terms: sum()},
				{Name: "orders", Required: []int{0}, Terms: []*TermPlan{{Op: opCount, Slot: 3, Col: amount}}},
				{Name: "paid", Required: []int{1}, Terms: sum()},
				{Name: "both", Required: []int{0, 1}, Terms: sum()},
			}}
		// Row by row: per metric and week, the rows and the sum.
		var rows, sums [4][weeks]int64
		for i := range n {
			w := (int32(day.Days[i]) - start) / 7
			a, b := status.Idx8[i] != 1, paid.Idx8[i] == 0
			v := int64(narrow.Ints32[i])
			for m, in := range []bool{a, a, b, a && b} {
				if in {
					rows[m][w]++
					sums[m][w] += v
				}
			}
		}
		s, p := newScratch(q), newPartial(q)
		for lo := 0; lo < n; lo += 6_000 {
			q.chunk(s, p, &Batch{Lo: lo, Hi: min(lo+6_000, n), Cols: cols, inside: true})
		}
		putScratch(s)
		if p.Groups.Len() != weeks {
			t.Fatalf("%d groups, want %d", p.Groups.Len(), weeks)
		}
		for g := range weeks {
			w := p.Groups.Parts(g)[0]
			for m, mp := range q.Metrics {
				if got := p.Rows[m][g]; got != rows[m][w] {
					t.Fatalf("%s, week %d: %d rows, want %d", mp.Name, w, got, rows[m][w])
				}
				st := p.Terms[m][0]
				switch mp.Terms[0].Op {
				case opCount:
					if st.n[g] != rows[m][w] {
						t.Fatalf("%s, week %d: count %d, want %d", mp.Name, w, st.n[g], rows[m][w])
					}
				default:
					if st.i[g] != sums[m][w] || st.n[g] != rows[m][w] {
						t.Fatalf("%s, week %d: sum %d of %d values, want %d of %d", mp.Name, w, st.i[g], st.n[g], sums[m][w], rows[m][w])
					}
				}
			}
		}
	}
}

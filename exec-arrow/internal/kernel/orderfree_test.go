package kernel

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
)

// TestOrderFreeTerms: only terms whose answer no order of rows can change
// let a scan hand row groups to any worker.
func TestOrderFreeTerms(t *testing.T) {
	bounded := func(int) bool { return true }
	unbounded := func(int) bool { return false }
	for _, tc := range []struct {
		name               string
		term               TermPlan
		whenBound, without bool
	}{
		{"count", TermPlan{Op: opCount}, true, true},
		{"count of floats", TermPlan{Op: opCount, Float: true}, true, true},
		{"count_if", TermPlan{Op: opCountIf}, true, true},
		{"count_distinct", TermPlan{Op: OpDistinct}, true, true},
		{"min of integers", TermPlan{Op: OpMin}, true, true},
		{"max of integers", TermPlan{Op: OpMax}, true, true},
		{"min of floats", TermPlan{Op: OpMin, Float: true}, false, false},
		{"integer sum", TermPlan{Op: OpSum}, true, false},
		{"integer average", TermPlan{Op: opAvg}, true, false},
		{"float sum", TermPlan{Op: OpSum, Float: true}, false, false},
		{"decimal sum", TermPlan{Op: OpSum, Dec: true}, false, false},
		{"decimal max", TermPlan{Op: OpMax, Dec: true}, false, false},
	} {
		assert.Equal(t, tc.whenBound, tc.term.OrderFree(bounded), "%s, bounded", tc.name)
		assert.Equal(t, tc.without, tc.term.OrderFree(unbounded), "%s, unbounded", tc.name)
	}
}

// TestCachedSegmentsClaimedWhenOrderFree: over cached columns, a question
// whose terms are order-free (with no bound on integer sums) lets any
// worker take the next segment left, each exactly once; any other keeps
// worker w on the segments of groups g mod P, in order.
func TestCachedSegmentsClaimedWhenOrderFree(t *testing.T) {
	segs := make([]column.Segment, 40)
	zones := make([]column.DayZone, len(segs))
	for i := range segs {
		segs[i] = column.Segment{Lo: i * 10, Hi: i*10 + 10, Group: i / 2}
		zones[i] = column.DayZone{Min: 0, Max: 0}
	}
	query := func(terms ...*TermPlan) *Query {
		return &Query{Parallel: 2, Span: 1, BucketOf: []int32{0}, Metrics: []*MetricPlan{{Terms: terms}}}
	}
	unbounded := func(int) bool { return false }
	for _, tc := range []struct {
		name  string
		q     *Query
		claim bool
	}{
		{"counts and distinct counts", query(&TermPlan{Op: opCount}, &TermPlan{Op: OpDistinct}), true},
		{"an integer sum, unbounded", query(&TermPlan{Op: opCount}, &TermPlan{Op: OpSum}), false},
		{"a float max", query(&TermPlan{Op: OpMax, Float: true}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.claim, tc.q.OrderFree(unbounded))
			p := &cachedProducer{q: tc.q, segs: segs, zones: zones, cols: []*column.Column{{}}, claim: tc.q.OrderFree(unbounded)}
			// Worker 1 starts after worker 0 has finished: claiming, worker
			// 0 takes every segment; dealt, each takes its own.
			seen := make([][]int, 2)
			for w := range 2 {
				require.NoError(t, p.Scan(context.Background(), w, func(b *Batch) error {
					seen[w] = append(seen[w], b.Lo/10)
					return nil
				}))
			}
			if tc.claim {
				assert.Len(t, seen[0], len(segs), "the first worker took what was left")
				assert.Empty(t, seen[1])
			}
			all := append(slices.Clone(seen[0]), seen[1]...)
			slices.Sort(all)
			assert.Len(t, all, len(segs), "every segment once")
			assert.Equal(t, len(segs), len(slices.Compact(all)), "no segment twice")
			if !tc.claim {
				for w := range 2 {
					for k, i := range seen[w] {
						assert.Equal(t, w, segs[i].Group%2, "worker %d met segment %d", w, i)
						if k > 0 {
							assert.Less(t, seen[w][k-1], i, "worker %d in order", w)
						}
					}
				}
			}
		})
	}
}

// A cached segment is read through its time column's day index only when
// the range spans under a quarter of the column's days (else no segment
// could use it, and none is built), and in day order only when every term
// is order-free. The first such question starts the build in the
// background and reads its rows as before; the next one reads them
// through the index.
func TestDayIndexOnlyForFewDays(t *testing.T) {
	const n = 4 * column.ChunkRows
	ints := make([]int64, n)
	for i := range ints {
		ints[i] = int64(i%100) * perDay // days 0..99 in every segment
	}
	var segs []column.Segment
	for lo := 0; lo < n; lo += column.ChunkRows {
		segs = append(segs, column.Segment{Lo: lo, Hi: lo + column.ChunkRows, Group: len(segs)})
	}
	for _, tc := range []struct {
		name  string
		span  int32
		term  *TermPlan
		index bool
	}{
		{"a count over 10 of 100 days", 10, &TermPlan{Op: opCount}, true},
		{"a count over 30 of 100 days", 30, &TermPlan{Op: opCount}, false},
		{"a float sum over 10 of 100 days", 10, &TermPlan{Op: OpSum, Float: true}, true},
		{"a float sum over 30 of 100 days", 30, &TermPlan{Op: OpSum, Float: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &column.Column{ID: column.ColumnIDs.Add(1), Name: "t", Type: domain.TypeTimestamp, N: n, Ints: ints}
			held := map[string]*column.Derived{"t": column.NewDerived(c, nil)}
			bucketOf := make([]int32, tc.span)
			q := &Query{Parallel: 1, Rows: n, Start: 20, Span: tc.span, BucketOf: bucketOf, Base: []*column.Column{{Name: "t", Type: domain.TypeTimestamp}},
				Metrics: []*MetricPlan{{Terms: []*TermPlan{tc.term}}}}
			scan := func(index bool) {
				batches := 0
				require.NoError(t, NewCachedProducer(q, held, segs).Scan(context.Background(), 0, func(b *Batch) error {
					batches++
					assert.Equal(t, index, b.days != nil)
					assert.Equal(t, tc.term.Op == opCount, b.anyOrder, "rows in day order only for order-free terms")
					return nil
				}))
				assert.Equal(t, len(segs), batches)
			}
			scan(false) // no answer waits for the index
			held["t"].AwaitDays()
			scan(tc.index)
		})
	}
}

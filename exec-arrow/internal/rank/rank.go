// Package rank orders a question's groups as its answer lists them:
// the first n of millions of groups by a bounded heap (a top-n), and
// metric values compared as the answer sorts them (nulls last, either
// direction). It imports kernel for its values, nothing above it.
package rank

import (
	"cmp"
	"context"
	"slices"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/i128"
	"sutura.dev/exec-arrow/internal/value"
)

// FirstN returns the first n of the groups 0..ng-1 in the order of cmp,
// sorted. It keeps a bounded heap, so ranking millions of groups for a
// top-n costs O(ng log n) and checks ctx as it goes.
func FirstN(ctx context.Context, ng, n int, cmpFn func(a, b int) int) ([]int, error) {
	if n >= ng {
		order := make([]int, ng)
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, cmpFn)
		return order, nil
	}
	// h is a max-heap by cmpFn: h[0] is the worst group kept so far.
	h := make([]int, 0, n)
	down := func(i int) {
		for {
			l, w := 2*i+1, i
			if l < len(h) && cmpFn(h[l], h[w]) > 0 {
				w = l
			}
			if r := l + 1; r < len(h) && cmpFn(h[r], h[w]) > 0 {
				w = r
			}
			if w == i {
				return
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	for g := 0; g < ng; g++ {
		if g%column.CheckEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		switch {
		case len(h) < n:
			h = append(h, g)
			for i := len(h) - 1; i > 0; {
				parent := (i - 1) / 2
				if cmpFn(h[i], h[parent]) <= 0 {
					break
				}
				h[i], h[parent] = h[parent], h[i]
				i = parent
			}
		case n > 0 && cmpFn(g, h[0]) < 0:
			h[0] = g
			down(0)
		}
	}
	slices.SortFunc(h, cmpFn)
	return h, nil
}

// CompareValues orders two values of one metric, desc reversing the
// order of non-null values; nulls come last either way.
func CompareValues(a, b value.Value, desc bool) int {
	switch {
	case a.Null && b.Null:
		return 0
	case a.Null:
		return 1
	case b.Null:
		return -1
	}
	var c int
	switch {
	case a.Kind == domain.KindDecimal && b.Kind == domain.KindDecimal:
		c = i128.CompareScaled(a.D, a.Sc, b.D, b.Sc)
	case a.Kind == domain.KindFloat || b.Kind == domain.KindFloat || a.Kind == domain.KindDecimal || b.Kind == domain.KindDecimal:
		c = cmp.Compare(a.Num(), b.Num())
	case a.Kind == domain.KindText && !a.ByInt:
		c = cmp.Compare(a.S, b.S)
	default:
		c = cmp.Compare(a.I, b.I)
	}
	if desc {
		return -c
	}
	return c
}

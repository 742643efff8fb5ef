// Package answer finishes what a scan aggregated into the rows of an
// answer: each metric's value per group (distinct counts, combined
// averages, ratios), the groups' order, a top n, and the bounds an answer
// is refused over rather than cut.
package answer

import (
	"cmp"
	"context"
	"fmt"
	"math"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/gate"
	"sutura.dev/exec-arrow/internal/kernel"
	"sutura.dev/exec-arrow/internal/rank"
	"sutura.dev/exec-arrow/internal/value"
)

// TooLarge is the refusal (result_too_large) of an answer over a bound.
func TooLarge(format string, args ...any) error {
	return &domain.RefusalError{Reason: domain.Refuse(domain.ResultTooLarge, format, args...)}
}

// Rows finishes the aggregates p holds for q, a question of plan, orders
// the groups and builds the answer's rows: the plan's top n (by its metric
// or its period), or every group in the order of its dimensions' values
// (nulls last) and its period, or every group unordered for a leg's
// partials (plan.Part). Working memory is reserved in mem first. An answer
// of more rows than the plan's row cap (domain.MaxRowCap without one), or
// whose cells render to more than domain.MaxResultBytes, is refused as
// result_too_large, never cut short; an overflowing sum and a zero
// denominator a ratio declares failing are errors wrapping the domain's.
func Rows(ctx context.Context, plan *domain.Plan, q *kernel.Query, p *kernel.Partial, mem *gate.Reservation) (*domain.RowSet, error) {
	ng := p.Groups.Len()
	rowCap := plan.RowCap
	if rowCap <= 0 {
		rowCap = domain.MaxRowCap
	}
	if plan.Top == nil && ng > rowCap {
		return nil, TooLarge("the answer has more than %d rows", rowCap)
	}
	nd := len(q.Dims)
	stride := nd + 1
	if err := mem.Grow(int64(ng) * int64(4*stride+4+48*len(q.Metrics))); err != nil {
		return nil, err
	}
	// parts[g*stride] is the bucket, then one code per dimension.
	parts := make([]int32, ng*stride)
	for g := 0; g < ng; g++ {
		k := p.Groups.Parts(g)
		pg := parts[g*stride : (g+1)*stride]
		for i := range pg {
			pg[i] = int32(k[i])
		}
	}
	vals, err := values(ctx, q, p, ng, mem)
	if err != nil {
		return nil, err
	}
	// Dimension ranks (code → ascending position, nulls last) and values.
	ranks := make([][]int32, nd)
	cells := make([]func(code int32) domain.Cell, nd)
	for d, dim := range q.Dims {
		var order []int32
		if dim.Codes != nil {
			order = dim.Codes.Order()
			values := dim.Codes.Values()
			cells[d] = func(code int32) domain.Cell { return values[code-1] }
		} else {
			book := p.Books[d]
			order = book.Ranks()
			cells[d] = book.Cell
		}
		r := make([]int32, len(order)+1)
		r[0] = math.MaxInt32
		for i, o := range order {
			r[i+1] = o
		}
		ranks[d] = r
	}
	keyCmp := func(a, b int) int {
		pa, pb := parts[a*stride:(a+1)*stride], parts[b*stride:(b+1)*stride]
		for d := 0; d < nd; d++ {
			if c := cmp.Compare(ranks[d][pa[d+1]], ranks[d][pb[d+1]]); c != 0 {
				return c
			}
		}
		return cmp.Compare(pa[0], pb[0])
	}
	top := plan.Top
	var less func(a, b int) int
	switch {
	case top == nil:
		less = keyCmp
	case top.By == domain.ByPeriod:
		less = func(a, b int) int {
			c := cmp.Compare(parts[a*stride], parts[b*stride])
			if top.Descending() {
				c = -c
			}
			if c != 0 {
				return c
			}
			return keyCmp(a, b)
		}
	default:
		mv := vals[0]
		less = func(a, b int) int {
			if c := rank.CompareValues(mv[a], mv[b], top.Descending()); c != 0 {
				return c
			}
			return keyCmp(a, b)
		}
	}
	keep := ng
	if top != nil {
		keep = min(max(top.N, 0), ng)
	}
	var order []int
	if plan.Part {
		// A leg's partials go to the combine, which orders the answer.
		order = make([]int, ng)
		for i := range order {
			order[i] = i
		}
	} else if order, err = rank.FirstN(ctx, ng, keep, less); err != nil {
		return nil, err
	}
	if len(order) > rowCap {
		return nil, TooLarge("the answer has more than %d rows", rowCap)
	}
	rs := &domain.RowSet{Columns: append([]domain.Column(nil), plan.Columns...), Rows: make([][]domain.Cell, 0, len(order))}
	bytes := 0
	for _, g := range order {
		pg := parts[g*stride : (g+1)*stride]
		row := make([]domain.Cell, 0, nd+1+len(q.Metrics))
		for d := range q.Dims {
			c := domain.Null()
			if code := pg[d+1]; code > 0 {
				c = cells[d](code)
			}
			row = append(row, c)
		}
		row = append(row, domain.DateCell(q.Buckets[pg[0]]))
		for m := range q.Metrics {
			row = append(row, vals[m][g].Cell())
		}
		if !plan.Part {
			for _, c := range row {
				bytes += len(c.Render())
			}
			if bytes > domain.MaxResultBytes {
				return nil, TooLarge("the answer's cells render to more than %d bytes", domain.MaxResultBytes)
			}
		}
		rs.Rows = append(rs.Rows, row)
	}
	return rs, nil
}

// values finishes every metric of q in every group.
func values(ctx context.Context, q *kernel.Query, p *kernel.Partial, ng int, mem *gate.Reservation) ([][]value.Value, error) {
	out := make([][]value.Value, len(q.Metrics))
	for m, mp := range q.Metrics {
		distinct := make([][]int64, len(mp.Terms))
		sorted := make([][]string, len(mp.Terms))
		for t, tp := range mp.Terms {
			if tp.Op == kernel.OpDistinct {
				var err error
				if distinct[t], err = p.Terms[m][t].DistinctCounts(ng, mem); err != nil {
					return nil, err
				}
			}
			sorted[t] = tp.SortedDict()
		}
		vs := make([]value.Value, ng)
		overflow, intOverflow := false, false
		for g := 0; g < ng; g++ {
			if g%column.CheckEvery == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if p.Rows[m][g] == 0 {
				vs[g] = value.Value{Null: true}
				continue
			}
			term := func(t int) value.Value {
				v := mp.Terms[t].Finish(p.Terms[m][t], distinct[t], sorted[t], g)
				if v.Overflow {
					overflow = true
					intOverflow = intOverflow || v.IntOverflow
					return value.Value{Null: true}
				}
				return v
			}
			if mp.Combine != nil {
				raw := term
				term = func(t int) value.Value {
					ct := mp.Combine[t]
					if !ct.Avg {
						return raw(ct.A)
					}
					sum, n := raw(ct.A), raw(ct.B)
					if sum.Null || n.Null || n.Num() == 0 {
						return value.Value{Null: true}
					}
					return value.Value{Kind: domain.KindFloat, F: value.Quotient(sum, n)}
				}
			}
			if mp.Ratio == nil {
				vs[g] = term(0)
				continue
			}
			num, den := term(0), term(1)
			switch {
			case num.Null || den.Null:
				vs[g] = value.Value{Null: true}
			case den.Num() == 0:
				if mp.Ratio.ZeroDenominator == domain.Fails {
					return nil, fmt.Errorf("metric %s: %w", mp.Name, domain.ErrZeroDenominator)
				}
				vs[g] = value.Value{Null: true}
			default:
				vs[g] = value.Value{Kind: domain.KindFloat, F: num.Num() / den.Num()}
			}
		}
		if intOverflow {
			return nil, fmt.Errorf("metric %s: %w", mp.Name, domain.ErrIntegerOverflow)
		}
		if overflow {
			return nil, fmt.Errorf("metric %s: %w", mp.Name, domain.ErrDecimalOverflow)
		}
		out[m] = vs
	}
	return out, nil
}

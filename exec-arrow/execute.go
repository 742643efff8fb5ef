package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/gate"
	"sutura.dev/exec-arrow/internal/kernel"
	"sutura.dev/exec-arrow/internal/rank"
)

// Execute runs the plan's single leg over the source's files and returns
// the answer's rows (the semantics are in the package documentation).
// Refusals (result_too_large, resources_exhausted, deadline_exceeded) are
// a *domain.RefusalError; a cancelled ctx returns ctx.Err(); a ratio declared
// zero_denominator: fails with a zero denominator returns an error
// wrapping domain.ErrZeroDenominator.
func (e *Engine) Execute(ctx context.Context, plan *domain.Plan) (*domain.RowSet, error) {
	return e.execute(ctx, plan, nil)
}

// execute runs the plan, counting its work on m when m is not nil. A
// question answered from cached columns pins them; when its own working
// memory then does not fit, it is asked again streaming its files, which
// leaves the cached columns evictable: a question is never refused because
// the cache holds its columns. One refused because running questions held
// the memory it waited for (gate.Busy) is asked again when one of them
// ends, up to waitBound.
func (e *Engine) execute(ctx context.Context, plan *domain.Plan, m *kernel.Meter) (*domain.RowSet, error) {
	if plan == nil {
		return nil, fmt.Errorf("%w: no plan", domain.ErrDefect)
	}
	if ctx.Err() != nil {
		return nil, ctxErr(ctx)
	}
	if err := e.withdrawn(plan); err != nil {
		return nil, err
	}
	if p, ok := e.takePrepared(plan); ok {
		if m != nil {
			m.Rows.Add(p.rows)
			m.Bytes.Add(p.read)
			m.Cached.Add(p.cached)
			m.Loaded.Add(p.loaded)
		}
		return p.rs, p.err
	}
	if len(plan.Legs) == 1 && plan.Legs[0].Kind == domain.LegLookup {
		rs, err := e.lookup(ctx, plan, m)
		if err != nil {
			return nil, e.fail(ctx, err)
		}
		return rs, nil
	}
	deadline := time.Now().Add(waitBound)
	stream := false
	for {
		rs, cached, err := e.attempt(ctx, plan, m, stream)
		var re *domain.RefusalError
		var busy gate.Busy
		switch {
		case cached && !stream && errors.As(err, &re) && re.Reason.Code() == domain.ResourcesExhausted:
			stream = true
		case errors.As(err, &busy) && e.cache.awaitLeave(ctx, deadline):
			// It gave back what it held; another question has ended since.
		default:
			return rs, err
		}
	}
}

// attempt runs the plan once, streaming the base table when stream is set
// or its columns are not all cached; cached reports whether they were.
func (e *Engine) attempt(ctx context.Context, plan *domain.Plan, m *kernel.Meter, stream bool) (_ *domain.RowSet, cached bool, _ error) {
	e.cache.enter()
	defer e.cache.leave()
	q, err := e.bind(ctx, plan, m, stream)
	if err != nil {
		return nil, false, e.fail(ctx, err)
	}
	cached = !q.streamed
	answered := false
	mem := &gate.Reservation{Budget: e.cache}
	defer func() {
		// After the question has given its memory back: the fill is
		// queued only when the columns fit beside what others hold and
		// the working memory this question took.
		if answered && q.streamed {
			e.scheduleFill(q, mem.Peak)
		}
	}()
	defer q.release()
	defer mem.Done()
	src, err := e.producer(ctx, q, mem, m)
	if err != nil {
		return nil, cached, e.fail(ctx, err)
	}
	p, err := kernel.Scan(ctx, &q.Query, src, mem, m)
	finishMeter(m, q)
	if err != nil {
		return nil, cached, e.fail(ctx, err)
	}
	defer p.Close()
	rs, err := q.result(ctx, p, mem)
	if err != nil {
		return nil, cached, e.fail(ctx, err)
	}
	answered = true
	return rs, cached, nil
}

// fail prefers the context's end over whatever error it caused, and gives
// every other error its kind (docs/architecture.md §6): a refusal, a zero
// denominator and a defect keep theirs; anything else — a file that can no
// longer be read, or that no longer matches its model — is the data system
// being unavailable, which asking again after the files are mended cures.
func (e *Engine) fail(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctxErr(ctx)
	}
	var re *domain.RefusalError
	switch {
	case errors.As(err, &re), errors.Is(err, domain.ErrZeroDenominator), errors.Is(err, domain.ErrDefect),
		errors.Is(err, domain.ErrUnavailable), errors.Is(err, domain.ErrRejected):
		return err
	}
	return fmt.Errorf("%w: %w", domain.ErrUnavailable, err)
}

// tooLarge is the refusal of an answer over the row cap or byte bound.
func tooLarge(format string, args ...any) error {
	return &domain.RefusalError{Reason: domain.Refuse(domain.ResultTooLarge, format, args...)}
}

// result finishes the aggregates, orders the groups and builds the rows.
func (q *query) result(ctx context.Context, p *kernel.Partial, mem *gate.Reservation) (*domain.RowSet, error) {
	ng := p.Groups.Len()
	rowCap := q.plan.RowCap
	if rowCap <= 0 {
		rowCap = domain.MaxRowCap
	}
	if q.plan.Top == nil && ng > rowCap {
		return nil, tooLarge("the answer has more than %d rows", rowCap)
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
	vals, err := q.values(ctx, p, ng, mem)
	if err != nil {
		return nil, err
	}
	// Dimension ranks (code → ascending position, nulls last) and values.
	ranks := make([][]int32, nd)
	cells := make([]func(code int32) domain.Cell, nd)
	for d, dim := range q.Dims {
		var order []int32
		if dim.Codes != nil {
			order = dim.Codes.Order
			values := dim.Codes.Values
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
	top := q.plan.Top
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
	if q.plan.Part {
		// A leg's partials go to the combine, which orders the answer.
		order = make([]int, ng)
		for i := range order {
			order[i] = i
		}
	} else if order, err = rank.FirstN(ctx, ng, keep, less); err != nil {
		return nil, err
	}
	if len(order) > rowCap {
		return nil, tooLarge("the answer has more than %d rows", rowCap)
	}
	rs := &domain.RowSet{Columns: append([]domain.Column(nil), q.plan.Columns...), Rows: make([][]domain.Cell, 0, len(order))}
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
		if !q.plan.Part {
			for _, c := range row {
				bytes += len(c.Render())
			}
			if bytes > domain.MaxResultBytes {
				return nil, tooLarge("the answer's cells render to more than %d bytes", domain.MaxResultBytes)
			}
		}
		rs.Rows = append(rs.Rows, row)
	}
	return rs, nil
}

// values finishes every metric in every group.
func (q *query) values(ctx context.Context, p *kernel.Partial, ng int, mem *gate.Reservation) ([][]kernel.Value, error) {
	out := make([][]kernel.Value, len(q.Metrics))
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
		vs := make([]kernel.Value, ng)
		overflow, intOverflow := false, false
		for g := 0; g < ng; g++ {
			if g%column.CheckEvery == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if p.Rows[m][g] == 0 {
				vs[g] = kernel.Value{Null: true}
				continue
			}
			term := func(t int) kernel.Value {
				v := mp.Terms[t].Finish(p.Terms[m][t], distinct[t], sorted[t], g)
				if v.Overflow {
					overflow = true
					intOverflow = intOverflow || v.IntOverflow
					return kernel.Value{Null: true}
				}
				return v
			}
			if mp.Combine != nil {
				raw := term
				term = func(t int) kernel.Value {
					ct := mp.Combine[t]
					if !ct.Avg {
						return raw(ct.A)
					}
					sum, n := raw(ct.A), raw(ct.B)
					if sum.Null || n.Null || n.Num() == 0 {
						return kernel.Value{Null: true}
					}
					return kernel.Value{Kind: domain.KindFloat, F: kernel.Quotient(sum, n)}
				}
			}
			if mp.Ratio == nil {
				vs[g] = term(0)
				continue
			}
			num, den := term(0), term(1)
			switch {
			case num.Null || den.Null:
				vs[g] = kernel.Value{Null: true}
			case den.Num() == 0:
				if mp.Ratio.ZeroDenominator == domain.Fails {
					return nil, fmt.Errorf("metric %s: %w", mp.Name, domain.ErrZeroDenominator)
				}
				vs[g] = kernel.Value{Null: true}
			default:
				vs[g] = kernel.Value{Kind: domain.KindFloat, F: num.Num() / den.Num()}
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

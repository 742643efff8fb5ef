package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/answer"
	"sutura.dev/exec-arrow/internal/cache"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/gate"
	"sutura.dev/exec-arrow/internal/join"
	"sutura.dev/exec-arrow/internal/kernel"
	"sutura.dev/exec-arrow/internal/legrows"
	"sutura.dev/exec-arrow/internal/match"
)

// Combiner computes the answer of a federated plan from the rows of its
// legs (docs/contract.md §11) with the engine's own kernels: the base leg's
// partials are presented to the aggregation as cached columns, batch by
// batch, through the producer every question reads its rows through; each
// lookup leg's rows are a joined table, reached by the same join steps
// (LEFT JOIN: an unmatched or null key gives nulls); the remote filters are
// the same predicates; the partials are re-aggregated by the same term
// kernels (sum for sums, counts and count_ifs, min and max for theirs, a
// sum and a count for avg), and the answer is finished, ordered, ranked
// and bounded by the same code as a single-source answer. It is safe for
// concurrent use.
//
// Combine's outcomes: a *domain.RefusalError for a lookup key held twice
// (federated_answer_not_well_formed), an answer over the row cap or the
// byte bound (result_too_large), working memory over the working set
// (resources_exhausted) or a passed deadline (deadline_exceeded); ctx's
// error when it was cancelled; an error wrapping domain.ErrZeroDenominator
// for a ratio declared to fail; another error for rows that do not fit the
// plan (a defect).
type Combiner struct {
	cache    *cache.Cache
	parallel int
}

// CombinerConfig configures a Combiner of its own, for a deployment with
// no files source (whose engine's Combiner would share its working set).
type CombinerConfig struct {
	// WorkingSetMaxBytes bounds the memory of the combines running at
	// once; zero is DefaultWorkingSetMaxBytes.
	WorkingSetMaxBytes int64
	// Parallelism is the number of goroutines one combine aggregates
	// with; zero is GOMAXPROCS.
	Parallelism int
}

// NewCombiner returns a Combiner with a working set of its own.
func NewCombiner(ctx context.Context, cfg CombinerConfig) (*Combiner, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if cfg.WorkingSetMaxBytes < 0 || cfg.Parallelism < 0 {
		return nil, errors.New("combiner: working set and parallelism may not be negative")
	}
	if cfg.WorkingSetMaxBytes == 0 {
		cfg.WorkingSetMaxBytes = DefaultWorkingSetMaxBytes
	}
	if cfg.Parallelism == 0 {
		cfg.Parallelism = runtime.GOMAXPROCS(0)
	}
	return &Combiner{cache: cache.New(cache.Config{Limit: cfg.WorkingSetMaxBytes}), parallel: cfg.Parallelism}, nil
}

// Combiner returns a Combiner whose working memory counts against the
// engine's working set, beside its cached columns.
func (e *Engine) Combiner() *Combiner {
	return &Combiner{cache: e.cache, parallel: e.cfg.Parallelism}
}

// Combine returns the answer of the federated plan whose legs returned
// legs (legs[i] the rows of plan.Legs[i], columns as LegPlan lists them).
func (c *Combiner) Combine(ctx context.Context, plan *domain.Plan, legs []*domain.RowSet) (*domain.RowSet, error) {
	if ctx.Err() != nil {
		return nil, ctxErr(ctx)
	}
	rs, err := c.combine(ctx, plan, legs)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctxErr(ctx)
		}
		if errors.Is(err, column.ErrDuplicateKey) {
			return nil, &domain.RefusalError{Reason: domain.Refuse(domain.FederatedAnswerNotWellFormed,
				"a lookup leg returned a key twice, so its rows cannot be joined to the others without duplicating them")}
		}
		return nil, err
	}
	return rs, nil
}

func (c *Combiner) combine(ctx context.Context, plan *domain.Plan, legs []*domain.RowSet) (*domain.RowSet, error) {
	if err := legrows.Check(plan, legs); err != nil {
		return nil, err
	}
	comb := plan.Combine
	mem := &gate.Reservation{Budget: c.cache}
	defer mem.Done()
	tables := make([][]*column.Column, len(legs))
	for i, rs := range legs {
		cols, err := legrows.Columns(&plan.Legs[i], rs, mem)
		if err != nil {
			return nil, fmt.Errorf("leg %d: %w", i, err)
		}
		tables[i] = cols
	}
	start := plan.Grain.Truncate(plan.Range.Start)
	whole := &domain.Plan{Columns: plan.Columns, Grain: plan.Grain, Range: domain.Range{Start: start, End: plan.Range.End},
		Top: plan.Top, RowCap: plan.RowCap, Provenance: plan.Provenance}
	n := len(legs[0].Rows)
	q := &query{plan: whole, leg: &domain.Leg{}, views: make([]*cache.View, len(legs)),
		Query: kernel.Query{Parallel: c.parallel, Rows: n, Base: tables[0], Aliases: len(legs), TimeSlot: len(plan.Legs[0].Dimensions)}}
	derived := make([][]*column.Derived, len(tables))
	held := func(leg, col int) *column.Derived { return derived[leg][col] }
	for i, cols := range tables {
		v := &cache.View{Rows: len(legs[i].Rows), Cols: map[string]*column.Column{}, Derived: map[string]*column.Derived{}}
		derived[i] = make([]*column.Derived, len(cols))
		for k, col := range cols {
			derived[i][k] = column.NewDerived(col, nil) // the legs' columns live as long as the combine
			v.Cols[col.Name] = col
			v.Derived[col.Name] = derived[i][k]
		}
		q.views[i] = v
	}
	for lo, g := 0, 0; lo < n; lo, g = lo+column.ChunkRows, g+1 {
		q.views[0].Segs = append(q.views[0].Segs, column.Segment{Lo: lo, Hi: min(lo+column.ChunkRows, n), Group: g})
	}
	if err := q.bindTime(q.Base[q.TimeSlot]); err != nil {
		return nil, err
	}
	for _, l := range comb.Links {
		s, err := join.NewStep(ctx, l.From.Leg, l.Leg, held(l.From.Leg, l.From.Column), held(l.Leg, 0))
		if err != nil {
			return nil, fmt.Errorf("link %s: %w", l.Relationship, err)
		}
		s.FromSlot = l.From.Column
		q.Joins = append(q.Joins, s)
	}
	for _, f := range comb.Filters {
		p, err := match.Caller(f.Column.Leg, held(f.Column.Leg, f.Column.Column),
			domain.FilterRef{Dimension: f.Dimension, Op: f.Op, Values: f.Values})
		if err != nil {
			return nil, err
		}
		if f.Column.Leg == 0 {
			p.Slot = f.Column.Column
			q.BaseFilters = append(q.BaseFilters, p)
		} else {
			q.JoinFilters = append(q.JoinFilters, p)
		}
	}
	for _, lc := range comb.Dimensions {
		col := tables[lc.Leg][lc.Column]
		codes, err := held(lc.Leg, lc.Column).GroupCodes(ctx)
		if err != nil {
			return nil, err
		}
		q.Dims = append(q.Dims, kernel.DimRef{Alias: lc.Leg, Slot: lc.Column, Col: col, Codes: codes})
		q.Radix = append(q.Radix, uint64(codes.Card())+1)
	}
	for _, cm := range comb.Metrics {
		mp, err := legrows.Metric(cm, derived[0])
		if err != nil {
			return nil, err
		}
		q.Metrics = append(q.Metrics, mp)
		q.Needs = append(q.Needs, 0)
	}
	q.timeOnly = q.slotUses(q.TimeSlot) == 0
	p, err := kernel.Scan(ctx, &q.Query, kernel.NewCachedProducer(&q.Query, q.views[0].Derived, q.views[0].Segs), mem, nil)
	if err != nil {
		return nil, err
	}
	return answer.Rows(ctx, q.plan, &q.Query, p, mem)
}

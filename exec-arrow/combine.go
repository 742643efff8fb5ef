package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/kernel"
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
	cache    *cache
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
	return &Combiner{cache: newCache(cfg.WorkingSetMaxBytes), parallel: cfg.Parallelism}, nil
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
	if err := checkCombine(plan, legs); err != nil {
		return nil, err
	}
	comb := plan.Combine
	mem := &kernel.Reservation{Budget: c.cache}
	defer mem.Done()
	tables := make([][]*column.Column, len(legs))
	for i, rs := range legs {
		cols, err := legColumns(&plan.Legs[i], rs, mem)
		if err != nil {
			return nil, fmt.Errorf("leg %d: %w", i, err)
		}
		tables[i] = cols
	}
	start := plan.Grain.Truncate(plan.Range.Start)
	answer := &domain.Plan{Columns: plan.Columns, Grain: plan.Grain, Range: domain.Range{Start: start, End: plan.Range.End},
		Top: plan.Top, RowCap: plan.RowCap, Provenance: plan.Provenance}
	n := len(legs[0].Rows)
	q := &query{plan: answer, leg: &domain.Leg{}, views: make([]*tableView, len(legs)),
		Query: kernel.Query{Parallel: c.parallel, Rows: n, Base: tables[0], Aliases: len(legs), TimeSlot: len(plan.Legs[0].Dimensions)}}
	derived := make([][]*column.Derived, len(tables))
	held := func(leg, col int) *column.Derived { return derived[leg][col] }
	for i, cols := range tables {
		v := &tableView{rows: len(legs[i].Rows), cols: map[string]*column.Column{}, derived: map[string]*column.Derived{}}
		derived[i] = make([]*column.Derived, len(cols))
		for k, col := range cols {
			derived[i][k] = column.NewDerived(col, nil) // the legs' columns live as long as the combine
			v.cols[col.Name] = col
			v.derived[col.Name] = derived[i][k]
		}
		q.views[i] = v
	}
	for lo, g := 0, 0; lo < n; lo, g = lo+column.ChunkRows, g+1 {
		q.views[0].segs = append(q.views[0].segs, column.Segment{Lo: lo, Hi: min(lo+column.ChunkRows, n), Group: g})
	}
	if err := q.bindTime(q.Base[q.TimeSlot]); err != nil {
		return nil, err
	}
	for _, l := range comb.Links {
		s, err := kernel.NewJoinStep(ctx, l.From.Leg, l.Leg, held(l.From.Leg, l.From.Column), held(l.Leg, 0))
		if err != nil {
			return nil, fmt.Errorf("link %s: %w", l.Relationship, err)
		}
		s.FromSlot = l.From.Column
		q.Joins = append(q.Joins, s)
	}
	for _, f := range comb.Filters {
		p, err := kernel.CallerPredicate(f.Column.Leg, held(f.Column.Leg, f.Column.Column),
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
		mp, err := combineMetric(cm, derived[0])
		if err != nil {
			return nil, err
		}
		q.Metrics = append(q.Metrics, mp)
		q.Needs = append(q.Needs, 0)
	}
	q.timeOnly = q.slotUses(q.TimeSlot) == 0
	p, err := kernel.Scan(ctx, &q.Query, kernel.NewCachedProducer(&q.Query, q.views[0].derived, q.views[0].segs), mem, nil)
	if err != nil {
		return nil, err
	}
	return q.result(ctx, p, mem)
}

// combineMetric is the metric plan that re-aggregates cm's partials, the
// columns of the base leg's rows.
func combineMetric(cm domain.CombineMetric, base []*column.Derived) (*kernel.MetricPlan, error) {
	mp := &kernel.MetricPlan{Name: cm.Name, Ratio: cm.Measure.Ratio}
	add := func(op kernel.TermOp, i int) (int, error) {
		col := base[i].Column()
		tp := &kernel.TermPlan{Op: op, Slot: i, Col: col, Float: col.Type == domain.TypeFloat, Dec: col.Type == domain.TypeDecimal}
		switch {
		case op == kernel.OpSum && !col.Numeric():
			return 0, fmt.Errorf("metric %s: a partial to sum is %s, not a number", cm.Name, col.Type)
		case col.Type == domain.TypeText:
			tp.Rank = base[i].Ranks()
		}
		mp.Terms = append(mp.Terms, tp)
		return len(mp.Terms) - 1, nil
	}
	for i, t := range cm.Measure.Terms() {
		parts := cm.Partials[i]
		var (
			ct  kernel.CombineTerm
			err error
		)
		switch {
		case t.CountIf != "", t.Aggregate == domain.Sum, t.Aggregate == domain.Count:
			ct.A, err = add(kernel.OpSum, parts[0])
		case t.Aggregate == domain.Avg:
			ct.Avg = true
			if ct.A, err = add(kernel.OpSum, parts[0]); err == nil {
				ct.B, err = add(kernel.OpSum, parts[1])
			}
		case t.Aggregate == domain.Min:
			ct.A, err = add(kernel.OpMin, parts[0])
		case t.Aggregate == domain.Max:
			ct.A, err = add(kernel.OpMax, parts[0])
		default:
			return nil, &domain.RefusalError{Reason: domain.Refuse(domain.MeasureDoesNotFederate,
				"metric %s counts distinct values, which cannot be combined across data systems", cm.Name)}
		}
		if err != nil {
			return nil, err
		}
		mp.Combine = append(mp.Combine, ct)
	}
	return mp, nil
}

// checkCombine checks that legs fit the plan: one row set per leg, each
// with the leg's columns, and a combine whose every reference names one of
// them, so that no index below can fall outside.
func checkCombine(plan *domain.Plan, legs []*domain.RowSet) error {
	comb := plan.Combine
	if comb == nil || len(plan.Legs) < 2 {
		return errors.New("the plan is not federated")
	}
	if len(legs) != len(plan.Legs) {
		return fmt.Errorf("%d row sets for %d legs", len(legs), len(plan.Legs))
	}
	width := make([]int, len(legs))
	for i, rs := range legs {
		leg := &plan.Legs[i]
		if (i == 0) != (leg.Kind == domain.LegAggregate) {
			return fmt.Errorf("leg %d is of the wrong kind", i)
		}
		width[i] = len(leg.OutputColumns())
		if rs == nil || len(rs.Columns) != width[i] {
			return fmt.Errorf("leg %d: the rows do not have the leg's %d columns", i, width[i])
		}
		for _, row := range rs.Rows {
			if len(row) != width[i] {
				return fmt.Errorf("leg %d: a row does not have the leg's %d columns", i, width[i])
			}
		}
	}
	valid := func(lc domain.LegColumn, before int) bool {
		return lc.Leg >= 0 && lc.Leg < before && lc.Column >= 0 && lc.Column < width[lc.Leg]
	}
	if len(comb.Links) != len(legs)-1 {
		return fmt.Errorf("%d links for %d lookup legs", len(comb.Links), len(legs)-1)
	}
	for i, l := range comb.Links {
		if l.Leg != i+1 || !valid(l.From, l.Leg) {
			return fmt.Errorf("link %d does not join lookup leg %d from an earlier leg", i, i+1)
		}
	}
	var dims, metrics int
	for _, col := range plan.Columns {
		switch col.Role {
		case domain.RoleDimension:
			dims++
		case domain.RoleMetric:
			metrics++
		}
	}
	if len(comb.Dimensions) != dims || dims > domain.MaxDimensions || len(comb.Metrics) != metrics {
		return errors.New("the combine does not produce the plan's columns")
	}
	for _, lc := range comb.Dimensions {
		if !valid(lc, len(legs)) {
			return errors.New("a dimension names no leg column")
		}
	}
	for _, f := range comb.Filters {
		if !valid(f.Column, len(legs)) {
			return fmt.Errorf("the filter on %s names no leg column", f.Dimension)
		}
	}
	firstPartial := len(plan.Legs[0].Dimensions) + 1
	for _, m := range comb.Metrics {
		terms := m.Measure.Terms()
		if len(terms) == 0 || len(m.Partials) != len(terms) {
			return fmt.Errorf("metric %s: one list of partials per term", m.Name)
		}
		for i, t := range terms {
			want := 1
			if t.Aggregate == domain.Avg {
				want = 2
			}
			if len(m.Partials[i]) != want {
				return fmt.Errorf("metric %s: term %d has %d partials, not %d", m.Name, i, len(m.Partials[i]), want)
			}
			for _, c := range m.Partials[i] {
				if c < firstPartial || c >= width[0] {
					return fmt.Errorf("metric %s: a partial names no metric column of the base leg", m.Name)
				}
			}
		}
	}
	return nil
}

// legColumns turns a leg's rows into typed columns named by position, the
// type of each told by its cells (see cellsColumn), with the type the
// plan declares for it as the hint.
func legColumns(leg *domain.Leg, rs *domain.RowSet, mem *kernel.Reservation) ([]*column.Column, error) {
	declared := map[string]domain.ColumnType{}
	tables := append([]domain.Table{leg.Base}, make([]domain.Table, 0, len(leg.Joins))...)
	for _, j := range leg.Joins {
		tables = append(tables, j.To)
	}
	for _, t := range tables {
		for _, c := range t.Columns {
			declared[t.Alias+"."+c.Name] = c.Type
		}
	}
	var hints []domain.ColumnType
	for _, d := range leg.Dimensions {
		hints = append(hints, declared[d.Column.Alias+"."+d.Column.Column])
	}
	if leg.Kind == domain.LegAggregate {
		hints = append(hints, domain.TypeDate)
		for _, m := range leg.Metrics {
			h := domain.TypeInteger
			if t := m.Measure.Simple; t != nil && (t.Aggregate == domain.Min || t.Aggregate == domain.Max) {
				h = declared[leg.Base.Alias+"."+t.Column]
			}
			hints = append(hints, h)
		}
	}
	cols := make([]*column.Column, len(hints))
	for i, h := range hints {
		col, err := column.FromCells(strconv.Itoa(i), rs.Rows, i, h)
		if err != nil {
			return nil, err
		}
		if err := mem.Grow(col.Bytes); err != nil {
			return nil, err
		}
		cols[i] = col
	}
	return cols, nil
}

package engine

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"sync/atomic"

	"sutura.dev/domain"
)

// query is a plan bound to loaded columns: everything a scan needs,
// resolved once.
type query struct {
	plan  *domain.Plan
	leg   *domain.Leg
	views []*tableView // per alias: 0 is the base table, i+1 join i
	rows  int          // base rows

	time     *column
	start    int32
	span     int32
	bucketOf []int32 // day-start → bucket
	buckets  []domain.Date

	joins       []*joinStep
	baseFilters []*predicate // caller filters on the base table
	joinFilters []*predicate // caller filters on joined tables
	required    []*predicate // distinct required filters, all on the base table
	metrics     []*metricPlan
	needs       []uint64 // per metric: the bits of the required filters it needs

	dims   []dimRef
	packed bool     // group keys fit a uint64: key = ((bucket*r1)+c1)*r2+c2...
	radix  []uint64 // per dimension: card+1
	space  uint64   // number of packed keys
}

// dimRef is a grouped dimension bound to its column's codes.
type dimRef struct {
	alias int
	col   *column
	codes *codeSet
}

// metricPlan is one metric: the required filters it needs (indexes into
// query.required), its terms, and its ratio rule.
type metricPlan struct {
	name     string
	required []int
	terms    []*termPlan
	ratio    *domain.Ratio
}

// bind resolves the leg's tables and columns.
func (e *Engine) bind(ctx context.Context, plan *domain.Plan, m *meter) (q *query, err error) {
	if len(plan.Legs) != 1 {
		return nil, &domain.RefusalError{Reason: domain.Refuse(domain.FederationNotExecutable,
			"the embedded engine executes single-leg plans; this plan has %d legs", len(plan.Legs))}
	}
	leg := &plan.Legs[0]
	if leg.Source != e.cfg.Source {
		return nil, fmt.Errorf("the plan's leg is for source %s, not %s", leg.Source, e.cfg.Source)
	}
	if plan.Top != nil && len(leg.Metrics) != 1 {
		return nil, &domain.RefusalError{Reason: domain.Refuse(domain.MultiMetricTopNotExecutable,
			"top ranks a single metric; this plan has %d", len(leg.Metrics))}
	}
	if plan.Grain < domain.Day || plan.Grain > domain.Year {
		return nil, fmt.Errorf("the plan has no valid grain")
	}
	if want := len(leg.Dimensions) + 1 + len(leg.Metrics); len(plan.Columns) != want {
		return nil, fmt.Errorf("the plan lists %d answer columns for %d dimensions, the period and %d metrics", len(plan.Columns), len(leg.Dimensions), len(leg.Metrics))
	}
	q = &query{plan: plan, leg: leg}
	tables := []domain.Table{leg.Base}
	alias := map[string]int{leg.Base.Alias: 0}
	for i, j := range leg.Joins {
		if _, dup := alias[j.To.Alias]; dup {
			return nil, fmt.Errorf("alias %s is used twice", j.To.Alias)
		}
		if _, ok := alias[j.FromAlias]; !ok {
			return nil, fmt.Errorf("join %s starts from alias %s, which is not defined before it", j.Relationship, j.FromAlias)
		}
		alias[j.To.Alias] = i + 1
		tables = append(tables, j.To)
	}
	wants := make([][]want, len(tables))
	need := func(ref domain.ColumnRef) (int, error) {
		a, ok := alias[ref.Alias]
		if !ok {
			return 0, fmt.Errorf("column %s names alias %s, which the leg does not define", ref.Column, ref.Alias)
		}
		w := e.wantOf(tables[a], ref.Column)
		if !containsWant(wants[a], w) {
			wants[a] = append(wants[a], w)
		}
		return a, nil
	}
	base := func(c string) domain.ColumnRef { return domain.ColumnRef{Alias: leg.Base.Alias, Column: c} }
	refs := []domain.ColumnRef{base(leg.TimeColumn)}
	for _, j := range leg.Joins {
		refs = append(refs, domain.ColumnRef{Alias: j.FromAlias, Column: j.FromColumn},
			domain.ColumnRef{Alias: j.To.Alias, Column: j.ToColumn})
	}
	for _, d := range leg.Dimensions {
		refs = append(refs, d.Column)
	}
	for _, f := range leg.Filters {
		refs = append(refs, f.Column)
	}
	for _, m := range leg.Metrics {
		for _, t := range m.Measure.Terms() {
			refs = append(refs, base(t.InputColumn()))
		}
		for _, rf := range m.RequiredFilters {
			refs = append(refs, base(rf.Column))
		}
	}
	for _, r := range refs {
		if _, err := need(r); err != nil {
			return nil, err
		}
	}

	q.views = make([]*tableView, len(tables))
	held := q
	defer func() {
		if err != nil {
			held.release()
		}
	}()
	for i, t := range tables {
		if len(t.Path) == 0 {
			return nil, fmt.Errorf("model %s has no table path", t.Model)
		}
		tf, err := locate(e.cfg.Files, t.Path[len(t.Path)-1])
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", t.Model, err)
		}
		fsys := e.cfg.Files
		var read atomic.Int64
		if m != nil {
			fsys = countingFS{FS: fsys, n: &read}
		}
		v, err := e.cache.acquire(ctx, fsys, tf, wants[i])
		if m != nil {
			m.bytes.Add(read.Load())
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctxErr(ctx)
			}
			return nil, fmt.Errorf("model %s: %w", t.Model, err)
		}
		v.fileBytes = read.Load()
		q.views[i] = v
	}
	q.rows = q.views[0].rows
	col := func(ref domain.ColumnRef) (int, *column) {
		a := alias[ref.Alias]
		return a, q.views[a].cols[ref.Column]
	}
	if err := q.bindTime(col(base(leg.TimeColumn))); err != nil {
		return nil, err
	}
	for i, j := range leg.Joins {
		from, fc := col(domain.ColumnRef{Alias: j.FromAlias, Column: j.FromColumn})
		_, tc := col(domain.ColumnRef{Alias: j.To.Alias, Column: j.ToColumn})
		s, err := newJoinStep(ctx, from, i+1, fc, tc)
		if err != nil {
			return nil, fmt.Errorf("join %s: model %s: %w", j.Relationship, j.To.Model, err)
		}
		q.joins = append(q.joins, s)
	}
	for _, f := range leg.Filters {
		a, c := col(f.Column)
		p, err := callerPredicate(a, c, f)
		if err != nil {
			return nil, err
		}
		if a == 0 {
			q.baseFilters = append(q.baseFilters, p)
		} else {
			q.joinFilters = append(q.joinFilters, p)
		}
	}
	if err := q.bindDims(ctx, col); err != nil {
		return nil, err
	}
	return q, q.bindMetrics(ctx, col)
}

// wantOf is the column of t to read: its declared type from the plan's
// table, else from the engine's model, else inferred.
func (e *Engine) wantOf(t domain.Table, name string) want {
	for _, c := range t.Columns {
		if c.Name == name {
			return want{name: name, typ: c.Type}
		}
	}
	if m, ok := e.models[t.Model]; ok {
		if c, ok := m.Column(name); ok {
			return want{name: name, typ: c.Type}
		}
	}
	return want{name: name}
}

func (q *query) release() {
	for _, v := range q.views {
		if v != nil {
			v.release()
		}
	}
}

// groupSpace is an upper bound of the number of groups, or MaxUint64 when
// the keys do not pack.
func (q *query) groupSpace() uint64 {
	if !q.packed {
		return math.MaxUint64
	}
	return q.space
}

// maxSpan bounds the days of a range the engine buckets through a table.
const maxSpan = 1 << 20

func (q *query) bindTime(_ int, c *column) error {
	if c.typ != domain.TypeDate && c.typ != domain.TypeTimestamp {
		return fmt.Errorf("time column %s is %s, not date or timestamp", c.name, c.typ)
	}
	q.time = c
	r := q.plan.Range
	q.start = int32(r.Start)
	span := int64(r.End) - int64(r.Start)
	if span > maxSpan {
		return fmt.Errorf("the range spans %d days, more than the engine's %d", span, maxSpan)
	}
	if span < 0 {
		span = 0
	}
	q.span = int32(span)
	q.bucketOf = make([]int32, span)
	for i := range q.bucketOf {
		b := q.plan.Grain.Truncate(r.Start + domain.Date(i))
		if len(q.buckets) == 0 || q.buckets[len(q.buckets)-1] != b {
			q.buckets = append(q.buckets, b)
		}
		q.bucketOf[i] = int32(len(q.buckets) - 1)
	}
	return nil
}

func (q *query) bindMetrics(ctx context.Context, col func(domain.ColumnRef) (int, *column)) error {
	keys := map[domain.RequiredFilter]int{}
	base := q.leg.Base.Alias
	if len(q.leg.Metrics) == 0 || len(q.leg.Metrics) > 64 {
		return fmt.Errorf("the leg has %d metrics", len(q.leg.Metrics))
	}
	for _, m := range q.leg.Metrics {
		mp := &metricPlan{name: m.Name, ratio: m.Measure.Ratio}
		terms := m.Measure.Terms()
		if len(terms) == 0 {
			return fmt.Errorf("metric %s has no measure", m.Name)
		}
		for _, t := range terms {
			_, c := col(domain.ColumnRef{Alias: base, Column: t.InputColumn()})
			tp, err := newTermPlan(ctx, t, c, q.groupSpace())
			if err != nil {
				return fmt.Errorf("metric %s: %w", m.Name, err)
			}
			if mp.ratio != nil && !tp.numericResult() {
				return fmt.Errorf("metric %s: a ratio term must be numeric; %s over column %s is not", m.Name, tp.name(), c.name)
			}
			mp.terms = append(mp.terms, tp)
		}
		for _, rf := range m.RequiredFilters {
			k, ok := keys[rf]
			if !ok {
				_, c := col(domain.ColumnRef{Alias: base, Column: rf.Column})
				p, err := requiredPredicate(c, rf)
				if err != nil {
					return fmt.Errorf("metric %s: %w", m.Name, err)
				}
				k = len(q.required)
				if k == 64 {
					return fmt.Errorf("the leg's metrics have more than 64 distinct required filters")
				}
				q.required = append(q.required, p)
				keys[rf] = k
			}
			mp.required = append(mp.required, k)
		}
		var need uint64
		for _, k := range mp.required {
			need |= 1 << k
		}
		q.needs = append(q.needs, need)
		q.metrics = append(q.metrics, mp)
	}
	return nil
}

func (q *query) bindDims(ctx context.Context, col func(domain.ColumnRef) (int, *column)) error {
	q.packed = true
	space := uint64(max(len(q.buckets), 1))
	for _, d := range q.leg.Dimensions {
		a, c := col(d.Column)
		codes, err := c.groupCodes(ctx)
		if err != nil {
			return err
		}
		q.dims = append(q.dims, dimRef{alias: a, col: c, codes: codes})
		r := uint64(codes.card()) + 1
		q.radix = append(q.radix, r)
		hi, lo := bits.Mul64(space, r)
		if hi != 0 || lo > 1<<62 {
			q.packed = false
		}
		space = lo
	}
	if !q.packed && len(q.dims) > 4 {
		return fmt.Errorf("the leg groups by %d dimensions; at most 4 are supported", len(q.dims))
	}
	q.space = space
	return nil
}

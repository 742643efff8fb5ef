package engine

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/cache"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/fillsize"
	"sutura.dev/exec-arrow/internal/format"
	"sutura.dev/exec-arrow/internal/join"
	"sutura.dev/exec-arrow/internal/kernel"
	"sutura.dev/exec-arrow/internal/match"
)

// query is a plan bound to its columns: everything a scan needs, resolved
// once. The base table's columns are slots: a batch brings one column per
// slot (Query.Base holds the cached columns, or, when the base table is
// streamed, prototypes carrying only name and type). Joined tables are
// always whole cached columns (views), since a join reaches their rows by
// position.
type query struct {
	kernel.Query // what the kernels read; the rest serves binding, streaming and metering
	plan         *domain.Plan
	leg          *domain.Leg
	views        []*cache.View // per alias: 0 is the base table (nil when streamed), i+1 join i
	baseWants    []format.Want
	inferred     []bool // per base slot: streamed with a type inferred from its text
	// timeOnly says the time column serves only to place rows in the range
	// and a bucket: a row group all in one bucket need not read it.
	timeOnly bool
	tf       *files.Table // the base table's files
	streamed bool
	// seen is what the stream of the base table's files met, for the
	// fill's estimate (fillBytes).
	seen *fillsize.Seen
}

// errFromCache is an error bind met after it had bound the base table to
// its cached columns (building what a dimension or term derives from
// them, say): execute asks a question refused for memory then again,
// streaming, as it does one refused while it scans them.
type errFromCache struct{ error }

func (e errFromCache) Unwrap() error { return e.error }

// streamedRadix is the starting radix of a dimension numbered while
// streaming; it doubles as values arrive.
const streamedRadix = 4

// bind resolves the leg's tables and columns: the joined tables are
// loaded into the cache (or found there), the base table is scanned from
// the cache when every column it needs is there, and streamed from its
// files otherwise.
func (e *Engine) bind(ctx context.Context, plan *domain.Plan, m *kernel.Meter, stream bool) (q *query, err error) {
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
	if len(leg.Dimensions) > kernel.MaxGroupKeys {
		return nil, &domain.RefusalError{Reason: domain.Refuse(domain.FederationNotExecutable,
			"the leg groups by %d columns; the embedded engine groups by at most %d", len(leg.Dimensions), kernel.MaxGroupKeys)}
	}
	q = &query{plan: plan, leg: leg}
	q.Parallel = e.cfg.Parallelism
	tables, alias, err := legTables(leg)
	if err != nil {
		return nil, err
	}
	for _, t := range tables {
		if len(t.Path) == 0 {
			return nil, fmt.Errorf("model %s has no table path", t.Model)
		}
	}
	wants, slotOf, err := e.wants(leg, tables, alias)
	if err != nil {
		return nil, err
	}
	q.views = make([]*cache.View, len(tables))
	q.Aliases = len(tables)
	held := q
	defer func() {
		if err != nil {
			if held.views[0] != nil {
				err = errFromCache{err}
			}
			held.release()
		}
	}()
	if err := e.bindBase(ctx, q, tables[0], wants[0], m, stream); err != nil {
		return nil, err
	}
	for i := 1; i < len(tables); i++ {
		v, err := e.acquire(ctx, tables[i], wants[i], m)
		if err != nil {
			return nil, err
		}
		q.views[i] = v
	}
	col := func(ref domain.ColumnRef) (int, *column.Column) {
		a := alias[ref.Alias]
		if a == 0 {
			return 0, q.Base[slotOf[ref.Column]]
		}
		return a, q.views[a].Cols[ref.Column]
	}
	q.TimeSlot = slotOf[leg.TimeColumn]
	if c := q.Base[q.TimeSlot]; c.Type != domain.TypeDate && c.Type != domain.TypeTimestamp {
		// An undeclared type is the file's: name the table it was inferred from.
		return nil, fmt.Errorf("table %s: time column %s is %s, not date or timestamp", leg.Base.Path[len(leg.Base.Path)-1], c.Name, c.Type)
	}
	if err := q.bindTime(q.Base[q.TimeSlot]); err != nil {
		return nil, err
	}
	var keys []joinKeys // per join: its key columns' derived structures
	for i, j := range leg.Joins {
		from, fc := col(domain.ColumnRef{Alias: j.FromAlias, Column: j.FromColumn})
		to, tc := col(domain.ColumnRef{Alias: j.To.Alias, Column: j.ToColumn})
		k := joinKeys{from: q.views[from].Held(fc), to: q.views[to].Held(tc)}
		s, err := join.NewStep(ctx, from, i+1, k.from, k.to)
		if err != nil {
			return nil, fmt.Errorf("join %s: model %s: %w", j.Relationship, j.To.Model, err)
		}
		s.FromSlot = slotOf[j.FromColumn]
		q.Joins, keys = append(q.Joins, s), append(keys, k)
	}
	for _, f := range leg.Filters {
		a, c := col(f.Column)
		p, err := match.Caller(a, q.views[a].Held(c), f)
		if err != nil {
			return nil, err
		}
		if a == 0 {
			p.Slot = slotOf[f.Column.Column]
			q.BaseFilters = append(q.BaseFilters, p)
		} else {
			q.JoinFilters = append(q.JoinFilters, p)
		}
	}
	if err := q.bindDims(ctx, col, slotOf); err != nil {
		return nil, err
	}
	if err := q.bindMetrics(ctx, col, slotOf); err != nil {
		// A column's type may be the file's (inferred): name the table.
		return nil, fmt.Errorf("table %s: %w", leg.Base.Path[len(leg.Base.Path)-1], err)
	}
	q.composeJoins(keys)
	q.timeOnly = q.slotUses(q.TimeSlot) == 0
	q.DirectOK = !kernel.DirectOff && q.DirectShape()
	if !q.streamed {
		q.fitWorkers(e.cache.Stats())
	}
	return q, nil
}

// fitWorkers fits a cached question's distinct counts' bitsets, one set
// a worker, in what the working set has free (s): millions of codes by
// dozens of groups take hundreds of megabytes a worker. When one set
// fits but not one a worker, the workers share the codes of one set
// (kernel.Query.ShareCodes), where the question allows it; otherwise it
// runs on as many workers as fit, at least one. Refused on every worker,
// the question would be asked again streaming its files, which costs far
// more (docs/performance.md, "Distinct counts from codes alone").
func (q *query) fitWorkers(s cache.Stats) {
	var per int64
	for _, mp := range q.Metrics {
		for _, tp := range mp.Terms {
			per += tp.Bitsets()
		}
	}
	free := s.Limit - s.Used
	if per == 0 || q.Parallel <= 1 || per*int64(q.Parallel) <= free {
		return
	}
	if per <= free && q.CanShareCodes() {
		q.ShareCodes = true
		return
	}
	q.Parallel = int(max(1, min(int64(q.Parallel), free/per)))
}

// joinKeys are the derived structures of a join's key columns: the one
// it joins from, the one it joins to.
type joinKeys struct{ from, to *column.Derived }

// composeJoins makes each two joins through a table the question reads
// nothing else of — the customer between an order and its region, when
// only the region is grouped by — one lookup a row (join.Compose): a
// dimension two joins away then costs one load from memory a row, not
// two. keys are the joins' key columns, in q.Joins' order.
func (q *query) composeJoins(keys []joinKeys) {
	for i := 0; i < len(q.Joins); i++ {
		first := q.Joins[i]
		a := first.To
		next, from := -1, 0
		for j, s := range q.Joins {
			if s.From == a {
				next, from = j, from+1
			}
		}
		if next < 0 || from > 1 || slices.ContainsFunc(q.Dims, func(d kernel.DimRef) bool { return d.Alias == a }) ||
			slices.ContainsFunc(q.JoinFilters, func(f *match.Predicate) bool { return f.Alias == a }) {
			continue
		}
		second, k := q.Joins[next], keys[next]
		c, ok := join.Compose(first, second, func(n int, build func() []int32) ([]int32, error) {
			return k.from.Composed(keys[i].to, k.to, n, build)
		})
		if !ok {
			continue
		}
		q.Joins[i] = c
		q.Joins = slices.Delete(q.Joins, next, next+1)
		keys = slices.Delete(keys, next, next+1)
	}
}

// slotUses counts what reads a base slot besides the range: dimensions,
// filters, join keys, terms.
func (q *query) slotUses(slot int) int {
	n := 0
	for _, d := range q.Dims {
		n += column.BitOf(d.Alias == 0 && d.Slot == slot)
	}
	for _, f := range q.BaseFilters {
		n += column.BitOf(f.Slot == slot)
	}
	for _, f := range q.Required {
		n += column.BitOf(f.Slot == slot)
	}
	for _, j := range q.Joins {
		n += column.BitOf(j.From == 0 && j.FromSlot == slot)
	}
	for _, m := range q.Metrics {
		for _, t := range m.Terms {
			n += column.BitOf(t.Slot == slot)
		}
	}
	return n
}

// wants lists the columns each table is read for; base-table columns read
// only for their validity (the input of count, an is_not_null filter) are
// wanted for validity alone, and text columns whose values are read only
// to count the distinct ones are wanted for those counts (format.Want's
// Codes). slotOf numbers the base table's columns.
func (e *Engine) wants(leg *domain.Leg, tables []domain.Table, alias map[string]int) ([][]format.Want, map[string]int, error) {
	type use struct {
		values bool
		refs   int  // how many things read it: the range, a dimension, a term...
		other  bool // something reads its values other than a count_distinct
	}
	uses := make([]map[string]*use, len(tables))
	order := make([][]string, len(tables))
	for i := range uses {
		uses[i] = map[string]*use{}
	}
	need := func(ref domain.ColumnRef, values, distinct bool) error {
		a, ok := alias[ref.Alias]
		if !ok {
			return fmt.Errorf("column %s names alias %s, which the leg does not define", ref.Column, ref.Alias)
		}
		u := uses[a][ref.Column]
		if u == nil {
			u = &use{}
			uses[a][ref.Column] = u
			order[a] = append(order[a], ref.Column)
		}
		u.values = u.values || values || a != 0
		u.other = u.other || values && !distinct || a != 0
		u.refs++
		return nil
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
	for _, r := range refs {
		if err := need(r, true, false); err != nil {
			return nil, nil, err
		}
	}
	for _, m := range leg.Metrics {
		for _, t := range m.Measure.Terms() {
			distinct := t.CountIf == "" && t.Aggregate == domain.CountDistinct
			if err := need(base(t.InputColumn()), t.CountIf != "" || t.Aggregate != domain.Count, distinct); err != nil {
				return nil, nil, err
			}
		}
		for _, rf := range m.RequiredFilters {
			if err := need(base(rf.Column), rf.Op != domain.IsNotNull, false); err != nil {
				return nil, nil, err
			}
		}
	}
	out := make([][]format.Want, len(tables))
	slotOf := map[string]int{}
	for a, names := range order {
		for _, name := range names {
			w := e.wantOf(tables[a], name)
			if !uses[a][name].values {
				w.ValidOnly = true
			}
			// A timestamp read only for the range and the bucket is read
			// as its days: half the memory cached, no division a row.
			if a == 0 && name == leg.TimeColumn && uses[a][name].refs == 1 && w.Type == domain.TypeTimestamp {
				w.Days = true
			}
			if a == 0 && w.Type == domain.TypeText && uses[a][name].values && !uses[a][name].other {
				w.Codes = true
			}
			if a == 0 {
				slotOf[name] = len(out[0])
			}
			out[a] = append(out[a], w)
		}
	}
	return out, slotOf, nil
}

// bindBase pins the base table's columns when all are cached (and stream
// is not set), and otherwise prepares to stream them: it resolves the type of each column
// read for its values and makes their prototypes.
func (e *Engine) bindBase(ctx context.Context, q *query, t domain.Table, wants []format.Want, m *kernel.Meter, stream bool) error {
	tf, err := files.Locate(e.cfg.Files, t.Path[len(t.Path)-1])
	if err != nil {
		return fmt.Errorf("model %s: %w", t.Model, err)
	}
	q.tf, q.baseWants = tf, wants
	if !stream {
		if v := e.cache.Peek(tf, wants); v != nil {
			q.views[0], q.Rows = v, v.Rows
			q.Base = make([]*column.Column, len(wants))
			for i, w := range wants {
				q.Base[i] = v.Cols[w.Name]
			}
			return nil
		}
	}
	q.streamed = true
	types, err := e.resolveTypes(ctx, tf, wants, m)
	if err != nil {
		return fmt.Errorf("model %s: %w", t.Model, err)
	}
	q.Base = make([]*column.Column, len(wants))
	q.inferred = make([]bool, len(wants))
	q.seen = fillsize.New(len(wants))
	for i, w := range wants {
		q.Base[i] = &column.Column{Name: w.Name, Type: types[i], Spec: w.Spec, ValidOnly: w.ValidOnly, ID: column.ColumnIDs.Add(1)}
		q.inferred[i] = w.Type == domain.TypeUnset && !w.ValidOnly
	}
	return nil
}

// acquire loads (or finds) the wanted columns of a joined table and pins
// them.
func (e *Engine) acquire(ctx context.Context, t domain.Table, wants []format.Want, m *kernel.Meter) (*cache.View, error) {
	tf, err := files.Locate(e.cfg.Files, t.Path[len(t.Path)-1])
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", t.Model, err)
	}
	fsys := e.cfg.Files
	var read atomic.Int64
	if m != nil {
		fsys = files.Counting(fsys, &read)
	}
	v, err := e.cache.Acquire(ctx, fsys, tf, wants)
	if m != nil {
		m.Bytes.Add(read.Load())
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctxErr(ctx)
		}
		return nil, fmt.Errorf("model %s: %w", t.Model, err)
	}
	v.FileBytes = read.Load()
	return v, nil
}

// wantOf is the column of t to read: its declared type from the plan's
// table, else from the engine's model, else inferred.
func (e *Engine) wantOf(t domain.Table, name string) format.Want {
	for _, c := range t.Columns {
		if c.Name == name {
			return format.Want{Name: name, Type: c.Type, Spec: column.SpecOf(c)}
		}
	}
	if m, ok := e.models[t.Model]; ok {
		if c, ok := m.Column(name); ok {
			return format.Want{Name: name, Type: c.Type, Spec: column.SpecOf(c)}
		}
	}
	return format.Want{Name: name}
}

func (q *query) release() {
	for _, v := range q.views {
		if v != nil {
			v.Release()
		}
	}
}

// groupSpace is an upper bound of the number of groups when every
// dimension has fixed codes.
func (q *query) groupSpace() uint64 {
	space := uint64(max(len(q.Buckets), 1))
	for _, r := range q.Radix {
		if space > 1<<62/max(r, 1) {
			return 1 << 62
		}
		space *= r
	}
	return space
}

// maxSpan bounds the days of a range the engine buckets through a table.
const maxSpan = 1 << 20

func (q *query) bindTime(c *column.Column) error {
	r := q.plan.Range
	q.Start = int32(r.Start)
	span := int64(r.End) - int64(r.Start)
	if span > maxSpan {
		return fmt.Errorf("the range spans %d days, more than the engine's %d", span, maxSpan)
	}
	if span < 0 {
		span = 0
	}
	q.Span = int32(span)
	q.BucketOf = make([]int32, span)
	for i := range q.BucketOf {
		b := q.plan.Grain.Truncate(r.Start + domain.Date(i))
		if len(q.Buckets) == 0 || q.Buckets[len(q.Buckets)-1] != b {
			q.Buckets = append(q.Buckets, b)
		}
		q.BucketOf[i] = int32(len(q.Buckets) - 1)
	}
	return nil
}

func (q *query) bindMetrics(ctx context.Context, col func(domain.ColumnRef) (int, *column.Column), slotOf map[string]int) error {
	keys := map[domain.RequiredFilter]int{}
	base := q.leg.Base.Alias
	if len(q.leg.Metrics) == 0 || len(q.leg.Metrics) > 64 {
		return fmt.Errorf("the leg has %d metrics", len(q.leg.Metrics))
	}
	for _, m := range q.leg.Metrics {
		mp := &kernel.MetricPlan{Name: m.Name, Ratio: m.Measure.Ratio}
		terms := m.Measure.Terms()
		if len(terms) == 0 {
			return fmt.Errorf("metric %s has no measure", m.Name)
		}
		for _, t := range terms {
			_, c := col(domain.ColumnRef{Alias: base, Column: t.InputColumn()})
			tp, err := kernel.NewTermPlan(ctx, t, slotOf[t.InputColumn()], q.views[0].Held(c), q.groupSpace(), !q.streamed)
			if err != nil {
				return fmt.Errorf("metric %s: %w", m.Name, err)
			}
			if mp.Ratio != nil && !tp.NumericResult() {
				return fmt.Errorf("metric %s: a ratio term must be numeric; %s over column %s is not", m.Name, tp.Name(), c.Name)
			}
			mp.Terms = append(mp.Terms, tp)
		}
		for _, rf := range m.RequiredFilters {
			k, ok := keys[rf]
			if !ok {
				_, c := col(domain.ColumnRef{Alias: base, Column: rf.Column})
				p, err := match.Required(q.views[0].Held(c), rf)
				if err != nil {
					return fmt.Errorf("metric %s: %w", m.Name, err)
				}
				p.Slot = slotOf[rf.Column]
				k = len(q.Required)
				if k == 64 {
					return fmt.Errorf("the leg's metrics have more than 64 distinct required filters")
				}
				q.Required = append(q.Required, p)
				keys[rf] = k
			}
			mp.Required = append(mp.Required, k)
		}
		var need uint64
		for _, k := range mp.Required {
			need |= 1 << k
		}
		q.Needs = append(q.Needs, need)
		q.Metrics = append(q.Metrics, mp)
	}
	return nil
}

func (q *query) bindDims(ctx context.Context, col func(domain.ColumnRef) (int, *column.Column), slotOf map[string]int) error {
	for _, d := range q.leg.Dimensions {
		a, c := col(d.Column)
		if a == 0 && q.streamed {
			q.Dims = append(q.Dims, kernel.DimRef{Alias: 0, Slot: slotOf[d.Column.Column], Col: c})
			q.Radix = append(q.Radix, streamedRadix)
			continue
		}
		codes, err := q.views[a].Held(c).GroupCodes(ctx)
		if err != nil {
			return err
		}
		q.Dims = append(q.Dims, kernel.DimRef{Alias: a, Slot: slotOf[d.Column.Column], Col: c, Codes: codes})
		q.Radix = append(q.Radix, uint64(codes.Card())+1)
	}
	return nil
}

// legTables lists the tables leg reads, its base first and then each
// joined table in join order, and the index of each alias in that list. A
// join that reuses an alias or starts from one not defined before it is
// an error (a plan Compile did not build).
func legTables(leg *domain.Leg) ([]domain.Table, map[string]int, error) {
	tables := []domain.Table{leg.Base}
	alias := map[string]int{leg.Base.Alias: 0}
	for i, j := range leg.Joins {
		if _, dup := alias[j.To.Alias]; dup {
			return nil, nil, fmt.Errorf("alias %s is used twice", j.To.Alias)
		}
		if _, ok := alias[j.FromAlias]; !ok {
			return nil, nil, fmt.Errorf("join %s starts from alias %s, which is not defined before it", j.Relationship, j.FromAlias)
		}
		alias[j.To.Alias] = i + 1
		tables = append(tables, j.To)
	}
	return tables, alias, nil
}

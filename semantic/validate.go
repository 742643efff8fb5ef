package semantic

import (
	"sutura.dev/domain"
)

// newRenderer checks that p is a plan Render can write: one leg (a
// single-source plan, or one leg of a federated plan as LegPlan returns
// it), valid identifiers everywhere, every alias defined before use, known
// operators and measures. A plan from Compile always passes; the checks
// keep a plan built by hand from ever putting an unchecked name into SQL.
func newRenderer(p *domain.Plan, d Dialect) (*renderer, error) {
	if p == nil {
		return nil, notRenderable("no plan")
	}
	if len(p.Legs) != 1 || p.Combine != nil {
		return nil, notRenderable("a plan with %d legs is not a single statement; render each leg's LegPlan", len(p.Legs))
	}
	if p.Grain < domain.Day || p.Grain > domain.Year {
		return nil, notRenderable("invalid grain")
	}
	if p.Range.End <= p.Range.Start {
		return nil, notRenderable("empty range")
	}
	maxCap := domain.MaxRowCap
	if p.Part {
		maxCap = domain.MaxLegRowCap
	}
	if p.RowCap < 1 || p.RowCap > maxCap {
		return nil, notRenderable("row cap out of bounds")
	}
	if p.Part && p.Top != nil {
		return nil, notRenderable("a leg of a federated plan has no top")
	}
	if t := p.Top; t != nil && (t.N < 1 || t.N > p.RowCap || (t.By != domain.ByMetric && t.By != domain.ByPeriod)) {
		return nil, notRenderable("invalid top")
	}
	leg := &p.Legs[0]
	r := &renderer{d: d, p: p, leg: leg, tables: map[string]domain.Table{}}
	if err := r.addTable(leg.Base); err != nil {
		return nil, err
	}
	for _, j := range leg.Joins {
		if err := r.checkColumn(domain.ColumnRef{Alias: j.FromAlias, Column: j.FromColumn}); err != nil {
			return nil, err
		}
		if err := r.addTable(j.To); err != nil {
			return nil, err
		}
		if err := r.checkColumn(domain.ColumnRef{Alias: j.To.Alias, Column: j.ToColumn}); err != nil {
			return nil, err
		}
	}
	switch leg.Kind {
	case domain.LegAggregate:
		if err := r.checkColumn(domain.ColumnRef{Alias: leg.Base.Alias, Column: leg.TimeColumn}); err != nil {
			return nil, err
		}
		if len(leg.Metrics) == 0 {
			return nil, notRenderable("no metric")
		}
	case domain.LegLookup:
		if !p.Part || len(leg.Metrics) != 0 || len(leg.Dimensions) == 0 {
			return nil, notRenderable("a lookup leg is a part of a federated plan with columns and no metric")
		}
	default:
		return nil, notRenderable("unknown kind of leg")
	}
	if p.Top != nil && p.Top.By == domain.ByMetric && len(leg.Metrics) != 1 {
		return nil, notRenderable("top by metric needs exactly one metric")
	}
	labels := map[string]bool{"period": true}
	label := func(s string) error {
		if err := domain.CheckIdent(s); err != nil {
			return notRenderable("an answer label %s", err)
		}
		if labels[domain.FoldIdent(s)] {
			return notRenderable("two answer columns share label %s", s)
		}
		labels[domain.FoldIdent(s)] = true
		return nil
	}
	for _, dim := range leg.Dimensions {
		if err := label(dim.Name); err != nil {
			return nil, err
		}
		if err := r.checkColumn(dim.Column); err != nil {
			return nil, err
		}
	}
	for _, f := range leg.Filters {
		if err := r.checkColumn(f.Column); err != nil {
			return nil, err
		}
		if len(f.Values) == 0 || (f.Op == domain.OpEq && len(f.Values) != 1) ||
			(f.Op != domain.OpEq && f.Op != domain.OpIn && f.Op != domain.OpNotIn) {
			return nil, notRenderable("invalid filter on %s", f.Dimension)
		}
	}
	for _, m := range leg.Metrics {
		if err := label(m.Name); err != nil {
			return nil, err
		}
		if err := r.checkMeasure(m.Measure); err != nil {
			return nil, err
		}
		for _, f := range m.RequiredFilters {
			if err := r.checkColumn(domain.ColumnRef{Alias: leg.Base.Alias, Column: f.Column}); err != nil {
				return nil, err
			}
			switch f.Op {
			case domain.Equals, domain.NotEquals, domain.IsTrue, domain.IsNotNull:
			default:
				return nil, notRenderable("unknown required-filter operator in metric %s", m.Name)
			}
		}
	}
	return r, nil
}

func (r *renderer) addTable(t domain.Table) error {
	if err := domain.CheckIdent(t.Alias); err != nil {
		return notRenderable("a table alias %s", err)
	}
	if _, dup := r.tables[t.Alias]; dup {
		return notRenderable("alias %s is used twice", t.Alias)
	}
	if len(t.Path) == 0 || len(t.Path) > 3 {
		return notRenderable("table of model %s has no valid path", t.Model)
	}
	for _, s := range t.Path {
		if err := domain.CheckIdent(s); err != nil {
			return notRenderable("a table path segment %s", err)
		}
	}
	r.tables[t.Alias] = t
	return nil
}

// checkColumn checks that c names a defined alias and is an identifier.
func (r *renderer) checkColumn(c domain.ColumnRef) error {
	if _, ok := r.tables[c.Alias]; !ok {
		return notRenderable("alias %s is used before it is defined", c.Alias)
	}
	if err := domain.CheckIdent(c.Column); err != nil {
		return notRenderable("a column name %s", err)
	}
	return nil
}

func (r *renderer) checkMeasure(m domain.Measure) error {
	if (m.Simple == nil) == (m.Ratio == nil) {
		return notRenderable("a measure is exactly one of simple and ratio")
	}
	terms := m.Terms()
	if m.Ratio != nil && m.Ratio.ZeroDenominator != domain.YieldsNull && m.Ratio.ZeroDenominator != domain.Fails {
		return notRenderable("unknown zero_denominator")
	}
	for _, t := range terms {
		if t.CountIf == "" && !validAggregate(t.Aggregate) {
			return notRenderable("unknown aggregate")
		}
		if err := r.checkColumn(domain.ColumnRef{Alias: r.leg.Base.Alias, Column: t.InputColumn()}); err != nil {
			return err
		}
	}
	return nil
}

func validAggregate(a domain.Aggregate) bool {
	for _, x := range domain.Aggregates {
		if a == x {
			return true
		}
	}
	return false
}

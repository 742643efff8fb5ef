package semantic

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"sutura.dev/domain"
)

// Default ceilings of a federated plan (governance.lookup_leg_ceiling and
// governance.source_ceiling).
const (
	DefaultLookupLegCeiling = 3
	DefaultSourceCeiling    = 4
)

// Ceilings bound what one federated plan may span. A zero field is its
// default.
type Ceilings struct {
	// LookupLegs is the most lookup legs (crossing relationships) a plan
	// may need: more is plan_needs_too_many_lookup_legs.
	LookupLegs int
	// Sources is the most data systems a plan may read: more is
	// plan_spans_too_many_sources.
	Sources int
}

func (c Ceilings) withDefaults() Ceilings {
	if c.LookupLegs <= 0 {
		c.LookupLegs = DefaultLookupLegCeiling
	}
	if c.Sources <= 0 {
		c.Sources = DefaultSourceCeiling
	}
	return c
}

// crosses reports whether a dimension of the question (grouped or only
// filtered) is read from a model in another source than the metrics'
// model: the question is then planned in legs.
func crosses(b *domain.Bundle, r *resolved) bool {
	base, ok := b.Model(r.metrics[0].Model)
	if !ok {
		return false
	}
	for _, d := range append(append([]*domain.Dimension(nil), r.dims...), r.filterDims...) {
		at := base.Name
		for _, name := range d.Via {
			rel, ok := b.Relationship(name)
			if !ok {
				return false
			}
			to, _, ok := domain.Step(rel, at)
			if !ok {
				return false
			}
			m, ok := b.Model(to)
			if !ok {
				return false
			}
			if m.Source != base.Source {
				return true
			}
			at = to
		}
	}
	return false
}

// fedLeg is one leg of a federated plan under construction.
type fedLeg struct {
	leg    *domain.Leg
	models map[string]string // alias → model
	keys   int               // onward keys added (labels k1, k2 ...)
	dims   int               // dimension columns added (labels d1, d2 ...)
}

// federation builds a federated plan.
type federation struct {
	b    *domain.Bundle
	r    *resolved
	legs []*fedLeg
	// steps maps a via-chain prefix ("r1/r2") to the leg and alias it
	// reaches.
	steps map[string]step
	links []domain.Link
	// cols maps a dimension name to the leg column that holds it.
	cols map[string]domain.LegColumn
}

type step struct {
	leg   int
	alias string
	model string
}

// planFederated plans a question whose dimensions are read from several
// sources (docs/contract.md §11): a base leg of partials on the metrics' source,
// one lookup leg per crossing relationship, and the combine. Its
// refusals come in the order of §11.
func planFederated(b *domain.Bundle, r *resolved, c Ceilings) (*domain.Plan, *domain.Reason) {
	c = c.withDefaults()
	first := r.metrics[0]
	base, _ := b.Model(first.Model)
	f := &federation{b: b, r: r, steps: map[string]step{}, cols: map[string]domain.LegColumn{}}
	f.legs = append(f.legs, &fedLeg{
		leg:    &domain.Leg{Source: base.Source, Base: table(base, "t0"), TimeColumn: first.TimeColumn},
		models: map[string]string{"t0": base.Name},
	})
	comb := &domain.Combine{}
	var remoteDim string // a dimension read through a crossing, for details
	for _, d := range r.dims {
		leg, ref, why := f.reach(d)
		if why != nil {
			return nil, why
		}
		comb.Dimensions = append(comb.Dimensions, f.output(leg, ref, d.Name))
		if leg > 0 && remoteDim == "" {
			remoteDim = d.Name
		}
	}
	for i, flt := range r.q.Filters {
		d := r.filterDims[i]
		leg, ref, why := f.reach(d)
		if why != nil {
			return nil, why
		}
		fr := domain.FilterRef{Dimension: flt.Dimension, Column: ref, Op: flt.Op, Values: append([]string(nil), flt.Values...)}
		if leg == 0 {
			f.legs[0].leg.Filters = append(f.legs[0].leg.Filters, fr)
			continue
		}
		if remoteDim == "" {
			remoteDim = d.Name
		}
		comb.Filters = append(comb.Filters, domain.CombineFilter{Dimension: flt.Dimension, Column: f.output(leg, ref, d.Name),
			Op: flt.Op, Values: append([]string(nil), flt.Values...)})
		if flt.Op == domain.OpEq || flt.Op == domain.OpIn {
			// Bound in the lookup leg too, so that it returns only the rows
			// that can pass. not_in stays in the combine alone: a row the
			// lookup dropped would come back as an unmatched key, whose null
			// not_in keeps.
			f.legs[leg].leg.Filters = append(f.legs[leg].leg.Filters, fr)
		}
	}
	if why := f.refusals(c, remoteDim); why != nil {
		return nil, why
	}
	for _, fl := range f.legs {
		if why := checkBareNames(fl.leg); why != nil {
			return nil, why
		}
	}
	p := skeleton(b, r)
	bl := f.legs[0].leg
	for _, m := range r.metrics {
		cm := domain.CombineMetric{Name: m.Name, Measure: copyMeasure(*m.Measure)}
		for _, t := range m.Measure.Terms() {
			parts := []domain.Term{t}
			if t.Aggregate == domain.Avg {
				parts = []domain.Term{{Aggregate: domain.Sum, Column: t.Column}, {Aggregate: domain.Count, Column: t.Column}}
			}
			var cols []int
			for _, pt := range parts {
				cols = append(cols, len(bl.Dimensions)+1+len(bl.Metrics))
				bl.Metrics = append(bl.Metrics, domain.MetricRef{
					Name:            "p" + strconv.Itoa(len(bl.Metrics)+1),
					Measure:         domain.Measure{Simple: &pt},
					RequiredFilters: append([]domain.RequiredFilter(nil), m.RequiredFilters...),
				})
			}
			cm.Partials = append(cm.Partials, cols)
		}
		comb.Metrics = append(comb.Metrics, cm)
	}
	comb.Links = f.links
	p.Combine = comb
	for _, fl := range f.legs {
		p.Legs = append(p.Legs, *fl.leg)
	}
	return p, nil
}

// refusals checks the federated plan in the order of docs/contract.md §11.
func (f *federation) refusals(c Ceilings, remoteDim string) *domain.Reason {
	for _, m := range f.r.metrics {
		if m.Measure == nil {
			continue
		}
		for _, t := range m.Measure.Terms() {
			if t.Aggregate == domain.CountDistinct {
				return refuse(domain.MeasureDoesNotFederate,
					"metric %s counts distinct values, which cannot be combined across data systems, and dimension %s is read from another data system", m.Name, remoteDim)
			}
		}
	}
	reached := map[string]int{} // remote model → the lookup leg reaching it
	for i, fl := range f.legs[1:] {
		for _, model := range sortedValues(fl.models) {
			if other, ok := reached[model]; ok && other != i+1 {
				return refuse(domain.FederationLinkAmbiguous,
					"model %s is reached through two crossing relationships (%s and %s); the question cannot say which one links it",
					model, f.links[other-1].Relationship, f.links[i].Relationship)
			}
			reached[model] = i + 1
		}
	}
	if n := len(f.legs) - 1; n > c.LookupLegs {
		return refuse(domain.PlanNeedsTooManyLookupLegs,
			"the question crosses %d relationships between data systems; this deployment allows at most %d (governance.lookup_leg_ceiling)", n, c.LookupLegs)
	}
	sources := map[string]bool{}
	for _, fl := range f.legs {
		sources[fl.leg.Source] = true
	}
	if len(sources) > c.Sources {
		return refuse(domain.PlanSpansTooManySources,
			"the question reads %d data systems; this deployment allows at most %d (governance.source_ceiling)", len(sources), c.Sources)
	}
	for _, m := range f.r.metrics {
		if m.Measure == nil {
			return refuse(domain.FederationNotExecutable, "metric %s is defined by authored SQL, which no plan can carry", m.Name)
		}
	}
	return nil
}

// sortedValues returns the distinct values of m, sorted, so that details
// do not depend on the map's order.
func sortedValues(m map[string]string) []string {
	return slices.Compact(slices.Sorted(maps.Values(m)))
}

// reach walks d's via chain, joining inside a leg while the chain stays
// in its source and opening a lookup leg at each crossing, and returns the
// leg d is read in and its column there.
func (f *federation) reach(d *domain.Dimension) (int, domain.ColumnRef, *domain.Reason) {
	cur := step{leg: 0, alias: "t0", model: f.legs[0].models["t0"]}
	for i, name := range d.Via {
		key := strings.Join(d.Via[:i+1], "/")
		if s, ok := f.steps[key]; ok {
			cur = s
			continue
		}
		rel, ok := f.b.Relationship(name)
		if !ok {
			return 0, domain.ColumnRef{}, refuse(domain.FederationNotExecutable, "dimension %s uses a relationship the bundle does not hold", d.Name)
		}
		to, _, ok := domain.Step(rel, cur.model)
		if !ok {
			return 0, domain.ColumnRef{}, refuse(domain.FederationNotExecutable, "dimension %s cannot follow relationship %s", d.Name, name)
		}
		fromCol, toCol := rel.Origin.Column, rel.Target.Column
		if cur.model != rel.Origin.Model {
			fromCol, toCol = rel.Target.Column, rel.Origin.Column
		}
		m, ok := f.b.Model(to)
		if !ok {
			return 0, domain.ColumnRef{}, refuse(domain.FederationNotExecutable, "dimension %s reaches a model the bundle does not hold", d.Name)
		}
		fl := f.legs[cur.leg]
		if m.Source == fl.leg.Source {
			next := fmt.Sprintf("t%d", len(fl.leg.Joins)+1)
			fl.leg.Joins = append(fl.leg.Joins, domain.Join{
				Relationship: name, To: table(m, next),
				FromAlias: cur.alias, FromColumn: fromCol, ToColumn: toCol,
			})
			fl.models[next] = to
			cur = step{leg: cur.leg, alias: next, model: to}
		} else {
			// A crossing: the current leg carries the key, a lookup leg on
			// the other source returns the rows it reaches.
			fl.keys++
			from := domain.LegColumn{Leg: cur.leg, Column: len(fl.leg.Dimensions)}
			fl.leg.Dimensions = append(fl.leg.Dimensions, domain.DimensionRef{
				Name: "k" + strconv.Itoa(fl.keys), Column: domain.ColumnRef{Alias: cur.alias, Column: fromCol}})
			lookup := &fedLeg{
				leg: &domain.Leg{Source: m.Source, Kind: domain.LegLookup, Base: table(m, "t0"),
					Dimensions: []domain.DimensionRef{{Name: "k", Column: domain.ColumnRef{Alias: "t0", Column: toCol}}}},
				models: map[string]string{"t0": to},
			}
			f.legs = append(f.legs, lookup)
			f.links = append(f.links, domain.Link{Relationship: name, Leg: len(f.legs) - 1, From: from})
			cur = step{leg: len(f.legs) - 1, alias: "t0", model: to}
		}
		f.steps[key] = cur
	}
	return cur.leg, domain.ColumnRef{Alias: cur.alias, Column: d.Column}, nil
}

// output returns the column of leg that returns the dimension called
// name, read at ref, adding it the first time.
func (f *federation) output(leg int, ref domain.ColumnRef, name string) domain.LegColumn {
	if lc, ok := f.cols[name]; ok {
		return lc
	}
	fl := f.legs[leg]
	fl.dims++
	lc := domain.LegColumn{Leg: leg, Column: len(fl.leg.Dimensions)}
	fl.leg.Dimensions = append(fl.leg.Dimensions, domain.DimensionRef{Name: "d" + strconv.Itoa(fl.dims), Column: ref})
	f.cols[name] = lc
	return lc
}

package semantic

import (
	"fmt"
	"strings"

	"sutura.dev/domain"
)

// plan turns a resolved question into a plan: one leg when every table it
// reads lives in the metrics' source, legs and a combine otherwise.
func plan(b *domain.Bundle, r *resolved, c Ceilings) (*domain.Plan, *domain.Reason) {
	q := r.q
	if q.Top != nil && len(r.metrics) > 1 {
		return nil, refuse(domain.MultiMetricTopNotExecutable, "top ranks a single metric; this question asks for %d", len(r.metrics))
	}
	if crosses(b, r) {
		return planFederated(b, r, c)
	}
	for _, m := range r.metrics {
		if m.Measure == nil {
			return nil, refuse(domain.FederationNotExecutable, "metric %s is defined by authored SQL, which no plan can carry", m.Name)
		}
	}
	first := r.metrics[0]
	base, ok := b.Model(first.Model)
	if !ok {
		// A pinned bundle always holds the model; fail closed regardless.
		return nil, refuse(domain.FederationNotExecutable, "metric %s names a model the bundle does not hold", first.Name)
	}
	j := joiner{b: b, leg: &domain.Leg{
		Source:     base.Source,
		Base:       table(base, "t0"),
		TimeColumn: first.TimeColumn,
	}, aliases: map[string]string{}, models: map[string]string{"t0": base.Name}}
	leg := j.leg
	for _, d := range r.dims {
		col, why := j.reach(d)
		if why != nil {
			return nil, why
		}
		leg.Dimensions = append(leg.Dimensions, domain.DimensionRef{Name: d.Name, Column: col})
	}
	for i, f := range q.Filters {
		col, why := j.reach(r.filterDims[i])
		if why != nil {
			return nil, why
		}
		leg.Filters = append(leg.Filters, domain.FilterRef{
			Dimension: f.Dimension, Column: col, Op: f.Op, Values: append([]string(nil), f.Values...),
		})
	}
	if why := checkBareNames(leg); why != nil {
		return nil, why
	}
	p := skeleton(b, r)
	for _, m := range r.metrics {
		leg.Metrics = append(leg.Metrics, domain.MetricRef{
			Name:            m.Name,
			Measure:         copyMeasure(*m.Measure),
			RequiredFilters: append([]domain.RequiredFilter(nil), m.RequiredFilters...),
		})
	}
	p.Legs = []domain.Leg{*leg}
	return p, nil
}

// skeleton is what every plan of the question holds whatever its legs:
// the answer's columns, grain, range, row cap, top and provenance.
func skeleton(b *domain.Bundle, r *resolved) *domain.Plan {
	q := r.q
	p := &domain.Plan{
		Grain:  q.Grain,
		Range:  r.rng,
		RowCap: domain.MaxRowCap,
		Provenance: domain.Provenance{
			DefinitionVersion: b.Version(),
			DefinitionDigest:  b.Digest(),
		},
	}
	for _, d := range r.dims {
		p.Columns = append(p.Columns, domain.Column{Name: d.Name, Role: domain.RoleDimension})
	}
	p.Columns = append(p.Columns, domain.Column{Name: "period", Role: domain.RolePeriod})
	for _, m := range r.metrics {
		p.Columns = append(p.Columns, domain.Column{Name: m.Name, Role: domain.RoleMetric})
		p.Provenance.MetricDigests = append(p.Provenance.MetricDigests, domain.MetricDigest{Metric: m.Name, Digest: b.MetricDigest(m.Name)})
	}
	if q.Top != nil {
		t := *q.Top
		if t.Direction == "" {
			t.Direction = "desc"
		}
		p.Top = &t
	}
	return p
}

func copyMeasure(m domain.Measure) domain.Measure {
	if m.Simple != nil {
		t := *m.Simple
		m.Simple = &t
	}
	if m.Ratio != nil {
		r := *m.Ratio
		m.Ratio = &r
	}
	return m
}

func table(m *domain.Model, alias string) domain.Table {
	return domain.Table{
		Model:   m.Name,
		Path:    m.TableParts(),
		Alias:   alias,
		Columns: append([]domain.ModelColumn(nil), m.Columns...),
	}
}

// joiner adds the joins a leg needs, once per via-chain prefix.
type joiner struct {
	b       *domain.Bundle
	leg     *domain.Leg
	aliases map[string]string // via-chain prefix ("r1/r2") → alias
	models  map[string]string // alias → model
}

// reach joins every step of d's via chain not joined yet and returns the
// column d reads.
func (j *joiner) reach(d *domain.Dimension) (domain.ColumnRef, *domain.Reason) {
	alias, at := "t0", j.models["t0"]
	for i, name := range d.Via {
		key := strings.Join(d.Via[:i+1], "/")
		if a, ok := j.aliases[key]; ok {
			alias, at = a, j.models[a]
			continue
		}
		rel, ok := j.b.Relationship(name)
		if !ok {
			return domain.ColumnRef{}, refuse(domain.FederationNotExecutable, "dimension %s uses a relationship the bundle does not hold", d.Name)
		}
		to, _, ok := domain.Step(rel, at)
		if !ok {
			return domain.ColumnRef{}, refuse(domain.FederationNotExecutable, "dimension %s cannot follow relationship %s", d.Name, name)
		}
		fromCol, toCol := rel.Origin.Column, rel.Target.Column
		if at != rel.Origin.Model {
			fromCol, toCol = rel.Target.Column, rel.Origin.Column
		}
		m, ok := j.b.Model(to)
		if !ok {
			return domain.ColumnRef{}, refuse(domain.FederationNotExecutable, "dimension %s reaches a model the bundle does not hold", d.Name)
		}
		next := fmt.Sprintf("t%d", len(j.leg.Joins)+1)
		j.leg.Joins = append(j.leg.Joins, domain.Join{
			Relationship: name,
			To:           table(m, next),
			FromAlias:    alias,
			FromColumn:   fromCol,
			ToColumn:     toCol,
		})
		j.aliases[key] = next
		j.models[next] = to
		alias, at = next, to
	}
	return domain.ColumnRef{Alias: alias, Column: d.Column}, nil
}

// checkBareNames refuses two different tables with one bare name in one
// statement (one leg): an executor that finds tables by bare name (the
// files source) could not tell them apart.
func checkBareNames(leg *domain.Leg) *domain.Reason {
	seen := map[string]domain.Table{domain.FoldIdent(bare(leg.Base)): leg.Base}
	for _, jn := range leg.Joins {
		k := domain.FoldIdent(bare(jn.To))
		if other, ok := seen[k]; ok && strings.Join(other.Path, ".") != strings.Join(jn.To.Path, ".") {
			return refuse(domain.PlanTablesShareAnIdentifier, "models %s and %s have tables with the same bare name", other.Model, jn.To.Model)
		}
		seen[k] = jn.To
	}
	return nil
}

func bare(t domain.Table) string { return t.Path[len(t.Path)-1] }

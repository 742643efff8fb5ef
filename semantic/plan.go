package semantic

import (
	"fmt"
	"strings"

	"sutura.dev/domain"
)

// plan turns a resolved question into a single-leg plan.
func plan(b *domain.Bundle, r *resolved) (*domain.Plan, *domain.Reason) {
	q := r.q
	if q.Top != nil && len(r.metrics) > 1 {
		return nil, refuse(domain.MultiMetricTopNotExecutable, "top ranks a single metric; this question asks for %d", len(r.metrics))
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
	if why := j.checkSources(); why != nil {
		return nil, why
	}
	if why := j.checkBareNames(); why != nil {
		return nil, why
	}
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
		leg.Metrics = append(leg.Metrics, domain.MetricRef{
			Name:            m.Name,
			Measure:         copyMeasure(*m.Measure),
			RequiredFilters: append([]domain.RequiredFilter(nil), m.RequiredFilters...),
		})
		p.Provenance.MetricDigests = append(p.Provenance.MetricDigests, domain.MetricDigest{Metric: m.Name, Digest: b.MetricDigest(m.Name)})
	}
	if q.Top != nil {
		t := *q.Top
		if t.Direction == "" {
			t.Direction = "desc"
		}
		p.Top = &t
	}
	p.Legs = []domain.Leg{*leg}
	return p, nil
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

// checkSources refuses a plan whose joins leave the base model's data
// system: federation is not planned by this build.
func (j *joiner) checkSources() *domain.Reason {
	for _, jn := range j.leg.Joins {
		m, _ := j.b.Model(jn.To.Model)
		if m.Source != j.leg.Source {
			return refuse(domain.PlanSpansTooManySources, "model %s is in another data system than model %s; a question is answered from one data system", m.Name, j.leg.Base.Model)
		}
	}
	return nil
}

// checkBareNames refuses two different tables with one bare name in one
// statement: an executor that finds tables by bare name (the files source)
// could not tell them apart.
func (j *joiner) checkBareNames() *domain.Reason {
	seen := map[string]domain.Table{domain.FoldIdent(bare(j.leg.Base)): j.leg.Base}
	for _, jn := range j.leg.Joins {
		k := domain.FoldIdent(bare(jn.To))
		if other, ok := seen[k]; ok && strings.Join(other.Path, ".") != strings.Join(jn.To.Path, ".") {
			return refuse(domain.PlanTablesShareAnIdentifier, "models %s and %s have tables with the same bare name", other.Model, jn.To.Model)
		}
		seen[k] = jn.To
	}
	return nil
}

func bare(t domain.Table) string { return t.Path[len(t.Path)-1] }

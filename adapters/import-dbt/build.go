package dbt

import (
	"fmt"
	"strings"

	"sutura.dev/adapters/importread"
	"sutura.dev/domain"
)

// build resolves the metrics, derives the relationships from the entities
// and settles every entry's status.
func (p *project) build() {
	for _, md := range p.metrics {
		p.resolve(md)
	}
	p.relationships()
	for _, m := range p.models {
		e := &p.entries[m.entry]
		if m.refused != "" {
			e.Status, e.Reason = importread.Refused, m.refused
			e.Output = ""
			continue
		}
		e.Status = importread.Imported
		e.Became = fmt.Sprintf("model %s over table %s", m.name, m.table)
	}
	for _, md := range p.metrics {
		if md.result != nil {
			key := md.result.Model + "." + md.result.TimeColumn
			p.timeUse[key] = append(p.timeUse[key], md.name)
		}
	}
	for _, m := range p.models {
		p.settleModelParts(m)
	}
	for _, md := range p.metrics {
		e := &p.entries[md.entry]
		switch {
		case md.result != nil:
			e.Status, e.Became = importread.Imported, describeMetric(md.result)
			p.out = append(p.out, *md.result)
		case md.refused != "":
			e.Status, e.Reason = importread.Refused, md.refused
		default:
			e.Status, e.Reason = importread.Refused, "it could not be resolved"
		}
		if md.result == nil {
			e.Output = ""
		}
	}
}

// settleModelParts sets the status of a model's entities, dimensions and
// measures.
func (p *project) settleModelParts(m *semModel) {
	gone := func(i int) {
		if m.refused != "" && p.entries[i].Status != importread.Refused {
			p.entries[i].Status, p.entries[i].Reason, p.entries[i].Output = importread.Refused, "its semantic model is not imported", ""
		}
	}
	for _, e := range m.entities {
		en := &p.entries[e.entry]
		if en.Status == "" {
			en.Status = importread.Imported
			switch {
			case en.Became != "":
			case e.kind == "primary":
				en.Became = fmt.Sprintf("primary key column %s of model %s", e.column, m.name)
			default:
				en.Became = fmt.Sprintf("column %s of model %s; no other semantic model has it as its primary entity", e.column, m.name)
			}
		}
		gone(e.entry)
	}
	for _, d := range m.dims {
		en := &p.entries[d.entry]
		switch {
		case en.Status != "":
		case d.refused != "":
			en.Status, en.Reason = importread.Refused, d.refused
		case len(p.timeUse[m.name+"."+d.column]) > 0:
			en.Status, en.Became = importread.Imported, fmt.Sprintf("the time column %s of metric %s", d.column, strings.Join(p.timeUse[m.name+"."+d.column], ", "))
		default:
			en.Status, en.Became = importread.Imported, fmt.Sprintf("column %s of model %s (a time dimension no imported metric is measured over)", d.column, m.name)
		}
		gone(d.entry)
	}
	for _, ms := range m.measures {
		en := &p.entries[ms.entry]
		switch {
		case ms.refused != "":
			en.Status, en.Reason = importread.Refused, ms.refused
		case len(ms.usedBy) == 0:
			en.Status, en.Reason = importread.Ignored, "no metric uses it (it would be "+describeTerm(ms.term)+")"
		default:
			en.Status, en.Became = importread.Imported, describeTerm(ms.term)+", the measure of metric "+strings.Join(ms.usedBy, ", ")
		}
		gone(ms.entry)
	}
}

// relationships derives relationships from entities: a foreign entity
// joins the model whose primary entity it names (many_to_one), and a
// unique entity the model whose primary entity it names (one_to_one).
func (p *project) relationships() {
	for _, m := range p.models {
		for _, e := range m.entities {
			if e.column == "" || (e.kind != "foreign" && e.kind != "unique") {
				continue
			}
			var targets []*semModel
			for _, t := range p.models {
				if t != m && t.primary == e.name && t.primaryColumn != "" {
					targets = append(targets, t)
				}
			}
			jt := domain.ManyToOne
			if e.kind == "unique" {
				jt = domain.OneToOne
			}
			var became []string
			for _, t := range targets {
				name := m.name + "_" + e.name
				if len(targets) > 1 {
					name += "_" + t.name
				}
				if t.refused != "" || m.refused != "" || domain.CheckIdent(name) != nil {
					continue
				}
				p.rels = append(p.rels, domain.Relationship{Name: name, JoinType: jt,
					Origin: domain.Endpoint{Model: m.name, Column: e.column}, Target: domain.Endpoint{Model: t.name, Column: t.primaryColumn}})
				became = append(became, fmt.Sprintf("relationship %s (%s, to %s.%s)", name, jt, t.name, t.primaryColumn))
			}
			en := &p.entries[e.entry]
			if len(became) > 0 {
				en.Status, en.Became = importread.Imported, fmt.Sprintf("column %s of model %s and %s", e.column, m.name, strings.Join(became, ", "))
				if len(targets) == 1 {
					en.Output = "relationship:" + m.name + "_" + e.name
				}
			}
		}
	}
}

// result gathers the definitions and entries.
func (p *project) result() *importread.Result {
	r := &importread.Result{Entries: p.entries}
	for _, m := range p.models {
		if m.refused != "" {
			continue
		}
		model := domain.Model{Name: m.name, Table: m.table, Description: m.description}
		for _, c := range m.columns {
			model.Columns = append(model.Columns, domain.ModelColumn{Name: c})
		}
		if m.primaryColumn != "" {
			model.PrimaryKey = []string{m.primaryColumn}
		}
		r.Definitions.Models = append(r.Definitions.Models, model)
		for _, d := range m.dims {
			if d.kind == "categorical" && d.refused == "" {
				r.Dimensions = append(r.Dimensions, importread.Dimension{Model: m.name, Name: d.name, Column: d.column, Description: d.description})
			}
		}
	}
	r.Definitions.Relationships = p.rels
	r.Definitions.Metrics = p.out
	return r
}

// describeTerm says what a term computes.
func describeTerm(t domain.Term) string {
	if t.CountIf != "" {
		return "count_if over " + t.CountIf
	}
	return string(t.Aggregate) + " over " + t.Column
}

// describeMetric says what a metric became, without quoting filter values.
func describeMetric(m *domain.Metric) string {
	var b strings.Builder
	fmt.Fprintf(&b, "metric %s on model %s: ", m.Name, m.Model)
	if r := m.Measure.Ratio; r != nil {
		fmt.Fprintf(&b, "ratio of %s to %s (%s)", describeTerm(r.Numerator), describeTerm(r.Denominator), r.ZeroDenominator)
	} else {
		b.WriteString(describeTerm(*m.Measure.Simple))
	}
	grains := make([]string, len(m.Grains))
	for i, g := range m.Grains {
		grains[i] = g.String()
	}
	fmt.Fprintf(&b, "; time column %s; grains %s", m.TimeColumn, strings.Join(grains, ", "))
	for _, f := range m.RequiredFilters {
		fmt.Fprintf(&b, "; required filter %s on %s", f.Op, f.Column)
	}
	return b.String()
}

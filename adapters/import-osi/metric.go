package osi

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"sutura.dev/adapters/importread"
	"sutura.dev/domain"
)

// metric is one metric as read, model-scoped (ds nil) or dataset-scoped.
type metric struct {
	n           node
	name        string
	ds          *dataset
	expr, why   string
	description string
	synonyms    []string
	entry       int
}

func (s *semantic) readMetric(n node, ds *dataset) {
	name, ok := n.Named("a metric")
	if !ok {
		return
	}
	for _, prev := range s.metrics {
		if prev.name == name && prev.ds == ds {
			n.Fail("names a metric again in the same scope")
			return
		}
	}
	m := &metric{n: n, name: name, ds: ds, description: n.Str("description")}
	full := name
	if ds != nil {
		full = ds.name + "." + name
	}
	m.entry = s.entry(importread.Entry{Kind: "metric", Name: full, File: n.File(), Line: n.Line()})
	s.metrics = append(s.metrics, m)
	s.metricNames[name]++
	m.expr, m.why = ansiSQL(n, "expression")
	text, instructions, synonyms, extra := aiContext(n)
	for _, t := range []string{text, instructions} {
		if t != "" {
			m.description = strings.TrimSpace(m.description + "\n\n" + t)
		}
	}
	m.synonyms = synonyms
	for _, x := range extra {
		s.note(m.entry, "its ai_context "+x+" is not carried")
	}
	for _, k := range n.Keys() {
		switch k {
		case "name", "expression", "description", "ai_context", "custom_extensions":
		case "datatype":
			s.note(m.entry, "its datatype is not carried: the data system types the answer")
		default:
			s.note(m.entry, "key "+safeKey(k)+" is not read")
		}
	}
	s.extensions(n, full)
}

// aiContextText returns an ai_context's string form, or its instructions.
func aiContextText(n node) string {
	text, instructions, synonyms, _ := aiContext(n)
	if len(synonyms) > 0 {
		return "synonyms"
	}
	return text + instructions
}

// aiContext reads ai_context in both forms: a string, or an object with
// instructions, synonyms and examples (other keys are named in extra).
func aiContext(n node) (text, instructions string, synonyms, extra []string) {
	v, ok := n.Get("ai_context")
	if !ok || v.IsNull() {
		return "", "", nil, nil
	}
	if s, ok := v.Text(); ok {
		return strings.TrimSpace(s), "", nil, nil
	}
	if !v.IsMap() {
		v.Fail("must be text or a mapping")
		return "", "", nil, nil
	}
	for _, k := range v.Keys() {
		switch k {
		case "instructions":
			instructions = strings.TrimSpace(v.Str(k))
		case "synonyms":
			for _, item := range v.List(k) {
				if s, ok := item.Text(); ok {
					synonyms = append(synonyms, s)
				} else {
					item.Fail("must be text")
				}
			}
		case "examples":
			extra = append(extra, "examples (sutura's examples are certified questions; write them by hand)")
		default:
			extra = append(extra, safeKey(k))
		}
	}
	return "", instructions, synonyms, extra
}

// The expressions a metric may be: one aggregate over one column, or one
// divided by another.
var aggregate = regexp.MustCompile(`(?i)^\s*\(?\s*(SUM|COUNT|AVG|MIN|MAX)\s*\(\s*(DISTINCT\s+)?(\*|[A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)?)\s*\)\s*\)?\s*$`)

// splitRatio splits an expression at its one division outside
// parentheses; ok is false when there is none or more than one.
func splitRatio(expr string) (num, den string, ok bool) {
	depth, at := 0, -1
	for i, r := range expr {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case '/':
			if depth == 0 {
				if at >= 0 {
					return "", "", false
				}
				at = i
			}
		}
	}
	if at < 0 {
		return "", "", false
	}
	return expr[:at], expr[at+1:], true
}

// term reads one aggregate of a metric's expression into a term over a
// column of one dataset.
func (s *semantic) term(m *metric, expr string) (*dataset, domain.Term, string) {
	const form = "its ANSI_SQL expression is not one aggregate over one column (SUM, COUNT, COUNT(DISTINCT), AVG, MIN, MAX) or one such aggregate divided by another"
	match := aggregate.FindStringSubmatch(expr)
	if match == nil || (match[2] != "" && !strings.EqualFold(match[1], "COUNT")) {
		return nil, domain.Term{}, form
	}
	fn, arg := strings.ToUpper(match[1]), strings.ReplaceAll(match[3], " ", "")
	var ds *dataset
	col := ""
	if qual, name, qualified := strings.Cut(arg, "."); qualified {
		d, ok := s.datasets[qual]
		if !ok {
			m.n.Fail("its expression names a dataset that does not exist")
			return nil, domain.Term{}, "its expression names a dataset that does not exist"
		}
		if m.ds != nil && m.ds != d {
			return nil, domain.Term{}, "a dataset's metric references another dataset, which the specification does not allow"
		}
		var f *field
		for _, x := range d.fields {
			if x.name == name {
				f = x
			}
		}
		if f == nil {
			m.n.Fail("its expression names a field dataset " + d.name + " does not declare")
			return nil, domain.Term{}, "its expression names a field that does not exist"
		}
		if f.refused != "" {
			return nil, domain.Term{}, "its field " + d.name + "." + f.name + " is refused: " + f.refused
		}
		ds, col = d, f.column
	} else {
		if m.ds == nil {
			if arg != "*" {
				return nil, domain.Term{}, "a model's metric names a column without its dataset (dataset.field), so it names no dataset"
			}
			return nil, domain.Term{}, "COUNT(*) in a model's metric names no dataset"
		}
		ds = m.ds
		if arg != "*" {
			col = arg
			for _, f := range ds.fields {
				if f.name == arg && f.column != "" {
					col = f.column
				}
			}
			ds.column(col, "")
		}
	}
	if arg == "*" {
		if fn != "COUNT" || match[2] != "" {
			return nil, domain.Term{}, form
		}
		if len(ds.pk) != 1 || domain.CheckIdent(ds.pk[0]) != nil {
			return nil, domain.Term{}, "COUNT(*) counts rows, which the catalogue counts over the primary key, and dataset " + ds.name + " has no single-column primary key"
		}
		return ds, domain.Term{Aggregate: domain.Count, Column: ds.pk[0]}, ""
	}
	agg := map[string]domain.Aggregate{"SUM": domain.Sum, "COUNT": domain.Count, "AVG": domain.Avg, "MIN": domain.Min, "MAX": domain.Max}[fn]
	if match[2] != "" {
		agg = domain.CountDistinct
	}
	return ds, domain.Term{Aggregate: agg, Column: col}, ""
}

// resolveMetric maps a metric's expression onto a measure over one dataset.
func (s *semantic) resolveMetric(m *metric) (*dataset, *domain.Measure, string) {
	if m.why != "" {
		return nil, nil, m.why
	}
	if num, den, ok := splitRatio(m.expr); ok {
		nd, nt, why := s.term(m, num)
		if why != "" {
			return nil, nil, why
		}
		dd, dt, why := s.term(m, den)
		if why != "" {
			return nil, nil, why
		}
		if nd != dd {
			return nil, nil, "its two aggregates read different datasets (" + nd.name + " and " + dd.name + "), which the catalogue's ratio cannot express"
		}
		return nd, &domain.Measure{Ratio: &domain.Ratio{Numerator: nt, Denominator: dt, ZeroDenominator: domain.Fails}}, ""
	}
	ds, t, why := s.term(m, m.expr)
	if why != "" {
		return nil, nil, why
	}
	return ds, &domain.Measure{Simple: &t}, ""
}

// build resolves fields, time columns, relationships and metrics and
// settles every entry's status.
func (s *semantic) build() {
	s.out.phrases = map[string]string{}
	for _, d := range s.order {
		s.timeOf(d)
		for _, f := range d.fields {
			s.settleField(d, f)
		}
		for _, c := range d.pk {
			if domain.CheckIdent(c) == nil {
				d.column(c, "")
			}
		}
	}
	for _, r := range s.rels {
		s.relationship(r)
	}
	for _, m := range s.metrics {
		s.metric(m)
	}
	for _, d := range s.order {
		e := &s.entries[d.entry]
		if d.refused != "" {
			s.refuse(d.entry, d.refused)
			continue
		}
		e.Status, e.Became = importread.Imported, fmt.Sprintf("model %s over table %s", d.name, d.table)
	}
}

func (d *dataset) column(col string, t domain.ColumnType) {
	if !slices.Contains(d.columns, col) {
		d.columns = append(d.columns, col)
	}
	if t != "" {
		d.types[col] = t
	}
}

// timeOf finds a dataset's time column: its one field with
// dimension.is_time over a column.
func (s *semantic) timeOf(d *dataset) {
	var times []*field
	for _, f := range d.fields {
		if f.isTime && f.refused == "" {
			times = append(times, f)
		}
	}
	switch len(times) {
	case 0:
		d.timeWhy = "dataset " + d.name + " has no field with dimension.is_time over a column, and a metric needs a time column"
	case 1:
		f := times[0]
		switch {
		case f.timeOfDay:
			d.timeWhy = "the time field of dataset " + d.name + " is a time of day (datatype Time), not a date"
		case f.datatype != "" && f.datatype != domain.TypeDate && f.datatype != domain.TypeTimestamp:
			d.timeWhy = "the time field of dataset " + d.name + " has a datatype that is neither a date nor a timestamp, so it cannot be bucketed into periods"
		default:
			d.timeColumn, d.timeType = f.column, f.datatype
		}
	default:
		names := make([]string, len(times))
		for i, f := range times {
			names[i] = f.name
		}
		d.timeWhy = fmt.Sprintf("dataset %s has %d fields with dimension.is_time (%s); a metric is measured over one time column, and choosing one would change its meaning",
			d.name, len(times), strings.Join(names, ", "))
	}
}

func (s *semantic) settleField(d *dataset, f *field) {
	e := &s.entries[f.entry]
	switch {
	case d.refused != "":
		s.refuse(f.entry, "its dataset is not imported")
	case f.refused != "":
		s.refuse(f.entry, f.refused)
	case f.isTime:
		d.column(f.column, f.datatype)
		e.Status = importread.Imported
		if f.column == d.timeColumn {
			e.Became = fmt.Sprintf("the time column %s of every metric over dataset %s", f.column, d.name)
		} else {
			e.Became = fmt.Sprintf("column %s of model %s (a time field, but not the dataset's time column)", f.column, d.name)
		}
	case f.dimension:
		d.column(f.column, f.datatype)
		e.Status, e.Output = importread.Imported, "dimension:"+d.name+"."+f.name
	default:
		d.column(f.column, f.datatype)
		e.Status, e.Became = importread.Imported, fmt.Sprintf("column %s of model %s (a field without dimension: metrics may aggregate it, questions cannot group by it)", f.column, d.name)
	}
}

// relationship turns a relationship over single columns into a
// many_to_one relationship.
func (s *semantic) relationship(r *relationship) {
	from, okFrom := s.datasets[r.from]
	to, okTo := s.datasets[r.to]
	switch {
	case !okFrom || !okTo:
		r.n.Fail("from and to must name datasets of the model")
		return
	case domain.CheckIdent(r.name) != nil:
		s.refuse(r.entry, "the name is not an identifier")
		return
	case len(r.fromCols) != 1:
		s.refuse(r.entry, "it joins on a composite key; the catalogue's relationships join one column to one column")
		return
	case from.refused != "" || to.refused != "":
		s.refuse(r.entry, "a dataset it joins is not imported")
		return
	}
	fc, why := fieldColumn(from, r.fromCols[0])
	if why == "" {
		var tc string
		if tc, why = fieldColumn(to, r.toCols[0]); why == "" {
			from.column(fc, "")
			to.column(tc, "")
			s.out.rels = append(s.out.rels, domain.Relationship{Name: r.name, JoinType: domain.ManyToOne,
				Origin: domain.Endpoint{Model: from.name, Column: fc}, Target: domain.Endpoint{Model: to.name, Column: tc}})
			e := &s.entries[r.entry]
			e.Status, e.Became = importread.Imported, fmt.Sprintf("relationship %s (many_to_one, %s.%s to %s.%s)", r.name, from.name, fc, to.name, tc)
			return
		}
	}
	s.refuse(r.entry, why)
}

// fieldColumn resolves a relationship's column: a field of the dataset
// (its column), or a column of its source.
func fieldColumn(d *dataset, name string) (string, string) {
	for _, f := range d.fields {
		if f.name == name {
			if f.refused != "" {
				return "", "its field " + d.name + "." + f.name + " is refused: " + f.refused
			}
			return f.column, ""
		}
	}
	if domain.CheckIdent(name) != nil {
		return "", "a column it joins on is not an identifier"
	}
	return name, ""
}

// metric turns a metric into a catalogue metric and its synonyms into a
// glossary entry, or refuses it.
func (s *semantic) metric(m *metric) {
	name := m.name
	if m.ds != nil && s.metricNames[m.name] > 1 {
		// An unqualified name means the model's metric; a dataset's metric
		// of the same name keeps its dataset in its name.
		name = m.ds.name + "_" + m.name
		s.note(m.entry, "named "+name+": another metric of the model has the name "+m.name)
	}
	ds, measure, why := s.resolveMetric(m)
	switch {
	case why != "":
	case domain.CheckIdent(name) != nil:
		why = "the name is not an identifier"
	case ds.refused != "":
		why = "its dataset " + ds.name + " is not imported: " + ds.refused
	case ds.timeColumn == "":
		why = ds.timeWhy
	}
	if why != "" {
		s.refuse(m.entry, why)
		return
	}
	met := domain.Metric{Name: name, Model: ds.name, Measure: measure, TimeColumn: ds.timeColumn,
		Grains: []domain.Grain{domain.Day, domain.Week, domain.Month, domain.Quarter, domain.Year}, Description: m.description}
	s.out.metrics = append(s.out.metrics, met)
	e := &s.entries[m.entry]
	e.Status, e.Became, e.Output = importread.Imported, describeMetric(&met), "metric:"+name
	s.glossary(m, name)
}

// glossary makes a metric's synonyms one glossary entry: the first phrase
// no earlier entry uses is the term, the rest its synonyms.
func (s *semantic) glossary(m *metric, metric string) {
	if len(m.synonyms) == 0 {
		return
	}
	g := domain.Glossary{Means: domain.Meaning{Metric: metric}}
	var taken []string
	for _, p := range m.synonyms {
		p = strings.Join(strings.Fields(p), " ")
		fold := strings.ToLower(p)
		switch {
		case p == "" || strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }):
			continue
		case s.out.phrases[fold] != "":
			taken = append(taken, "a synonym is left out: it already means metric "+s.out.phrases[fold])
			continue
		}
		s.out.phrases[fold] = metric
		if g.Term == "" {
			g.Term = p
		} else {
			g.Synonyms = append(g.Synonyms, p)
		}
	}
	e := importread.Entry{Kind: "synonyms", Name: metric, File: m.n.File(), Line: m.n.Line(), Notes: taken}
	if g.Term == "" {
		e.Status, e.Reason = importread.Refused, "no synonym is left once those other metrics already use are left out"
	} else {
		e.Status, e.Output = importread.Imported, "glossary:"+g.Term
		e.Became = fmt.Sprintf("glossary entry %q meaning metric %s, with %d synonym(s)", g.Term, metric, len(g.Synonyms))
		s.out.glossary = append(s.out.glossary, g)
	}
	s.entry(e)
}

// result gathers the definitions and entries.
func (s *semantic) result() *importread.Result {
	r := &importread.Result{Entries: s.entries, Glossary: s.out.glossary,
		Definitions: domain.Definitions{Relationships: s.out.rels, Metrics: s.out.metrics}}
	for _, d := range s.order {
		if d.refused != "" {
			continue
		}
		model := domain.Model{Name: d.name, Table: d.table, Description: d.description}
		for _, c := range d.columns {
			model.Columns = append(model.Columns, domain.ModelColumn{Name: c, Type: d.types[c]})
		}
		if len(d.pk) > 0 && !slices.ContainsFunc(d.pk, func(c string) bool { return domain.CheckIdent(c) != nil }) {
			model.PrimaryKey = d.pk
		}
		r.Definitions.Models = append(r.Definitions.Models, model)
		for _, f := range d.fields {
			if f.dimension && !f.isTime && f.refused == "" {
				r.Dimensions = append(r.Dimensions, importread.Dimension{Model: d.name, Name: f.name, Column: f.column, Description: f.description})
			}
		}
	}
	return r
}

// describeMetric says what a metric became.
func describeMetric(m *domain.Metric) string {
	term := func(t domain.Term) string { return string(t.Aggregate) + " over " + t.Column }
	if r := m.Measure.Ratio; r != nil {
		return fmt.Sprintf("metric %s on model %s: ratio of %s to %s (%s); time column %s; grains day to year",
			m.Name, m.Model, term(r.Numerator), term(r.Denominator), r.ZeroDenominator, m.TimeColumn)
	}
	return fmt.Sprintf("metric %s on model %s: %s; time column %s; grains day to year", m.Name, m.Model, term(*m.Measure.Simple), m.TimeColumn)
}

package domain

import (
	"fmt"
	"strings"
)

// Problem is one inconsistency in a catalogue: the document it is in (by
// Kind and Name), the key path inside that document (such as
// "dimensions[1].via[0]"), and a reason that names catalogue things but
// never quotes a value. Catalogue adapters map Kind, Name and Key to a file,
// line and column.
type Problem struct {
	Kind   string // model, relationship, metric, glossary, caveat, not_defined, example
	Name   string // the document's name (its term or phrase for knowledge)
	Key    string
	Reason string
}

func (p *Problem) Error() string {
	where := p.Kind + " " + p.Name
	if p.Key != "" {
		where += ": " + p.Key
	}
	return where + ": " + p.Reason
}

// ReservedLabels are names no metric or dimension may take, because an
// answer projects them as columns.
var ReservedLabels = []string{"period"}

// Check runs every consistency check of docs/contract.md §2.1 over a catalogue:
// names, duplicates, references between documents, reachable columns,
// relationship cardinality on dimension paths, allowlists, required
// filters, anchors, reserved and colliding labels, and the knowledge
// referents and size. It returns every problem found, in document order.
func Check(d *Definitions, k *Knowledge) []*Problem {
	c := checker{d: d, models: map[string]*Model{}, rels: map[string]*Relationship{}, metrics: map[string]*Metric{}}
	c.run(k)
	return c.probs
}

type checker struct {
	d       *Definitions
	models  map[string]*Model
	rels    map[string]*Relationship
	metrics map[string]*Metric
	probs   []*Problem
	tables  map[string]string // folded bare table name → model
}

func (c *checker) add(kind, name, key, format string, args ...any) {
	c.probs = append(c.probs, &Problem{Kind: kind, Name: name, Key: key, Reason: fmt.Sprintf(format, args...)})
}

func (c *checker) ident(kind, name, key, s string) bool {
	if err := CheckIdent(s); err != nil {
		c.add(kind, name, key, "%s", "the name "+err.Error())
		return false
	}
	return true
}

func (c *checker) run(k *Knowledge) {
	c.tables = map[string]string{}
	for i := range c.d.Models {
		c.model(&c.d.Models[i])
	}
	for i := range c.d.Relationships {
		c.relationship(&c.d.Relationships[i])
	}
	folded := map[string]string{}
	for i := range c.d.Metrics {
		m := &c.d.Metrics[i]
		if !c.ident("metric", m.Name, "name", m.Name) {
			continue
		}
		if _, dup := c.metrics[m.Name]; dup {
			c.add("metric", m.Name, "name", "another metric has the same name")
			continue
		}
		if other, ok := folded[FoldIdent(m.Name)]; ok {
			c.add("metric", m.Name, "name", "the name differs from metric %s only in case", other)
		}
		folded[FoldIdent(m.Name)] = m.Name
		c.metrics[m.Name] = m
	}
	for i := range c.d.Metrics {
		m := &c.d.Metrics[i]
		if c.metrics[m.Name] == m {
			c.metric(m)
		}
	}
	c.knowledge(k)
}

func (c *checker) model(m *Model) {
	const kind = "model"
	if !c.ident(kind, m.Name, "name", m.Name) {
		return
	}
	if _, dup := c.models[m.Name]; dup {
		c.add(kind, m.Name, "name", "another model has the same name")
		return
	}
	c.models[m.Name] = m
	c.ident(kind, m.Name, "source", m.Source)
	parts := m.TableParts()
	if len(parts) > 3 {
		c.add(kind, m.Name, "table", "the table path has more than three segments")
	}
	for _, p := range parts {
		if err := CheckIdent(p); err != nil {
			c.add(kind, m.Name, "table", "a segment of the table path %s", err.Error())
			break
		}
	}
	c.tables[FoldIdent(m.BareTable())] = m.Name
	if len(m.Columns) == 0 {
		c.add(kind, m.Name, "columns", "the model declares no columns")
	}
	seen := map[string]bool{}
	for i, col := range m.Columns {
		key := fmt.Sprintf("columns[%d]", i)
		if !c.ident(kind, m.Name, key, col.Name) {
			continue
		}
		if seen[FoldIdent(col.Name)] {
			c.add(kind, m.Name, key, "column %s is declared twice", col.Name)
		}
		seen[FoldIdent(col.Name)] = true
		if col.Type != TypeUnset && !contains(ColumnTypes, col.Type) {
			c.add(kind, m.Name, key+".type", "unknown column type")
		}
		if p := col.DecimalProblem(); p != "" {
			c.add(kind, m.Name, key, "%s", p)
		}
	}
	for i, pk := range m.PrimaryKey {
		if _, ok := m.Column(pk); !ok {
			c.add(kind, m.Name, fmt.Sprintf("primary_key[%d]", i), "the primary key names a column the model does not declare")
		}
	}
	if m.Audience != nil {
		c.audience(kind, m.Name, *m.Audience)
	}
}

func (c *checker) audience(kind, name string, a Audience) {
	for i, id := range a.Restricted {
		c.ident(kind, name, fmt.Sprintf("audience.restricted[%d]", i), id)
	}
}

func (c *checker) relationship(r *Relationship) {
	const kind = "relationship"
	if !c.ident(kind, r.Name, "name", r.Name) {
		return
	}
	if _, dup := c.rels[r.Name]; dup {
		c.add(kind, r.Name, "name", "another relationship has the same name")
		return
	}
	c.rels[r.Name] = r
	for _, e := range []struct {
		key string
		ep  Endpoint
	}{{"origin", r.Origin}, {"target", r.Target}} {
		m, ok := c.models[e.ep.Model]
		if !ok {
			c.add(kind, r.Name, e.key+".model", "the %s names a model that does not exist", e.key)
			continue
		}
		if _, ok := m.Column(e.ep.Column); !ok {
			c.add(kind, r.Name, e.key+".column", "the %s names a column model %s does not declare", e.key, m.Name)
		}
	}
	switch r.JoinType {
	case OneToOne, ManyToOne, OneToMany:
	default:
		c.add(kind, r.Name, "join_type", "join_type must be one_to_one, many_to_one or one_to_many")
	}
}

func (c *checker) metric(m *Metric) {
	const kind = "metric"
	model, ok := c.models[m.Model]
	if !ok {
		c.add(kind, m.Name, "model", "the metric names a model that does not exist")
		return
	}
	if other, clash := c.tables[FoldIdent(m.Name)]; clash {
		c.add(kind, m.Name, "name", "the metric's name equals the bare table name of model %s", other)
	}
	if contains(ReservedLabels, FoldIdent(m.Name)) {
		c.add(kind, m.Name, "name", "the name is reserved for an answer column")
	}
	switch {
	case (m.Measure == nil) == (len(m.AuthoredSQL) == 0):
		c.add(kind, m.Name, "measure", "a metric declares exactly one of measure and authored_sql")
	case m.Measure != nil:
		c.measure(m, model)
	}
	if col, ok := model.Column(m.TimeColumn); !ok {
		c.add(kind, m.Name, "time_column", "the time column is not a column of model %s", model.Name)
	} else if col.Type != TypeUnset && col.Type != TypeDate && col.Type != TypeTimestamp {
		c.add(kind, m.Name, "time_column", "the time column must be a date or timestamp column")
	}
	if len(m.Grains) == 0 {
		c.add(kind, m.Name, "grains", "the metric declares no grain")
	}
	seenGrain := map[Grain]bool{}
	for i, g := range m.Grains {
		if g < Day || g > Year {
			c.add(kind, m.Name, fmt.Sprintf("grains[%d]", i), "unknown grain")
		} else if seenGrain[g] {
			c.add(kind, m.Name, fmt.Sprintf("grains[%d]", i), "grain %s is listed twice", g)
		}
		seenGrain[g] = true
	}
	labels := map[string]bool{}
	for i := range m.Dimensions {
		c.dimension(m, model, &m.Dimensions[i], fmt.Sprintf("dimensions[%d]", i), labels)
	}
	for i, f := range m.RequiredFilters {
		key := fmt.Sprintf("required_filters[%d]", i)
		if _, ok := model.Column(f.Column); !ok {
			c.add(kind, m.Name, key+".column", "the required filter names a column model %s does not declare", model.Name)
		}
		switch f.Op {
		case Equals, NotEquals:
			if err := CheckValue(f.Value); err != nil {
				c.add(kind, m.Name, key+".value", "the required filter value %s", err.Error())
			}
		case IsTrue, IsNotNull:
			if f.Value != "" {
				c.add(kind, m.Name, key, "%s takes no value", f.Op)
			}
		default:
			c.add(kind, m.Name, key, "unknown required-filter operator")
		}
	}
	c.audience(kind, m.Name, m.Audience)
	if a := m.Anchor; a != nil {
		if g := m.CoarsestGrain(); g != 0 && !g.IsPeriod(a.Range) {
			c.add(kind, m.Name, "anchor.range", "the anchor range is not exactly one %s, the metric's coarsest grain", g)
		}
		if err := CheckValue(a.Value); err != nil {
			c.add(kind, m.Name, "anchor.value", "the anchor value %s", err.Error())
		}
	}
}

func (c *checker) measure(m *Metric, model *Model) {
	term := func(key string, t Term) {
		switch {
		case t.CountIf != "" && (t.Aggregate != "" || t.Column != ""):
			c.add("metric", m.Name, key, "a term is either an aggregate over a column or count_if")
		case t.CountIf != "":
			col, ok := model.Column(t.CountIf)
			if !ok {
				c.add("metric", m.Name, key+".count_if", "count_if names a column model %s does not declare", model.Name)
			} else if col.Type != TypeUnset && col.Type != TypeBoolean {
				c.add("metric", m.Name, key+".count_if", "count_if needs a boolean column")
			}
		default:
			if !contains(Aggregates, t.Aggregate) {
				c.add("metric", m.Name, key+".aggregate", "unknown aggregate")
			}
			if _, ok := model.Column(t.Column); !ok {
				c.add("metric", m.Name, key+".column", "the term names a column model %s does not declare", model.Name)
			}
		}
	}
	switch ms := m.Measure; {
	case (ms.Simple == nil) == (ms.Ratio == nil):
		c.add("metric", m.Name, "measure", "a measure is exactly one of simple and ratio")
	case ms.Simple != nil:
		term("measure.simple", *ms.Simple)
	default:
		term("measure.ratio.numerator", ms.Ratio.Numerator)
		term("measure.ratio.denominator", ms.Ratio.Denominator)
		if ms.Ratio.ZeroDenominator != YieldsNull && ms.Ratio.ZeroDenominator != Fails {
			c.add("metric", m.Name, "measure.ratio.zero_denominator", "zero_denominator must be yields_null or fails")
		}
	}
}

func (c *checker) dimension(m *Metric, model *Model, d *Dimension, key string, labels map[string]bool) {
	const kind = "metric"
	if !c.ident(kind, m.Name, key+".name", d.Name) {
		return
	}
	f := FoldIdent(d.Name)
	switch {
	case contains(ReservedLabels, f):
		c.add(kind, m.Name, key+".name", "dimension %s uses a name reserved for an answer column", d.Name)
	case f == FoldIdent(m.Name):
		c.add(kind, m.Name, key+".name", "dimension %s is named like its metric", d.Name)
	case labels[f]:
		c.add(kind, m.Name, key+".name", "dimension %s folds to the same name as another dimension", d.Name)
	}
	labels[f] = true
	if other, clash := c.tables[f]; clash {
		c.add(kind, m.Name, key+".name", "dimension %s equals the bare table name of model %s", d.Name, other)
	}
	at, ok := c.walk(m, model, d, key)
	if ok {
		if _, has := at.Column(d.Column); !has {
			c.add(kind, m.Name, key+".column", "dimension %s names a column model %s does not declare", d.Name, at.Name)
		}
	}
	if d.Filterable {
		if len(d.Values) == 0 {
			c.add(kind, m.Name, key+".values", "dimension %s has an empty allowlist", d.Name)
		}
		if len(d.Values) > MaxFilterValues {
			c.add(kind, m.Name, key+".values", "dimension %s allows more than %d values", d.Name, MaxFilterValues)
		}
		seen := map[string]bool{}
		for i, v := range d.Values {
			vk := fmt.Sprintf("%s.values[%d]", key, i)
			if err := CheckValue(v); err != nil {
				c.add(kind, m.Name, vk, "an allowlisted value of dimension %s %s", d.Name, err.Error())
			} else if seen[v] {
				c.add(kind, m.Name, vk, "dimension %s lists a value twice", d.Name)
			}
			seen[v] = true
		}
	} else if len(d.Values) > 0 {
		c.add(kind, m.Name, key+".values", "dimension %s lists values but is not filterable", d.Name)
	}
}

// walk follows a dimension's via chain from the metric's model and returns
// the model the dimension's column lives in. A step may follow a
// relationship from origin to target, or backwards with its cardinality
// reversed; a step that would fan out rows (one_to_many) is refused.
func (c *checker) walk(m *Metric, model *Model, d *Dimension, key string) (*Model, bool) {
	at := model
	for i, name := range d.Via {
		vk := fmt.Sprintf("%s.via[%d]", key, i)
		if len(d.Via) == 1 {
			vk = key + ".via"
		}
		r, ok := c.rels[name]
		if !ok {
			c.add("metric", m.Name, vk, "dimension %s uses a relationship that does not exist", d.Name)
			return nil, false
		}
		next, jt, ok := Step(r, at.Name)
		if !ok {
			c.add("metric", m.Name, vk, "relationship %s does not start or end at model %s", r.Name, at.Name)
			return nil, false
		}
		if jt == OneToMany {
			c.add("metric", m.Name, vk, "dimension %s is reached through one_to_many relationship %s, which would duplicate rows", d.Name, r.Name)
			return nil, false
		}
		nm, ok := c.models[next]
		if !ok {
			return nil, false // reported on the relationship
		}
		at = nm
	}
	return at, true
}

// Step follows relationship r from model from and returns the model it
// reaches and the cardinality seen in that direction. Origin to target is
// preferred when both ends are the same model.
func Step(r *Relationship, from string) (to string, jt JoinType, ok bool) {
	switch from {
	case r.Origin.Model:
		return r.Target.Model, r.JoinType, true
	case r.Target.Model:
		switch r.JoinType {
		case ManyToOne:
			return r.Origin.Model, OneToMany, true
		case OneToMany:
			return r.Origin.Model, ManyToOne, true
		}
		return r.Origin.Model, r.JoinType, true
	}
	return "", "", false
}

func (c *checker) knowledge(k *Knowledge) {
	if n := k.TextBytes(); n > MaxKnowledgeBytes {
		c.add("knowledge", "", "", "all knowledge text together is %d bytes, more than the limit of %d", n, MaxKnowledgeBytes)
	}
	defined := map[string]string{}
	terms := map[string]bool{}
	for _, g := range k.Glossary {
		if terms[g.Term] {
			c.add("glossary", g.Term, "term", "another glossary entry defines the same term")
		}
		terms[g.Term] = true
		for _, p := range append([]string{g.Term}, g.Synonyms...) {
			defined[strings.ToLower(p)] = g.Term
		}
		m, ok := c.metrics[g.Means.Metric]
		if !ok {
			c.add("glossary", g.Term, "means.metric", "the term means a metric that does not exist")
			continue
		}
		if g.Means.Dimension == "" {
			if g.Means.Value != "" {
				c.add("glossary", g.Term, "means.value", "a value needs a dimension")
			}
			continue
		}
		dim, ok := m.Dimension(g.Means.Dimension)
		if !ok {
			c.add("glossary", g.Term, "means.dimension", "metric %s has no such dimension", m.Name)
			continue
		}
		if g.Means.Value != "" && !dim.Allows(g.Means.Value) {
			c.add("glossary", g.Term, "means.value", "the value is not on the allowlist of dimension %s", dim.Name)
		}
	}
	names := map[string]bool{}
	for _, cv := range k.Caveats {
		if names[cv.Name] {
			c.add("caveat", cv.Name, "name", "another caveat has the same name")
		}
		names[cv.Name] = true
		if len(cv.About) == 0 {
			c.add("caveat", cv.Name, "about", "the caveat is about nothing")
		}
		for i, ref := range cv.About {
			if !c.referent(ref) {
				c.add("caveat", cv.Name, fmt.Sprintf("about[%d]", i), "the referent is not a metric, a model, metric.dimension or an allowlisted metric.dimension=value")
			}
		}
	}
	for _, nd := range k.NotDefined {
		for i, p := range append([]string{nd.Phrase}, nd.Synonyms...) {
			key := "phrase"
			if i > 0 {
				key = fmt.Sprintf("synonyms[%d]", i-1)
			}
			if term, ok := defined[strings.ToLower(p)]; ok {
				c.add("not_defined", nd.Phrase, key, "the phrase is also defined by glossary term %s", term)
			}
		}
	}
	names = map[string]bool{}
	for _, e := range k.Examples {
		if names[e.Name] {
			c.add("example", e.Name, "name", "another example has the same name")
		}
		names[e.Name] = true
		// Whether the server would answer an example's question is the
		// compiler's to say, over the whole bundle and its planning
		// (semantic.CheckExamples, run at start-up), not a second,
		// partial compiler's here.
	}
}

func (c *checker) referent(ref string) bool {
	if _, ok := c.metrics[ref]; ok {
		return true
	}
	if _, ok := c.models[ref]; ok {
		return true
	}
	metric, dim, ok := strings.Cut(ref, ".")
	if !ok {
		return false
	}
	m, ok := c.metrics[metric]
	if !ok {
		return false
	}
	dim, value, hasValue := strings.Cut(dim, "=")
	d, ok := m.Dimension(dim)
	if !ok || !hasValue {
		return ok
	}
	return d.Allows(value)
}

func contains[T comparable](xs []T, x T) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

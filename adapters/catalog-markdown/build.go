package mdcatalog

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"sutura.dev/domain"
)

// builder turns a document's schema-valid wire form into its domain value.
// The schema has already fixed every key and type, so the accessors below
// only read; the checks here are the ones a schema cannot state.
type builder struct {
	d    *document
	w    map[string]any
	errs errorList
}

func (b *builder) fail(path []string, sentinel error, reason string) {
	b.errs.add(b.d.errorAt(path, sentinel, reason))
}

func (b *builder) build() {
	d, w := b.d, b.w
	switch d.kind {
	case "model":
		d.name = str(w, "name")
		d.value = b.model()
	case "relationship":
		d.name = str(w, "name")
		d.value = b.relationship()
	case "metric":
		d.name = str(w, "name")
		d.value = b.metric()
	case "glossary":
		d.name = str(w, "term")
		d.value = domain.Glossary{Term: d.name, Synonyms: strs(w["synonyms"]), Note: d.body, Means: meaning(w["means"])}
	case "caveat":
		d.name = str(w, "name")
		if strings.TrimSpace(d.body) == "" {
			b.errs.add(&Error{File: d.path, Line: d.closeLine, Err: ErrSchema,
				Reason: "the caveat has no note: write what an agent must know as the Markdown body after this line"})
		}
		about := make([]string, 0, len(list(w["about"])))
		for _, r := range list(w["about"]) {
			about = append(about, referent(r))
		}
		d.value = domain.Caveat{Name: d.name, About: about, Note: d.body}
	case "not_defined":
		d.name = str(w, "phrase")
		d.value = domain.NotDefined{Phrase: d.name, Synonyms: strs(w["synonyms"]), Note: d.body}
	case "example":
		d.name = str(w, "name")
		d.value = domain.Example{Name: d.name, Asked: strs(w["asked"]), Question: b.question(), Note: d.body}
	}
}

func (b *builder) model() domain.Model {
	w := b.w
	m := domain.Model{Name: str(w, "name"), Source: str(w, "source"), Table: str(w, "table"),
		PrimaryKey: strs(w["primary_key"]), Description: b.d.body}
	for _, c := range list(w["columns"]) {
		if name, ok := c.(string); ok {
			m.Columns = append(m.Columns, domain.ModelColumn{Name: name})
			continue
		}
		co := obj(c)
		mc := domain.ModelColumn{Name: str(co, "name"),
			Type: domain.ColumnType(str(co, "type")), Description: str(co, "description")}
		if p, ok := number(co, "precision"); ok {
			mc.Precision = p
		}
		if s, ok := number(co, "scale"); ok {
			mc.Scale = &s
		}
		m.Columns = append(m.Columns, mc)
	}
	// An open model audience is the same as none, so that writing
	// "audience: open" does not move the digest.
	if a := audience(w["audience"]); !a.Open() {
		m.Audience = &a
	}
	return m
}

func (b *builder) relationship() domain.Relationship {
	w := b.w
	r := domain.Relationship{Name: str(w, "name"), JoinType: domain.JoinType(str(w, "join_type")),
		Origin: endpoint(w["origin"]), Target: endpoint(w["target"]), Description: str(w, "description")}
	if strings.TrimSpace(b.d.body) != "" {
		if _, both := w["description"]; both {
			b.fail([]string{"description"}, ErrSchema,
				"is written both here and as the Markdown body; keep one of them")
		}
		r.Description = b.d.body
	}
	return r
}

func (b *builder) metric() domain.Metric {
	w := b.w
	m := domain.Metric{Name: str(w, "name"), Model: str(w, "model"), TimeColumn: str(w, "time_column"),
		Audience: audience(w["audience"]), Description: b.d.body}
	if ms, ok := w["measure"]; ok {
		mo := obj(ms)
		if s, ok := mo["simple"]; ok {
			t := term(s)
			m.Measure = &domain.Measure{Simple: &t}
		} else {
			r := obj(mo["ratio"])
			m.Measure = &domain.Measure{Ratio: &domain.Ratio{Numerator: term(r["numerator"]), Denominator: term(r["denominator"]),
				ZeroDenominator: domain.ZeroDenominator(str(r, "zero_denominator"))}}
		}
	}
	if sql, ok := w["authored_sql"]; ok {
		m.AuthoredSQL = map[string]string{}
		for dialect, expr := range obj(sql) {
			m.AuthoredSQL[dialect], _ = expr.(string)
		}
	}
	for _, g := range strs(w["grains"]) {
		grain, _ := domain.ParseGrain(g)
		m.Grains = append(m.Grains, grain)
	}
	m.Dimensions = []domain.Dimension{}
	for _, x := range list(w["dimensions"]) {
		do := obj(x)
		values, filterable := do["values"]
		m.Dimensions = append(m.Dimensions, domain.Dimension{Name: str(do, "name"), Column: str(do, "column"),
			Via: strs(do["via"]), Values: strs(values), Filterable: filterable, Description: str(do, "description")})
	}
	for _, x := range list(w["required_filters"]) {
		for op, arg := range obj(x) { // exactly one key, by the schema
			ao := obj(arg)
			m.RequiredFilters = append(m.RequiredFilters, domain.RequiredFilter{Op: domain.FilterOp(op),
				Column: str(ao, "column"), Value: str(ao, "value")})
		}
	}
	if a, ok := w["anchor"]; ok {
		ao := obj(a)
		rng := obj(ao["range"])
		m.Anchor = &domain.Anchor{Value: str(ao, "value"), Range: domain.Range{
			Start: b.date([]string{"anchor", "range", "start"}, str(rng, "start")),
			End:   b.date([]string{"anchor", "range", "end"}, str(rng, "end")),
		}}
	}
	return m
}

func (b *builder) date(path []string, s string) domain.Date {
	d, err := domain.ParseDate(s)
	if err != nil {
		b.fail(path, ErrSchema, "is not a date that exists (YYYY-MM-DD)")
	}
	return d
}

// question decodes an example's question with the rules of the wire
// (domain.DecodeQuestion), from the same YAML converted to the wire form.
func (b *builder) question() domain.Question {
	qn, _ := step(b.d.root, "question")
	var errs errorList
	conv := converter{root: b.d.root, file: b.d.path, line: b.d.line, ordered: true, typed: questionTyped, errs: &errs}
	v := conv.convert(qn, []string{"question"})
	q, err := domain.DecodeQuestion(v)
	if err != nil {
		key := "question"
		var fe *domain.FieldError
		reason := "is not a valid question"
		if errors.As(err, &fe) {
			if fe.Field != "" {
				key += "." + fe.Field
			}
			reason = fe.Problem
		}
		e := b.d.errorAt(parsePath(key), ErrSchema, reason)
		e.Key, e.Cause = key, err
		b.errs.add(e)
	}
	return q
}

// meaning reads what a glossary entry means, written as a name (metric or
// metric.dimension) or as the mapping {metric, dimension?, value?}; both
// forms give the same value, so they digest alike.
func meaning(v any) domain.Meaning {
	if s, ok := v.(string); ok {
		metric, dim, _ := strings.Cut(s, ".")
		return domain.Meaning{Metric: metric, Dimension: dim}
	}
	o := obj(v)
	return domain.Meaning{Metric: str(o, "metric"), Dimension: str(o, "dimension"), Value: str(o, "value")}
}

// referent reads one thing a caveat is about, written as a name (a metric,
// a model or metric.dimension) or as the mapping {metric, dimension?,
// value?} that catalogues written for other sutura implementations use.
// The mapping becomes the name it stands for, so both forms digest alike;
// a value is kept as metric.dimension=value (domain.Caveat).
func referent(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	m := meaning(v)
	ref := m.Metric
	if m.Dimension != "" {
		ref += "." + m.Dimension
		if m.Value != "" {
			ref += "=" + m.Value
		}
	}
	return ref
}

func audience(v any) domain.Audience {
	if o, ok := v.(map[string]any); ok {
		return domain.Audience{Restricted: strs(o["restricted"])}
	}
	return domain.Audience{}
}

func endpoint(v any) domain.Endpoint {
	o := obj(v)
	return domain.Endpoint{Model: str(o, "model"), Column: str(o, "column")}
}

func term(v any) domain.Term {
	o := obj(v)
	return domain.Term{Aggregate: domain.Aggregate(str(o, "aggregate")), Column: str(o, "column"), CountIf: str(o, "count_if")}
}

func obj(v any) map[string]any {
	o, _ := v.(map[string]any)
	return o
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

// number reads a small non-negative integer (a YAML integer the schema
// admitted); ok is false when the key is absent.
func number(o map[string]any, key string) (int, bool) {
	n, ok := o[key].(json.Number)
	if !ok {
		return 0, false
	}
	v, err := strconv.Atoi(string(n))
	return v, err == nil
}

func str(o map[string]any, key string) string {
	s, _ := o[key].(string)
	return s
}

// strs reads a list of strings, or a single string standing for a list of
// one (primary_key: id, via: r). Absent is nil.
func strs(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		out := make([]string, 0, len(x))
		for _, s := range x {
			str, _ := s.(string)
			out = append(out, str)
		}
		return out
	}
	return nil
}

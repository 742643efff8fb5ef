package dbt

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"sutura.dev/adapters/importread"
	"sutura.dev/domain"
)

// project is a dbt project being read: its semantic models and metrics as
// read, and the entries in input order.
type project struct {
	errs     *importread.Errors
	models   []*semModel
	byModel  map[string]*semModel
	metrics  []*metricDef
	byMetric map[string]*metricDef
	measures map[string]*measure
	entries  []importread.Entry
	rels     []domain.Relationship
	out      []domain.Metric
	timeUse  map[string][]string // "<model>.<time column>" → the imported metrics measured over it
}

func newProject(errs *importread.Errors) *project {
	return &project{errs: errs, byModel: map[string]*semModel{}, byMetric: map[string]*metricDef{}, measures: map[string]*measure{},
		timeUse: map[string][]string{}}
}

// semModel is one semantic model as read.
type semModel struct {
	name, table, description string
	entry                    int // index in project.entries
	columns                  []string
	entities                 []*entity
	dims                     []*dimension
	measures                 []*measure
	defaultTime              string
	primary                  string // the primary entity's name
	primaryColumn            string // its column, "" when it has none
	refused                  string
}

type entity struct {
	name, kind, column string
	entry              int
}

type dimension struct {
	name, kind, column, grain, description string
	entry                                  int
	refused                                string
}

type measure struct {
	name, agg, expr, timeDim string
	model                    *semModel
	entry                    int
	term                     domain.Term
	refused                  string
	usedBy                   []string
}

// entry appends an entry and returns its index.
func (p *project) entry(e importread.Entry) int {
	p.entries = append(p.entries, e)
	return len(p.entries) - 1
}

// modelKeys are the keys of a semantic model sutura reads or knows to be
// without meaning for the catalogue (presentation and configuration).
var modelKeys = []string{"name", "description", "label", "node_relation", "model", "defaults", "entities", "dimensions",
	"measures", "primary_entity", "config", "meta", "metadata", "metrics"}

var refPattern = regexp.MustCompile(`^\s*ref\(\s*(?:['"][A-Za-z0-9_]+['"]\s*,\s*)?['"]([A-Za-z0-9_]+)['"]\s*(?:,\s*v(?:ersion)?\s*=\s*[^)]*)?\)\s*$`)

// addModel reads one semantic model.
func (p *project) addModel(n node) {
	name, ok := n.Named("a semantic model")
	if !ok {
		return
	}
	if first, dup := p.byModel[name]; dup {
		n.Fail(fmt.Sprintf("names a semantic model again (first at %s:%d)", p.entries[first.entry].File, p.entries[first.entry].Line))
		return
	}
	m := &semModel{name: name, description: n.Str("description")}
	m.entry = p.entry(importread.Entry{Kind: "semantic_model", Name: name, File: n.File(), Line: n.Line(), Output: "model:" + name, Notes: presentation(n)})
	p.byModel[name] = m
	p.models = append(p.models, m)
	if domain.CheckIdent(name) != nil {
		m.refused = "the name is not an identifier"
	}
	p.table(n, m)
	for _, k := range n.Keys() {
		if !slices.Contains(modelKeys, k) {
			m.note(p, "key "+safeKey(k)+" is not read")
		}
	}
	if d, ok := n.Object("defaults"); ok {
		m.defaultTime = d.Str("agg_time_dimension")
	}
	m.primary = n.Str("primary_entity")
	for _, e := range n.List("entities") {
		p.addEntity(m, e)
	}
	for _, d := range n.List("dimensions") {
		p.addDimension(m, d)
	}
	for _, ms := range n.List("measures") {
		p.addMeasure(m, ms)
	}
	if len(n.List("metrics")) > 0 {
		for _, mt := range n.List("metrics") {
			p.addMetric(mt)
		}
	}
}

// table reads where a semantic model's rows are: node_relation (a
// manifest, or a project written out) or model: ref('name') (a project).
func (p *project) table(n node, m *semModel) {
	if rel, ok := n.Object("node_relation"); ok {
		alias, schema := rel.Str("alias"), rel.Str("schema_name")
		switch {
		case alias == "":
			rel.Fail("has no alias")
		case domain.CheckIdent(alias) != nil || (schema != "" && domain.CheckIdent(schema) != nil):
			m.refuse("node_relation's alias or schema_name is not an identifier, so it is no table path sutura can name")
		case schema == "":
			m.table = alias
		default:
			m.table = schema + "." + alias
		}
		if rel.Str("database") != "" {
			m.note(p, "node_relation's database is not part of the table path: the source's connection decides the database")
		}
		return
	}
	ref := n.Str("model")
	if ref == "" {
		n.Fail("has neither node_relation nor model")
		return
	}
	match := refPattern.FindStringSubmatch(ref)
	if match == nil {
		m.refuse("model is not ref('<name>'), so its table cannot be named")
		return
	}
	m.table = match[1]
	m.note(p, "the table is the dbt model's name ("+match[1]+"); dbt builds it in the target's schema, so check the table path")
}

func (m *semModel) refuse(reason string) {
	if m.refused == "" {
		m.refused = reason
	}
}

func (m *semModel) note(p *project, note string) {
	p.entries[m.entry].Notes = append(p.entries[m.entry].Notes, note)
}

func (m *semModel) column(c string) {
	if !slices.Contains(m.columns, c) {
		m.columns = append(m.columns, c)
	}
}

// presentation names the keys of n that label or configure it for display
// (label, config, meta), which carry no meaning for the catalogue.
func presentation(n node) []string {
	var keys []string
	for _, k := range n.Keys() {
		if (k == "label" || k == "config" || k == "meta" || k == "create_metric_display_name") && hasKey(n, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	return []string{"presentation keys are not carried: " + strings.Join(keys, ", ")}
}

// safeKey names a key of the input in a note: itself when it is an
// identifier, otherwise a description (the key is input text).
func safeKey(k string) string {
	if domain.CheckIdent(k) == nil {
		return k
	}
	return "(a key that is not an identifier)"
}

func (p *project) addEntity(m *semModel, n node) {
	name, kind := n.Str("name"), strings.ToLower(n.Str("type"))
	if name == "" || kind == "" {
		n.Fail("needs a name and a type")
		return
	}
	e := &entity{name: name, kind: kind}
	e.entry = p.entry(importread.Entry{Kind: "entity", Name: m.name + "." + name, File: n.File(), Line: n.Line(), Notes: presentation(n)})
	m.entities = append(m.entities, e)
	expr := n.Str("expr")
	if expr == "" {
		expr = name
	}
	col, bare := bareColumn(expr)
	switch {
	case kind == "natural":
		p.refuseEntry(e.entry, "a natural entity joins over validity windows (slowly changing dimensions), which the catalogue's equality joins cannot express")
		return
	case kind != "primary" && kind != "unique" && kind != "foreign":
		n.Fail("type must be primary, unique, foreign or natural")
		return
	case !bare:
		p.refuseEntry(e.entry, "its expr is SQL, not a column")
		return
	}
	e.column = col
	m.column(col)
	if kind == "primary" {
		if m.primary != "" && m.primary != name {
			n.Fail("is a second primary entity")
			return
		}
		m.primary, m.primaryColumn = name, col
	}
	if n.Str("role") != "" {
		p.entries[e.entry].Notes = append(p.entries[e.entry].Notes, "its role is not carried: relationships join on the entity itself")
	}
}

func (p *project) refuseEntry(i int, reason string) {
	p.entries[i].Status, p.entries[i].Reason = importread.Refused, reason
}

var subDay = []string{"nanosecond", "microsecond", "millisecond", "second", "minute", "hour"}

func (p *project) addDimension(m *semModel, n node) {
	name, kind := n.Str("name"), strings.ToLower(n.Str("type"))
	if name == "" || kind == "" {
		n.Fail("needs a name and a type")
		return
	}
	d := &dimension{name: name, kind: kind, description: n.Str("description")}
	d.entry = p.entry(importread.Entry{Kind: "dimension", Name: m.name + "." + name, File: n.File(), Line: n.Line(), Notes: presentation(n)})
	m.dims = append(m.dims, d)
	expr := n.Str("expr")
	if expr == "" {
		expr = name
	}
	col, bare := bareColumn(expr)
	if c, ok := dayColumn(expr); ok && !bare && kind == "time" {
		col, bare = c, true
		p.entries[d.entry].Notes = append(p.entries[d.entry].Notes,
			"its expr only casts or truncates column "+c+" to a date, so it is read as column "+c+" at day granularity")
	}
	tp, _ := n.Object("type_params")
	switch {
	case kind != "categorical" && kind != "time":
		n.Fail("type must be categorical or time")
		return
	case domain.CheckIdent(name) != nil:
		d.refused = "the name is not an identifier"
	case !bare:
		d.refused = "its expr is SQL, not a column"
	case kind == "time" && !tp.Present():
		n.Fail("is a time dimension without type_params")
		return
	}
	if _, ok := tp.Object("validity_params"); ok && d.refused == "" {
		d.refused = "validity_params describe a slowly changing dimension, which the catalogue cannot express"
	}
	if d.refused != "" {
		p.refuseEntry(d.entry, d.refused)
		return
	}
	d.column = col
	m.column(col)
	if kind == "categorical" {
		p.entries[d.entry].Output = "dimension:" + m.name + "." + name
		p.entries[d.entry].Status = importread.Imported
		return
	}
	d.grain = strings.ToLower(tp.Str("time_granularity"))
	if slices.Contains(subDay, d.grain) {
		d.refused = "its granularity is finer than a day; sutura's finest grain is day"
	} else if _, ok := domain.ParseGrain(d.grain); !ok {
		tp.Fail("time_granularity is not a granularity dbt knows")
	}
}

// measureKeys are the keys of a measure sutura reads or knows to carry no
// meaning for the catalogue; any other key is refused rather than guessed.
var measureKeys = []string{"name", "agg", "expr", "description", "label", "agg_time_dimension", "create_metric",
	"create_metric_display_name", "config", "meta", "metadata", "agg_params", "non_additive_dimension"}

func (p *project) addMeasure(m *semModel, n node) {
	name, agg := n.Str("name"), strings.ToLower(n.Str("agg"))
	if name == "" || agg == "" {
		n.Fail("needs a name and an agg")
		return
	}
	if first, dup := p.measures[name]; dup {
		n.Fail(fmt.Sprintf("names a measure again (first at %s:%d)", p.entries[first.entry].File, p.entries[first.entry].Line))
		return
	}
	ms := &measure{name: name, agg: agg, model: m, timeDim: n.Str("agg_time_dimension")}
	ms.entry = p.entry(importread.Entry{Kind: "measure", Name: m.name + "." + name, File: n.File(), Line: n.Line(), Notes: presentation(n)})
	m.measures = append(m.measures, ms)
	p.measures[name] = ms
	if ms.timeDim == "" {
		ms.timeDim = m.defaultTime
	}
	ms.expr = n.Str("expr")
	if ms.expr == "" {
		ms.expr = name
	}
	for _, k := range n.Keys() {
		if !slices.Contains(measureKeys, k) {
			ms.refused = "key " + safeKey(k) + " is unknown here; refusing rather than guessing what it means"
		}
	}
	if hasKey(n, "non_additive_dimension") {
		ms.refused = "non_additive_dimension (a semi-additive measure) is not in the catalogue's vocabulary"
	}
	if ms.refused == "" {
		ms.term, ms.refused = p.term(m, ms)
	}
	if cm, ok := n.Get("create_metric"); ok {
		if v, _ := cm.Text(); v == "true" || v == "True" {
			p.addCreatedMetric(ms, n)
		}
	}
}

// term maps a measure's aggregation onto a term of the closed vocabulary.
func (p *project) term(m *semModel, ms *measure) (domain.Term, string) {
	expr := strings.TrimSpace(ms.expr)
	row := expr == "1" || expr == "*"
	switch ms.agg {
	case "median", "percentile":
		return domain.Term{}, ms.agg + " is not in the catalogue's vocabulary"
	case "sum", "count":
		if row && (ms.agg == "sum" && expr == "1" || ms.agg == "count") {
			if m.primaryColumn == "" {
				return domain.Term{}, "it counts rows, which the catalogue counts over the primary entity's column, and the semantic model has no primary entity with a column"
			}
			return domain.Term{Aggregate: domain.Count, Column: m.primaryColumn}, ""
		}
	}
	col, bare := bareColumn(expr)
	if !bare {
		return domain.Term{}, "its expr is SQL, not a column"
	}
	m.column(col)
	switch ms.agg {
	case "sum":
		return domain.Term{Aggregate: domain.Sum, Column: col}, ""
	case "count":
		return domain.Term{Aggregate: domain.Count, Column: col}, ""
	case "count_distinct":
		return domain.Term{Aggregate: domain.CountDistinct, Column: col}, ""
	case "average":
		return domain.Term{Aggregate: domain.Avg, Column: col}, ""
	case "min":
		return domain.Term{Aggregate: domain.Min, Column: col}, ""
	case "max":
		return domain.Term{Aggregate: domain.Max, Column: col}, ""
	case "sum_boolean":
		return domain.Term{CountIf: col}, ""
	}
	return domain.Term{}, "agg is not one dbt knows"
}

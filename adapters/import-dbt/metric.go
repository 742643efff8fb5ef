package dbt

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"sutura.dev/adapters/importread"
	"sutura.dev/domain"
)

// metricDef is one dbt metric as read.
type metricDef struct {
	n           node
	name, kind  string
	description string
	entry       int
	filters     []filter
	measure     string // a simple metric's measure
	input       node   // a simple metric's measure input, or a ratio's numerator
	denominator node
	aggParams   node // a simple metric given as metric_aggregation_params, and its type_params
	typeParams  node
	state       int // 0 unresolved, 1 resolving, 2 resolved
	result      *domain.Metric
	refused     string
}

// filter is one where-clause template of a metric or of one of its inputs.
type filter struct {
	sql  string
	line int
}

// metricKeys are the keys of a metric sutura reads or knows to carry no
// meaning for the catalogue.
var metricKeys = []string{"name", "description", "label", "type", "type_params", "filter", "config", "meta", "metadata", "time_granularity"}

// addMetric reads one metric.
func (p *project) addMetric(n node) {
	if !n.IsMap() {
		n.Fail("must be a mapping (a metric)")
		return
	}
	name, kind := n.Str("name"), strings.ToLower(n.Str("type"))
	if name == "" {
		n.Fail("has no name")
		return
	}
	if first, dup := p.byMetric[name]; dup {
		n.Fail(fmt.Sprintf("names a metric again (first at %s:%d)", p.entries[first.entry].File, p.entries[first.entry].Line))
		return
	}
	md := &metricDef{n: n, name: name, kind: kind, description: n.Str("description")}
	md.entry = p.entry(importread.Entry{Kind: "metric", Name: name, File: n.File(), Line: n.Line(), Output: "metric:" + name, Notes: presentation(n)})
	p.byMetric[name] = md
	p.metrics = append(p.metrics, md)
	if _, ok := n.Get("calculation_method"); ok {
		md.refused = "it is written in dbt's metric shape from before the semantic layer (calculation_method); expected type and type_params"
		return
	}
	if kind == "" {
		n.Fail("has no type")
		return
	}
	for _, k := range n.Keys() {
		if !slices.Contains(metricKeys, k) {
			md.refuse("key " + safeKey(k) + " is unknown here; refusing rather than guessing what it means")
		}
	}
	if g := n.Str("time_granularity"); g != "" {
		p.entries[md.entry].Notes = append(p.entries[md.entry].Notes,
			"time_granularity (a default grain for questions) is not carried; the metric's grains come from its time dimension")
	}
	md.filters = filters(n, "filter")
	tp, ok := n.Object("type_params")
	if !ok {
		n.Fail("has no type_params")
		return
	}
	switch kind {
	case "simple":
		if agg, ok := tp.Object("metric_aggregation_params"); ok {
			md.aggParams, md.typeParams = agg, tp
			for _, k := range tp.Keys() {
				switch k {
				case "expr", "metric_aggregation_params", "is_private", "input_measures":
				case "fill_nulls_with":
					md.refuse("fill_nulls_with replaces empty periods with a value, which the catalogue cannot express")
				case "join_to_timespine":
					if v, _ := tp.Get(k); isTrue(v) {
						md.refuse("join_to_timespine fills periods without rows, which the catalogue cannot express")
					}
				default:
					md.refuse("key " + safeKey(k) + " of its type_params is unknown; refusing rather than guessing what it means")
				}
			}
			return
		}
		md.input, md.measure = p.inputName(tp, "measure")
		if md.measure != "" {
			md.inputFilters(p, md.input)
		}
	case "ratio":
		md.input, _ = tp.Get("numerator")
		md.denominator, _ = tp.Get("denominator")
		if !md.input.Present() || !md.denominator.Present() {
			tp.Fail("a ratio needs a numerator and a denominator")
		}
	case "derived":
		md.typeParams = tp
	case "cumulative":
		md.refuse("a cumulative metric aggregates over a moving window, which the catalogue cannot express")
	case "conversion":
		md.refuse("a conversion metric follows entities between events, which the catalogue cannot express")
	default:
		n.Fail("type must be simple, ratio, derived, cumulative or conversion")
	}
}

func (md *metricDef) refuse(reason string) {
	if md.refused == "" {
		md.refused = reason
	}
}

// inputName reads a metric input given as a name or as {name, ...}.
func (p *project) inputName(tp node, key string) (node, string) {
	in, ok := tp.Get(key)
	if !ok || in.IsNull() {
		tp.Fail("has no " + key)
		return node{}, ""
	}
	if s, ok := in.Text(); ok {
		return in, s
	}
	if !in.IsMap() {
		in.Fail("must be a name or a mapping with a name")
		return node{}, ""
	}
	name := in.Str("name")
	if name == "" {
		in.Fail("has no name")
	}
	return in, name
}

// inputFilters records what an input measure or metric adds to its name:
// a filter becomes part of the metric (simple metrics only), and the
// rest is refused by name.
func (md *metricDef) inputFilters(p *project, in node) {
	if !in.IsMap() {
		return
	}
	md.filters = append(md.filters, filters(in, "filter")...)
	for _, k := range in.Keys() {
		if v, _ := in.Get(k); v.IsNull() {
			continue // a manifest spells every absent key as null
		}
		switch k {
		case "name", "filter", "alias":
		case "fill_nulls_with":
			md.refuse("fill_nulls_with replaces empty periods with a value, which the catalogue cannot express")
		case "join_to_timespine":
			if v, _ := in.Get(k); isTrue(v) {
				md.refuse("join_to_timespine fills periods without rows, which the catalogue cannot express")
			}
		case "offset_window", "offset_to_grain":
			md.refuse("an offset (" + k + ") compares with another period, which the catalogue cannot express")
		default:
			md.refuse("key " + safeKey(k) + " of its input is unknown; refusing rather than guessing what it means")
		}
	}
}

func isTrue(n node) bool {
	v, _ := n.Text()
	return strings.EqualFold(v, "true")
}

// filters reads a filter: one template, a list of them, or the manifest's
// {where_filters: [{where_sql_template}]}.
func filters(n node, key string) []filter {
	v, ok := n.Get(key)
	if !ok || v.IsNull() {
		return nil
	}
	if s, ok := v.Text(); ok {
		return []filter{{sql: s, line: v.Line()}}
	}
	var out []filter
	switch {
	case v.IsList():
		for _, item := range v.Items() {
			if s, ok := item.Text(); ok {
				out = append(out, filter{sql: s, line: item.Line()})
			} else {
				item.Fail("must be a filter template")
			}
		}
	case v.IsMap():
		for _, w := range v.List("where_filters") {
			if !w.IsMap() {
				w.Fail("must be a mapping with where_sql_template")
				continue
			}
			out = append(out, filter{sql: w.Str("where_sql_template"), line: w.Line()})
		}
	default:
		v.Fail("must be a filter template or a list of them")
	}
	return out
}

// anonymousMeasure reads a simple metric that aggregates a semantic
// model's column itself (metric_aggregation_params) instead of naming a
// measure.
func (p *project) anonymousMeasure(md *metricDef, tp, agg node) *measure {
	model := agg.Str("semantic_model")
	m, ok := p.byModel[model]
	if !ok {
		agg.Fail("semantic_model names no semantic model that was read")
		return nil
	}
	ms := &measure{name: md.name, agg: strings.ToLower(agg.Str("agg")), model: m, timeDim: agg.Str("agg_time_dimension"), entry: -1}
	if ms.timeDim == "" {
		ms.timeDim = m.defaultTime
	}
	ms.expr = tp.Str("expr")
	if ms.expr == "" {
		ms.expr = md.name
	}
	if ms.timeDim == "" {
		ms.refused = "it has no agg_time_dimension (in metric_aggregation_params or as the semantic model's default)"
		return ms
	}
	switch {
	case ms.agg == "":
		agg.Fail("has no agg")
	case hasKey(agg, "non_additive_dimension"):
		ms.refused = "non_additive_dimension (a semi-additive measure) is not in the catalogue's vocabulary"
	case hasKey(agg, "window") || hasKey(agg, "grain_to_date") || hasKey(agg, "period_agg"):
		ms.refused = "a window or grain-to-date aggregation is not in the catalogue's vocabulary"
	default:
		ms.term, ms.refused = p.term(m, ms)
	}
	return ms
}

// hasKey reports whether a mapping holds key with a value: a manifest
// spells every absent key as null.
func hasKey(n node, key string) bool {
	v, ok := n.Get(key)
	return ok && !v.IsNull()
}

// addCreatedMetric adds the simple metric a measure with create_metric
// asks for.
func (p *project) addCreatedMetric(ms *measure, n node) {
	if _, dup := p.byMetric[ms.name]; dup {
		n.Fail("create_metric asks for a metric whose name another metric has")
		return
	}
	md := &metricDef{n: n, name: ms.name, kind: "simple", measure: ms.name, description: n.Str("description")}
	md.entry = p.entry(importread.Entry{Kind: "metric", Name: ms.name, File: n.File(), Line: n.Line(), Output: "metric:" + ms.name,
		Notes: []string{"created by its measure's create_metric"}})
	p.byMetric[ms.name] = md
	p.metrics = append(p.metrics, md)
}

// resolve turns a metric into a catalogue metric, or says why it cannot.
func (p *project) resolve(md *metricDef) {
	if md.state == 2 {
		return
	}
	if md.state == 1 {
		md.n.Fail("refers to itself through its inputs")
		md.state = 2
		return
	}
	md.state = 1
	defer func() { md.state = 2 }()
	if md.refused != "" {
		return
	}
	if domain.CheckIdent(md.name) != nil {
		md.refused = "the name is not an identifier"
		return
	}
	switch md.kind {
	case "simple":
		var ms *measure
		if md.aggParams.Present() {
			if ms = p.anonymousMeasure(md, md.typeParams, md.aggParams); ms == nil {
				return
			}
		} else {
			var ok bool
			if ms, ok = p.measures[md.measure]; !ok {
				md.input.Fail("names a measure that no semantic model defines")
				return
			}
		}
		md.result, md.refused = p.simple(md, ms)
	case "ratio":
		md.result, md.refused = p.ratio(md)
	case "derived":
		md.result, md.refused = p.derived(md)
	}
}

// simple builds a metric over one measure.
func (p *project) simple(md *metricDef, ms *measure) (*domain.Metric, string) {
	if ms.entry >= 0 && !slices.Contains(ms.usedBy, md.name) {
		ms.usedBy = append(ms.usedBy, md.name)
	}
	m := ms.model
	if m.refused != "" {
		return nil, "its semantic model " + m.name + " is not imported: " + m.refused
	}
	if ms.refused != "" {
		return nil, "its measure " + ms.name + " is refused: " + ms.refused
	}
	tc, grains, why := p.timeOf(ms)
	if why != "" {
		return nil, why
	}
	rf, why := p.requiredFilters(md, m)
	if why != "" {
		return nil, why
	}
	t := ms.term
	return &domain.Metric{Name: md.name, Model: m.name, Measure: &domain.Measure{Simple: &t}, TimeColumn: tc, Grains: grains,
		RequiredFilters: rf, Description: md.description}, ""
}

// timeOf returns a measure's time column and grains: its agg time
// dimension's column, and that dimension's granularity with every coarser
// grain.
func (p *project) timeOf(ms *measure) (string, []domain.Grain, string) {
	if ms.timeDim == "" {
		return "", nil, "its measure has no agg_time_dimension (on the measure or as the semantic model's default)"
	}
	for _, d := range ms.model.dims {
		if d.name != ms.timeDim {
			continue
		}
		if d.kind != "time" {
			return "", nil, "its agg_time_dimension " + d.name + " is not a time dimension"
		}
		if d.refused != "" {
			return "", nil, "its time dimension " + d.name + " is refused: " + d.refused
		}
		g, _ := domain.ParseGrain(d.grain)
		var grains []domain.Grain
		for x := g; x <= domain.Year; x++ {
			grains = append(grains, x)
		}
		return d.column, grains, ""
	}
	p.errs.Add(p.entries[ms.model.entry].File, p.entries[ms.model.entry].Line,
		"semantic model "+ms.model.name+": the agg_time_dimension of measure "+ms.name+" names no dimension of the model")
	return "", nil, "its agg_time_dimension names no dimension"
}

// ratio builds a ratio of two simple metrics over one semantic model.
func (p *project) ratio(md *metricDef) (*domain.Metric, string) {
	num, why := p.ratioInput(md, md.input)
	if why != "" {
		return nil, why
	}
	den, why := p.ratioInput(md, md.denominator)
	if why != "" {
		return nil, why
	}
	return p.ratioOf(md, num, den, domain.YieldsNull)
}

// ratioInput resolves one input of a ratio, or of a derived metric that is
// a ratio, to the simple metric it names.
func (p *project) ratioInput(md *metricDef, in node) (*domain.Metric, string) {
	name := ""
	if s, ok := in.Text(); ok {
		name = s
	} else if in.IsMap() {
		name = in.Str("name")
		for _, k := range in.Keys() {
			if v, _ := in.Get(k); v.IsNull() || (k == "filter" && len(filters(in, k)) == 0) {
				continue // a manifest spells every absent key as null, and no filter as no where_filters
			}
			if k != "name" && k != "alias" {
				return nil, "its input " + safeKey(name) + " has its own " + safeKey(k) + ", which the catalogue's ratio cannot carry"
			}
		}
	}
	in2, ok := p.byMetric[name]
	if !ok {
		if ms, isMeasure := p.measures[name]; isMeasure && md.kind == "ratio" {
			// The older shape: a ratio of two measures.
			m, why := p.simple(&metricDef{name: md.name, kind: "simple"}, ms)
			if why != "" {
				return nil, "its input measure " + name + ": " + why
			}
			return m, ""
		}
		in.Fail("names a metric that does not exist")
		return nil, "an input names a metric that does not exist"
	}
	p.resolve(in2)
	switch {
	case in2.kind != "simple":
		return nil, "its input " + name + " is a " + in2.kind + " metric, not a simple one over a measure"
	case in2.refused != "":
		return nil, "its input " + name + " is refused"
	case in2.result == nil:
		return nil, "its input " + name + " could not be resolved"
	case len(in2.result.RequiredFilters) > 0:
		return nil, "its input " + name + " has its own filter, which the catalogue's ratio cannot carry"
	}
	return in2.result, ""
}

// ratioOf builds the ratio of two resolved simple metrics, which must
// measure one semantic model over one time column.
func (p *project) ratioOf(md *metricDef, num, den *domain.Metric, zero domain.ZeroDenominator) (*domain.Metric, string) {
	if num.Model != den.Model {
		return nil, "its inputs measure different semantic models (" + num.Model + " and " + den.Model + ")"
	}
	if num.TimeColumn != den.TimeColumn {
		return nil, "its inputs have different time dimensions"
	}
	m := p.byModel[num.Model]
	rf, why := p.requiredFilters(md, m)
	if why != "" {
		return nil, why
	}
	grains := num.Grains
	if len(den.Grains) < len(grains) {
		grains = den.Grains
	}
	return &domain.Metric{Name: md.name, Model: num.Model, TimeColumn: num.TimeColumn, Grains: slices.Clone(grains),
		Measure: &domain.Measure{Ratio: &domain.Ratio{Numerator: *num.Measure.Simple, Denominator: *den.Measure.Simple,
			ZeroDenominator: zero}},
		RequiredFilters: rf, Description: md.description}, ""
}

// derivedRatio is the one derived expression that is imported: one input
// divided by another, the numerator optionally multiplied by 1.0 (to keep
// an integer division from truncating) and the denominator optionally
// nullif(b, 0). Submatches: the numerator (in one of 1 to 5), the
// denominator of nullif (6) or bare (7).
var derivedRatio = regexp.MustCompile(`(?i)^(?:\(\s*(\w+)\s*\*\s*1\.0\s*\)|(\w+)\s*\*\s*1\.0|\(\s*1\.0\s*\*\s*(\w+)\s*\)|1\.0\s*\*\s*(\w+)|(\w+))\s*/\s*(?:nullif\s*\(\s*(\w+)\s*,\s*0\s*\)|(\w+))$`)

// derived builds a derived metric whose expression is exactly a ratio of
// two of its inputs (derivedRatio): with nullif, a zero denominator yields
// null; without, it fails, as the division does in SQL.
func (p *project) derived(md *metricDef) (*domain.Metric, string) {
	const notRatio = "a derived metric is an expression over other metrics; only one input divided by another (a / b, a / nullif(b, 0), a * 1.0 / b) is imported, as a ratio"
	for _, in := range md.typeParams.List("metrics") {
		for _, k := range []string{"offset_window", "offset_to_grain"} {
			if hasKey(in, k) {
				return nil, "its input " + safeKey(in.Str("name")) + " has an offset (" + k + "), which compares with another period; the catalogue cannot express that"
			}
		}
	}
	match := derivedRatio.FindStringSubmatch(strings.TrimSpace(md.typeParams.Str("expr")))
	if match == nil {
		return nil, notRatio
	}
	numName := match[1] + match[2] + match[3] + match[4] + match[5]
	denName, zero := match[7], domain.Fails
	if match[6] != "" {
		denName, zero = match[6], domain.YieldsNull
	}
	inputs := map[string]node{}
	for _, in := range md.typeParams.List("metrics") {
		key := ""
		if s, ok := in.Text(); ok {
			key = s
		} else if in.IsMap() {
			if key = in.Str("alias"); key == "" {
				key = in.Str("name")
			}
		}
		inputs[key] = in
	}
	var terms [2]*domain.Metric
	for i, name := range []string{numName, denName} {
		in, ok := inputs[name]
		if !ok {
			return nil, "its expr names " + safeKey(name) + ", which is not one of its input metrics"
		}
		m, why := p.ratioInput(md, in)
		if why != "" {
			return nil, why
		}
		terms[i] = m
	}
	if match[5] != "" {
		p.entries[md.entry].Notes = append(p.entries[md.entry].Notes, "dbt divides as the warehouse does: where dividing two integers "+
			"truncates (Postgres, Redshift, SQL Server), dbt's value is truncated and this ratio's is not; write a * 1.0 / b in dbt to agree")
	}
	return p.ratioOf(md, terms[0], terms[1], zero)
}

// The filter forms that become required filters, {{ Dimension('e__d') }}
// followed by one of: nothing, IS TRUE or = true; IS NOT NULL; = 'v'; != 'v' or
// <> 'v'.
var (
	dimensionRef = regexp.MustCompile(`^\{\{\s*Dimension\(\s*(?:'([^'"]*)'|"([^'"]*)")\s*\)\s*\}\}\s*(.*)$`)
	isTrueForm   = regexp.MustCompile(`(?i)^(?:is\s+true|=\s*true)$`)
	notNullForm  = regexp.MustCompile(`(?i)^is\s+not\s+null$`)
	compareForm  = regexp.MustCompile(`^(=|!=|<>)\s*'((?:[^']|'')*)'$`)
)

// requiredFilters maps a metric's filters onto required filters over
// columns of its own semantic model.
func (p *project) requiredFilters(md *metricDef, m *semModel) ([]domain.RequiredFilter, string) {
	var out []domain.RequiredFilter
	for _, f := range md.filters {
		rf, why := p.requiredFilter(strings.TrimSpace(f.sql), m)
		if why != "" {
			return nil, fmt.Sprintf("its filter (line %d) %s", f.line, why)
		}
		out = append(out, rf)
	}
	return out, ""
}

func (p *project) requiredFilter(sql string, m *semModel) (domain.RequiredFilter, string) {
	const forms = "is not one of the forms sutura imports ({{ Dimension('entity__dimension') }} with = 'v', != 'v', <> 'v', IS TRUE, = true, IS NOT NULL, or alone)"
	match := dimensionRef.FindStringSubmatch(sql)
	if match == nil {
		return domain.RequiredFilter{}, forms
	}
	ref := match[1] + match[2]
	ent, dimName, ok := strings.Cut(ref, "__")
	if !ok || strings.Contains(dimName, "__") {
		return domain.RequiredFilter{}, "names a dimension through a path of entities, that is on a joined model; only filters on the metric's own model are imported"
	}
	own := ent == m.primary
	for _, e := range m.entities {
		if e.name == ent && (e.kind == "primary" || e.kind == "unique") {
			own = true
		}
	}
	if !own {
		return domain.RequiredFilter{}, "is on a dimension of a joined model (entity " + safeKey(ent) + "); only filters on the metric's own model are imported"
	}
	var dim *dimension
	for _, d := range m.dims {
		if d.name == dimName {
			dim = d
		}
	}
	switch {
	case dim == nil:
		return domain.RequiredFilter{}, "names a dimension the semantic model does not define"
	case dim.refused != "":
		return domain.RequiredFilter{}, "names a dimension that is refused: " + dim.refused
	}
	rest := strings.TrimSpace(match[3])
	switch {
	case rest == "" || isTrueForm.MatchString(rest):
		return domain.RequiredFilter{Op: domain.IsTrue, Column: dim.column}, ""
	case notNullForm.MatchString(rest):
		return domain.RequiredFilter{Op: domain.IsNotNull, Column: dim.column}, ""
	}
	cmp := compareForm.FindStringSubmatch(rest)
	if cmp == nil {
		return domain.RequiredFilter{}, forms
	}
	value := strings.ReplaceAll(cmp[2], "''", "'")
	if err := domain.CheckValue(value); err != nil {
		return domain.RequiredFilter{}, "compares with a value that " + err.Error()
	}
	op := domain.Equals
	if cmp[1] != "=" {
		op = domain.NotEquals
	}
	return domain.RequiredFilter{Op: op, Column: dim.column, Value: value}, ""
}

package cube

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"sutura.dev/adapters/importread"
	"sutura.dev/domain"
)

// modelSet is a Cube data model being read.
type modelSet struct {
	errs    *importread.Errors
	cubes   []*cube
	byName  map[string]*cube
	views   int
	found   bool // whether a file held cubes: or views:
	entries []importread.Entry
	rels    []domain.Relationship
	metrics []domain.Metric
}

// cube is one cube as read.
type cube struct {
	n                        node
	name, table, description string
	entry                    int
	dims                     []*dimension
	measures                 []*measure
	joins                    []*join
	refused                  string
	columns                  []string
	types                    map[string]domain.ColumnType
	pk                       []string // the primary key's columns (several for a composite key), none when it has none
	timeColumn, timeWhy      string   // the one bare time dimension's column, or why there is none
}

type dimension struct {
	n                         node
	name, kind, column, descr string
	entry                     int
	refused                   string
}

type measure struct {
	n           node
	name, kind  string
	description string
	entry       int
	term        *domain.Term
	filters     []domain.RequiredFilter
	refused     string
	state       int // 0 unresolved, 1 resolving, 2 resolved
}

type join struct {
	n      node
	target string
	kind   domain.JoinType
	entry  int
}

func (m *modelSet) entry(e importread.Entry) int {
	m.entries = append(m.entries, e)
	return len(m.entries) - 1
}

func (m *modelSet) refuse(i int, reason string) {
	m.entries[i].Status, m.entries[i].Reason, m.entries[i].Output = importread.Refused, reason, ""
}

func (m *modelSet) note(i int, note string) {
	m.entries[i].Notes = append(m.entries[i].Notes, note)
}

// cubeKeys are the cube keys sutura reads, or knows to carry no meaning
// for the catalogue; the rest are noted as not read.
var cubeKeys = []string{"name", "sql_table", "sql", "description", "title", "public", "shown", "meta", "sql_alias",
	"data_source", "refresh_key", "dimensions", "measures", "joins", "segments", "pre_aggregations", "access_policy",
	"hierarchies", "folders", "extends", "calendar", "rewrite_queries"}

var selectStar = regexp.MustCompile(`(?i)^\s*select\s+\*\s+from\s+([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*){0,2})\s*;?\s*$`)

// scoped reads one construct (a cube, view, member or join): what read
// finds malformed refuses that construct, through refuse, and the import
// reads on; only an input that cannot be read at all fails as a whole
// (docs/importing.md).
func (m *modelSet) scoped(refuse func(reason string), read func()) {
	mark := m.errs.Mark()
	read()
	if errs := m.errs.Take(mark); len(errs) > 0 {
		why := "it is malformed: " + errs[0].Error()
		if len(errs) > 1 {
			why += fmt.Sprintf(" (and %d more)", len(errs)-1)
		}
		refuse(why)
	}
}

// unnamed records a construct that cannot be read far enough to have a
// name (not a mapping, or without a name), refused where it is.
func (m *modelSet) unnamed(kind string, n node) {
	what := "it is not a mapping with a name"
	if n.IsMap() {
		what = "it has no name"
	}
	m.entry(importread.Entry{Kind: kind, File: n.File(), Line: n.Line(), Status: importread.Refused,
		Reason: fmt.Sprintf("a %s at line %d: %s", kind, n.Line(), what)})
}

// addCube reads one cube and its members.
func (m *modelSet) addCube(n node) {
	var name string
	if n.IsMap() {
		m.scoped(func(string) {}, func() { name = text(n, "name") })
	}
	if name == "" {
		m.unnamed("cube", n)
		return
	}
	if first, dup := m.byName[name]; dup {
		m.entry(importread.Entry{Kind: "cube", Name: name, File: n.File(), Line: n.Line(), Status: importread.Refused,
			Reason: fmt.Sprintf("it names a cube again (first at %s:%d); Cube refuses that", m.entries[first.entry].File, m.entries[first.entry].Line)})
		return
	}
	c := &cube{n: n, name: name, description: text(n, "description"), types: map[string]domain.ColumnType{}}
	c.entry = m.entry(importread.Entry{Kind: "cube", Name: name, File: n.File(), Line: n.Line(), Output: "model:" + name, Notes: presentation(n)})
	m.byName[name] = c
	m.cubes = append(m.cubes, c)
	var dims, measures, joins []node
	m.scoped(c.refuse, func() {
		if domain.CheckIdent(name) != nil {
			c.refuse("the name is not an identifier")
		}
		if _, ok := field(n, "extends"); ok {
			c.refuse("it extends another cube; inheritance is not read, so write the cube out in full")
		} else {
			m.cubeTable(c)
		}
		for _, k := range n.Keys() {
			if !slices.Contains(cubeKeys, snake(k)) {
				m.note(c.entry, "key "+safeKey(k)+" is not read")
			}
		}
		if ds := text(n, "data_source"); ds != "" && ds != "default" {
			m.note(c.entry, "it reads another data source than the default; every imported model reads the one --source alias, so check its source")
		}
		dims, measures, joins = list(n, "dimensions"), list(n, "measures"), list(n, "joins")
	})
	for _, d := range dims {
		m.addDimension(c, d)
	}
	for _, ms := range measures {
		m.addMeasure(c, ms)
	}
	for _, j := range joins {
		m.addJoin(c, j)
	}
	m.scoped(c.refuse, func() { m.cubeExtras(c) })
}

// cubeTable reads where a cube's rows are: sql_table, or a sql that is
// exactly SELECT * FROM a table.
func (m *modelSet) cubeTable(c *cube) {
	n := c.n
	if t := text(n, "sql_table"); t != "" {
		if path, ok := importread.TablePath(t); ok {
			c.table = path
		} else {
			c.refuse("sql_table is not a table path sutura can name (t, schema.t or db.schema.t, each an identifier)")
		}
		return
	}
	sql := text(n, "sql")
	switch match := selectStar.FindStringSubmatch(sql); {
	case sql == "":
		n.Fail("has neither sql_table nor sql")
	case match != nil:
		c.table = match[1]
		m.note(c.entry, "its sql is SELECT * FROM "+match[1]+", read as sql_table "+match[1])
	default:
		c.refuse("its rows come from a SQL query (sql), not a table; sutura's models are tables")
	}
}

func (c *cube) refuse(reason string) {
	if c.refused == "" {
		c.refused = reason
	}
}

func (c *cube) column(col string, t domain.ColumnType) {
	if !slices.Contains(c.columns, col) {
		c.columns = append(c.columns, col)
	}
	if t != "" {
		c.types[col] = t
	}
}

// cubeExtras lists a cube's segments, pre-aggregations, access policy and
// presentation keys.
func (m *modelSet) cubeExtras(c *cube) {
	for _, s := range list(c.n, "segments") {
		m.entry(importread.Entry{Kind: "segment", Name: c.name + "." + text(s, "name"), File: s.File(), Line: s.Line(), Status: importread.Refused,
			Reason: "a segment is a named filter a caller picks; sutura's filters are fixed in a metric's meaning or chosen from an allowlist"})
	}
	for _, k := range []struct{ key, kind, reason string }{
		{"pre_aggregations", "pre_aggregation", "a pre-aggregation is a cache; sutura asks the data system every time"},
		{"hierarchies", "hierarchy", "a hierarchy arranges dimensions for display; it carries no meaning"},
		{"folders", "folder", "a folder arranges members for display; it carries no meaning"},
	} {
		v, ok := field(c.n, k.key)
		if !ok {
			continue
		}
		items := v.Items()
		if !v.IsList() {
			items = []node{v}
		}
		for _, p := range items {
			m.entry(importread.Entry{Kind: k.kind, Name: c.name + "." + text(p, "name"), File: p.File(), Line: p.Line(), Status: importread.Ignored, Reason: k.reason})
		}
	}
	if v, ok := field(c.n, "access_policy"); ok {
		m.entry(importread.Entry{Kind: "access_policy", Name: c.name, File: v.File(), Line: v.Line(), Status: importread.Refused,
			Reason: "row- and member-level access rules are not imported; sutura governs with audiences and impersonation at the source, so write those by hand"})
	}
	if v, ok := field(c.n, "refresh_key"); ok {
		m.entry(importread.Entry{Kind: "refresh_key", Name: c.name, File: v.File(), Line: v.Line(), Status: importread.Ignored,
			Reason: "a refresh key schedules Cube's caches; sutura asks the data system every time"})
	}
}

// dimensionKeys are the keys of a dimension sutura reads or knows to be
// presentation; sub_query, case and geo are refused.
var dimensionKeys = []string{"name", "sql", "type", "primary_key", "description", "title", "format", "public", "shown",
	"meta", "granularities", "links", "order", "key", "label", "propagate_filters_to_sub_query", "sub_query", "case"}

func (m *modelSet) addDimension(c *cube, n node) {
	var name, kind string
	if n.IsMap() {
		m.scoped(func(string) {}, func() { name, kind = text(n, "name"), strings.ToLower(text(n, "type")) })
	}
	if name == "" {
		m.unnamed("dimension", n)
		return
	}
	for _, prev := range c.dims {
		if prev.name == name {
			m.entry(importread.Entry{Kind: "dimension", Name: c.name + "." + name, File: n.File(), Line: n.Line(), Status: importread.Refused,
				Reason: "it names a dimension of cube " + c.name + " again; Cube refuses that"})
			return
		}
	}
	d := &dimension{n: n, name: name, kind: kind}
	d.entry = m.entry(importread.Entry{Kind: "dimension", Name: c.name + "." + name, File: n.File(), Line: n.Line(), Notes: presentation(n)})
	c.dims = append(c.dims, d)
	m.scoped(d.refuse, func() { m.readDimension(d) })
	if d.refused != "" {
		m.refuse(d.entry, d.refused)
	}
}

func (d *dimension) refuse(reason string) {
	if d.refused == "" {
		d.refused = reason
	}
}

// readDimension reads a dimension's keys, refusing what is not a column.
func (m *modelSet) readDimension(d *dimension) {
	n := d.n
	d.descr = text(n, "description")
	if hasField(n, "granularities") {
		m.note(d.entry, "its custom granularities are not carried: sutura's grains are day, week, month, quarter and year")
	}
	for _, k := range n.Keys() {
		if !slices.Contains(dimensionKeys, snake(k)) {
			d.refuse("key " + safeKey(k) + " is unknown here; refusing rather than guessing what it means")
		}
	}
	switch {
	case d.refused != "":
	case domain.CheckIdent(d.name) != nil:
		d.refused = "the name is not an identifier"
	case truthy(n, "sub_query"):
		d.refused = "a sub_query dimension is computed from another cube's measure, which the catalogue cannot express"
	case hasField(n, "case"):
		d.refused = "a case dimension is an expression, not a column"
	case d.kind == "geo":
		d.refused = "a geo dimension is two columns (latitude and longitude), not one"
	case d.kind != "string" && d.kind != "number" && d.kind != "time" && d.kind != "boolean":
		d.refused = "its type is not string, number, time, boolean or geo"
	case text(n, "sql") == "":
		d.refused = "it has no sql, so it names no column"
	}
}

// hasField reports whether a mapping holds key (in either spelling) with
// a value; a null is an absence.
func hasField(n node, key string) bool {
	v, ok := field(n, key)
	return ok && !v.IsNull()
}

// measureKeys are the keys of a measure sutura reads, refuses by name, or
// knows to be presentation; any other key refuses the measure.
var measureKeys = []string{"name", "sql", "type", "filters", "description", "title", "format", "public", "shown", "meta",
	"drill_members", "visible", "rolling_window", "multi_stage", "time_shift", "reduce_by", "group_by", "add_group_by", "case", "order"}

func (m *modelSet) addMeasure(c *cube, n node) {
	var name, kind string
	if n.IsMap() {
		m.scoped(func(string) {}, func() { name, kind = text(n, "name"), strings.ToLower(text(n, "type")) })
	}
	if name == "" {
		m.unnamed("measure", n)
		return
	}
	for _, prev := range c.measures {
		if prev.name == name {
			m.entry(importread.Entry{Kind: "measure", Name: c.name + "." + name, File: n.File(), Line: n.Line(), Status: importread.Refused,
				Reason: "it names a measure of cube " + c.name + " again; Cube refuses that"})
			return
		}
	}
	ms := &measure{n: n, name: name, kind: kind}
	ms.entry = m.entry(importread.Entry{Kind: "measure", Name: c.name + "." + name, File: n.File(), Line: n.Line(), Output: "metric:" + c.name + "_" + name,
		Notes: presentation(n)})
	c.measures = append(c.measures, ms)
	m.scoped(ms.refuse, func() {
		ms.description = text(n, "description")
		for _, k := range n.Keys() {
			if !slices.Contains(measureKeys, snake(k)) {
				ms.refuse("key " + safeKey(k) + " is unknown here; refusing rather than guessing what it means")
			}
		}
		switch {
		case kind == "":
			ms.refuse("it has no type")
		case hasField(n, "rolling_window"):
			ms.refuse("a rolling_window measure aggregates over a moving window, which the catalogue cannot express")
		case truthy(n, "multi_stage") || hasField(n, "time_shift") || hasField(n, "reduce_by") || hasField(n, "group_by") || hasField(n, "add_group_by"):
			ms.refuse("a multi-stage measure (multi_stage, time_shift, group_by, reduce_by) aggregates an aggregate, which the catalogue cannot express")
		case hasField(n, "case"):
			ms.refuse("a case measure is an expression, which the catalogue cannot express")
		}
	})
}

func (ms *measure) refuse(reason string) {
	if ms.refused == "" {
		ms.refused = reason
	}
}

// joinKinds maps Cube's relationship names, current and legacy, onto join
// types; one_to_many is read from the other side.
var joinKinds = map[string]domain.JoinType{
	"many_to_one": domain.ManyToOne, "belongs_to": domain.ManyToOne, "belongsto": domain.ManyToOne,
	"one_to_one": domain.OneToOne, "has_one": domain.OneToOne, "hasone": domain.OneToOne,
	"one_to_many": domain.OneToMany, "has_many": domain.OneToMany, "hasmany": domain.OneToMany,
}

func (m *modelSet) addJoin(c *cube, n node) {
	var target, rel string
	if n.IsMap() {
		m.scoped(func(string) {}, func() { target, rel = text(n, "name"), text(n, "relationship") })
	}
	if target == "" {
		m.unnamed("join", n)
		return
	}
	j := &join{n: n, target: target}
	j.entry = m.entry(importread.Entry{Kind: "join", Name: c.name + "." + target, File: n.File(), Line: n.Line()})
	jt, ok := joinKinds[strings.ToLower(rel)]
	if !ok {
		jt, ok = joinKinds[snake(rel)]
	}
	if !ok {
		m.refuse(j.entry, "its relationship is not many_to_one, one_to_one or one_to_many (or belongs_to, has_one, has_many)")
		return
	}
	j.kind = jt
	c.joins = append(c.joins, j)
}

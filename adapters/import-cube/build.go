package cube

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"sutura.dev/adapters/importread"
	"sutura.dev/domain"
)

// The reference spellings of Cube's SQL: {CUBE}.col, {CUBE}."col",
// {cube}.col, {CUBE.member}, {cube.member}, {member}; each may carry the
// $ of the JavaScript spelling.
var (
	columnRef = regexp.MustCompile(`^\$?\{\s*(\w+)\s*\}\s*\.\s*(?:"(\w+)"|(\w+))$`)
	memberRef = regexp.MustCompile(`^\$?\{\s*(?:(\w+)\s*\.\s*)?(\w+)\s*\}$`)
	ratioSQL  = regexp.MustCompile(`^\s*(\$?\{[^{}]+\})\s*/\s*(\$?\{[^{}]+\})\s*$`)
	filterSQL = regexp.MustCompile(`^\s*(.+?)\s*=\s*'((?:[^']|'')*)'\s*$`)
	joinSQL   = regexp.MustCompile(`^\s*(\S+?)\s*=\s*(\S+?)\s*$`)
)

// ref is one reference of Cube SQL: to a column of a cube's table, or to a
// member (dimension or measure) of a cube.
type ref struct {
	cube, name string
	member     bool
}

// parseRef reads a bare column, {CUBE}.col or a member reference; cube is
// "" for a bare column or {member}, and "CUBE" for the cube itself.
func parseRef(s string) (ref, bool) {
	s = strings.TrimSpace(s)
	if domain.CheckIdent(s) == nil {
		return ref{name: s}, true
	}
	if m := columnRef.FindStringSubmatch(s); m != nil {
		return ref{cube: m[1], name: m[2] + m[3]}, true
	}
	if m := memberRef.FindStringSubmatch(s); m != nil {
		return ref{cube: m[1], name: m[2], member: true}, true
	}
	return ref{}, false
}

// own reports whether a reference's cube is c (CUBE, c's name, or none).
func (r ref) own(c *cube) bool { return r.cube == "" || r.cube == "CUBE" || r.cube == c.name }

// ownColumn resolves sql to a column of c's table (a bare column or
// {CUBE}.col), says "pending" for a reference to a member of c (the caller
// resolves it), and why not otherwise.
func ownColumn(sql string, c *cube) (string, string) {
	r, ok := parseRef(sql)
	switch {
	case !ok:
		return "", "its sql is an expression, not a column"
	case !r.own(c):
		return "", "its sql references another cube (" + safeKey(r.cube) + "), not a column of this cube's table"
	case r.member:
		return "", "pending"
	}
	return r.name, ""
}

// memberColumn resolves a member reference of c to the column of a
// dimension that is itself a column.
func (m *modelSet) memberColumn(c *cube, name string, depth int) (string, string) {
	for _, d := range c.dims {
		if d.name != name {
			continue
		}
		m.resolveDimension(c, d, depth+1)
		if d.refused != "" {
			return "", "it references dimension " + d.name + ", which is refused"
		}
		return d.column, ""
	}
	for _, ms := range c.measures {
		if ms.name == name {
			return "", "it references measure " + ms.name + ", an aggregate, not a column"
		}
	}
	return "", "missing"
}

// resolveDimension sets a dimension's column, following references to
// other dimensions of the cube.
func (m *modelSet) resolveDimension(c *cube, d *dimension, depth int) {
	if d.refused != "" || d.column != "" {
		return
	}
	if depth > 16 {
		d.refused = "its sql refers to itself through other dimensions"
		return
	}
	sql := text(d.n, "sql")
	r, _ := parseRef(sql)
	col, why := ownColumn(sql, c)
	if why == "pending" {
		col, why = m.memberColumn(c, r.name, depth)
		if why == "missing" {
			why = "its sql references a member cube " + c.name + " does not define"
		}
	}
	if why != "" {
		d.refused = why
		return
	}
	d.column = col
}

// column resolves the sql of a measure or filter to a column of c.
func (m *modelSet) column(c *cube, sql string) (string, string) {
	r, _ := parseRef(sql)
	col, why := ownColumn(sql, c)
	if why == "pending" {
		col, why = m.memberColumn(c, r.name, 0)
		if why == "missing" {
			why = "its sql references a member cube " + c.name + " does not define"
		}
	}
	return col, why
}

// build resolves dimensions, time columns, measures and joins, and
// settles every entry's status.
func (m *modelSet) build() {
	for _, c := range m.cubes {
		for _, d := range c.dims {
			m.scoped(d.refuse, func() { m.resolveDimension(c, d, 0) })
		}
		m.timeOf(c)
		for _, d := range c.dims {
			m.settleDimension(c, d)
		}
		if len(c.pk) > 1 && c.refused == "" {
			m.note(c.entry, fmt.Sprintf("its primary key is composite (%s): it is recorded as such; a count of rows counts its first column, and a relationship to this cube on one of the columns is refused",
				strings.Join(c.pk, ", ")))
		}
	}
	for _, c := range m.cubes {
		for _, ms := range c.measures {
			m.scoped(ms.refuse, func() { m.resolveMeasure(c, ms) })
		}
		for _, ms := range c.measures {
			m.scoped(func(why string) { m.refuse(ms.entry, why) }, func() { m.metric(c, ms) })
		}
		for _, j := range c.joins {
			m.scoped(func(why string) { m.refuse(j.entry, why) }, func() { m.joinOf(c, j) })
		}
		e := &m.entries[c.entry]
		if c.refused != "" {
			e.Status, e.Reason, e.Output = importread.Refused, c.refused, ""
		} else {
			e.Status, e.Became = importread.Imported, fmt.Sprintf("model %s over table %s", c.name, c.table)
		}
	}
}

// timeOf finds a cube's time column: its one time dimension over a column.
func (m *modelSet) timeOf(c *cube) {
	var times []string
	for _, d := range c.dims {
		if d.kind == "time" && d.refused == "" {
			times = append(times, d.name)
			c.timeColumn = d.column
		}
	}
	switch len(times) {
	case 1:
		c.column(c.timeColumn, "")
	case 0:
		c.timeColumn, c.timeWhy = "", "its cube has no time dimension over a column, and a metric needs a time column"
	default:
		c.timeColumn = ""
		c.timeWhy = fmt.Sprintf("its cube has %d time dimensions over columns (%s); a metric is measured over one time column, and choosing one would change what Cube lets callers ask",
			len(times), strings.Join(times, ", "))
	}
}

func (m *modelSet) settleDimension(c *cube, d *dimension) {
	e := &m.entries[d.entry]
	if d.refused == "" && truthy(d.n, "primary_key") {
		if !slices.Contains(c.pk, d.column) {
			c.pk = append(c.pk, d.column)
		}
		c.column(d.column, "")
	}
	switch {
	case c.refused != "":
		m.refuse(d.entry, "its cube is not imported")
	case d.refused != "":
		m.refuse(d.entry, d.refused)
	case d.kind == "time":
		c.column(d.column, "")
		e.Status = importread.Imported
		if d.column == c.timeColumn {
			e.Became = fmt.Sprintf("the time column %s of every metric of model %s", d.column, c.name)
		} else {
			e.Became = fmt.Sprintf("column %s of model %s (a time dimension, but not the cube's one time column)", d.column, c.name)
		}
	default:
		t := map[string]domain.ColumnType{"string": domain.TypeText, "boolean": domain.TypeBoolean}[d.kind]
		c.column(d.column, t)
		e.Status, e.Output = importread.Imported, "dimension:"+c.name+"."+d.name
	}
}

// resolveMeasure maps a measure onto a term and required filters.
func (m *modelSet) resolveMeasure(c *cube, ms *measure) {
	if ms.refused != "" || ms.state == 2 {
		return
	}
	ms.state = 2
	sql := text(ms.n, "sql")
	switch ms.kind {
	case "count":
		if sql == "" {
			if len(c.pk) == 0 {
				ms.refuse("a count without sql counts rows, which the catalogue counts over the primary key, and the cube has no primary key over a column")
				return
			}
			ms.term = &domain.Term{Aggregate: domain.Count, Column: c.pk[0]}
			break
		}
		fallthrough
	case "count_distinct", "sum", "avg", "min", "max":
		if sql == "" {
			ms.refuse("a " + ms.kind + " measure without sql has nothing to aggregate")
			return
		}
		col, why := m.column(c, sql)
		if why != "" {
			ms.refuse(why)
			return
		}
		c.column(col, "")
		agg := map[string]domain.Aggregate{"count": domain.Count, "count_distinct": domain.CountDistinct, "sum": domain.Sum,
			"avg": domain.Avg, "min": domain.Min, "max": domain.Max}[ms.kind]
		ms.term = &domain.Term{Aggregate: agg, Column: col}
	case "count_distinct_approx":
		ms.refuse("an approximate count is not in the catalogue's vocabulary")
		return
	case "running_total":
		ms.refuse("a running total is not in the catalogue's vocabulary")
		return
	case "number":
		return // a ratio, or refused, in metric
	case "string", "time", "boolean", "number_agg":
		ms.refuse("a " + ms.kind + " measure is an expression, which the catalogue cannot express")
		return
	default:
		ms.refuse("its type is not a measure type Cube knows")
		return
	}
	for _, f := range list(ms.n, "filters") {
		rf, why := m.filter(c, f)
		if why != "" {
			ms.refuse(why)
			ms.term = nil
			return
		}
		ms.filters = append(ms.filters, rf)
	}
}

// filter maps one measure filter, {sql: "<column> = 'value'"}, onto an
// equals required filter.
func (m *modelSet) filter(c *cube, f node) (domain.RequiredFilter, string) {
	const form = "its filter is not <column> = 'value' over a column of its own cube ({CUBE}.col or {CUBE.dimension})"
	sql := text(f, "sql")
	match := filterSQL.FindStringSubmatch(sql)
	if match == nil {
		return domain.RequiredFilter{}, form
	}
	if _, ok := parseRef(match[1]); !ok {
		return domain.RequiredFilter{}, form
	}
	col, why := m.column(c, match[1])
	if why != "" {
		return domain.RequiredFilter{}, "its filter: " + why
	}
	value := strings.ReplaceAll(match[2], "''", "'")
	if err := domain.CheckValue(value); err != nil {
		return domain.RequiredFilter{}, "its filter compares with a value that " + err.Error()
	}
	c.column(col, "")
	return domain.RequiredFilter{Op: domain.Equals, Column: col, Value: value}, ""
}

// metric turns a measure into a metric <cube>_<measure>, or refuses it.
func (m *modelSet) metric(c *cube, ms *measure) {
	name := c.name + "_" + ms.name
	refuse := func(why string) { m.refuse(ms.entry, why) }
	var measure *domain.Measure
	switch {
	case c.refused != "":
		refuse("its cube is not imported: " + c.refused)
		return
	case ms.refused != "":
		refuse(ms.refused)
		return
	case ms.term == nil && ms.kind != "number":
		refuse("it could not be read")
		return
	case ms.kind == "number":
		r, why := m.ratio(c, ms)
		if why != "" {
			refuse(why)
			return
		}
		measure = &domain.Measure{Ratio: r}
	default:
		t := *ms.term
		measure = &domain.Measure{Simple: &t}
	}
	switch {
	case domain.CheckIdent(name) != nil:
		refuse("its name as a metric, " + c.name + "_<measure>, is not an identifier of at most 63 characters")
		return
	case c.timeColumn == "":
		refuse(c.timeWhy)
		return
	}
	met := domain.Metric{Name: name, Model: c.name, Measure: measure, TimeColumn: c.timeColumn,
		Grains: []domain.Grain{domain.Day, domain.Week, domain.Month, domain.Quarter, domain.Year}, RequiredFilters: ms.filters,
		Description: ms.description}
	m.metrics = append(m.metrics, met)
	e := &m.entries[ms.entry]
	e.Status, e.Became = importread.Imported, describeMetric(&met)
}

// ratio reads a number measure whose sql is exactly {a} / {b} over two
// aggregate measures of the same cube without filters.
func (m *modelSet) ratio(c *cube, ms *measure) (*domain.Ratio, string) {
	const expr = "a number measure is an expression over measures; only {a} / {b} over two plain measures of the same cube is imported (as a ratio)"
	match := ratioSQL.FindStringSubmatch(text(ms.n, "sql"))
	if match == nil {
		return nil, expr
	}
	var terms [2]domain.Term
	for i, side := range match[1:] {
		r, ok := parseRef(side)
		if !ok || !r.member {
			return nil, expr
		}
		if !r.own(c) {
			return nil, "it references a measure of another cube (" + safeKey(r.cube) + "), which the catalogue cannot express"
		}
		var in *measure
		for _, x := range c.measures {
			if x.name == r.name {
				in = x
			}
		}
		switch {
		case in == nil:
			return nil, "its sql references a measure cube " + c.name + " does not define"
		case in.kind == "number":
			return nil, "its input " + in.name + " is itself an expression"
		case in.refused != "" || in.term == nil:
			return nil, "its input " + in.name + " is refused"
		case len(in.filters) > 0:
			return nil, "its input " + in.name + " has its own filters, which the catalogue's ratio cannot carry"
		}
		terms[i] = *in.term
	}
	return &domain.Ratio{Numerator: terms[0], Denominator: terms[1], ZeroDenominator: domain.Fails}, ""
}

// joinOf turns a join on an equality of two columns into a relationship.
func (m *modelSet) joinOf(c *cube, j *join) {
	e := &m.entries[j.entry]
	target, ok := m.byName[j.target]
	switch {
	case !ok:
		m.refuse(j.entry, "it joins cube "+safeKey(j.target)+", which is not among the YAML cubes read")
		return
	case c.refused != "":
		m.refuse(j.entry, "its cube is not imported")
		return
	case target.refused != "":
		m.refuse(j.entry, "the cube it joins, "+target.name+", is not imported: "+target.refused)
		return
	}
	match := joinSQL.FindStringSubmatch(text(j.n, "sql"))
	const form = "its sql is not an equality of two columns ({CUBE}.x = {other}.y, {CUBE.x} = {other.y})"
	if match == nil {
		m.refuse(j.entry, form)
		return
	}
	var cols [2]string
	var sides [2]*cube
	for i, s := range match[1:] {
		r, ok := parseRef(s)
		if !ok || r.cube == "" {
			m.refuse(j.entry, form)
			return
		}
		side := c
		if !r.own(c) {
			if r.cube != target.name {
				m.refuse(j.entry, "its sql references a cube other than the two it joins")
				return
			}
			side = target
		}
		col := r.name
		if r.member {
			var why string
			if col, why = m.memberColumn(side, r.name, 0); why != "" {
				if why == "missing" {
					why = "its sql references a member cube " + side.name + " does not define"
				}
				m.refuse(j.entry, why)
				return
			}
		}
		cols[i], sides[i] = col, side
	}
	if sides[0] == sides[1] {
		m.refuse(j.entry, "its sql compares two columns of the same cube")
		return
	}
	if sides[0] != c {
		cols[0], cols[1] = cols[1], cols[0]
	}
	rel := domain.Relationship{Name: c.name + "_" + target.name, JoinType: j.kind,
		Origin: domain.Endpoint{Model: c.name, Column: cols[0]}, Target: domain.Endpoint{Model: target.name, Column: cols[1]}}
	if j.kind == domain.OneToMany {
		rel.JoinType, rel.Origin, rel.Target = domain.ManyToOne, rel.Target, rel.Origin
		m.note(j.entry, "one_to_many is read from the other side, as many_to_one from "+target.name+" to "+c.name)
	}
	for _, r := range m.rels {
		if r.Origin == rel.Origin && r.Target == rel.Target && r.JoinType == rel.JoinType {
			e.Status, e.Reason = importread.Ignored, "relationship "+r.Name+" already joins the same columns the same way"
			return
		}
	}
	for _, side := range []*cube{m.byName[rel.Target.Model], m.byName[rel.Origin.Model]} {
		if len(side.pk) > 1 && (side.name == rel.Target.Model || rel.JoinType == domain.OneToOne) {
			m.refuse(j.entry, fmt.Sprintf("cube %s has a composite primary key (%s), so one of its columns is no key this relationship can join to", side.name, strings.Join(side.pk, ", ")))
			return
		}
	}
	if domain.CheckIdent(rel.Name) != nil {
		m.refuse(j.entry, "its name as a relationship, <cube>_<cube>, is not an identifier of at most 63 characters")
		return
	}
	c.column(cols[0], "")
	target.column(cols[1], "")
	m.rels = append(m.rels, rel)
	e.Status, e.Output = importread.Imported, "relationship:"+rel.Name
	e.Became = fmt.Sprintf("relationship %s (%s, %s.%s to %s.%s)", rel.Name, rel.JoinType, rel.Origin.Model, rel.Origin.Column, rel.Target.Model, rel.Target.Column)
}

// result gathers the definitions and entries.
func (m *modelSet) result() *importread.Result {
	r := &importread.Result{Entries: m.entries, Definitions: domain.Definitions{Relationships: m.rels, Metrics: m.metrics}}
	for _, c := range m.cubes {
		if c.refused != "" {
			continue
		}
		model := domain.Model{Name: c.name, Table: c.table, Description: c.description}
		for _, col := range c.columns {
			model.Columns = append(model.Columns, domain.ModelColumn{Name: col, Type: c.types[col]})
		}
		model.PrimaryKey = slices.Clone(c.pk)
		r.Definitions.Models = append(r.Definitions.Models, model)
		for _, d := range c.dims {
			if d.kind != "time" && d.refused == "" {
				r.Dimensions = append(r.Dimensions, importread.Dimension{Model: c.name, Name: d.name, Column: d.column, Description: d.descr})
			}
		}
	}
	return r
}

// describeMetric says what a metric became, without quoting filter values.
func describeMetric(m *domain.Metric) string {
	term := func(t domain.Term) string {
		if t.CountIf != "" {
			return "count_if over " + t.CountIf
		}
		return string(t.Aggregate) + " over " + t.Column
	}
	var b strings.Builder
	fmt.Fprintf(&b, "metric %s on model %s: ", m.Name, m.Model)
	if r := m.Measure.Ratio; r != nil {
		fmt.Fprintf(&b, "ratio of %s to %s (%s)", term(r.Numerator), term(r.Denominator), r.ZeroDenominator)
	} else {
		b.WriteString(term(*m.Measure.Simple))
	}
	fmt.Fprintf(&b, "; time column %s; grains day to year", m.TimeColumn)
	for _, f := range m.RequiredFilters {
		fmt.Fprintf(&b, "; required filter %s on %s", f.Op, f.Column)
	}
	return b.String()
}

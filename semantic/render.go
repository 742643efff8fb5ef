package semantic

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"sutura.dev/domain"
)

// ParamKind is the type a parameter is bound as.
type ParamKind string

// Parameter kinds. A date's Value is YYYY-MM-DD; a text's Value is the
// string itself.
const (
	ParamDate ParamKind = "date"
	ParamText ParamKind = "text"
)

// Param is one bound value of a statement. Params are listed in the order
// their placeholders appear in the SQL, and each placeholder appears exactly
// once, so binding them positionally in list order is always right.
type Param struct {
	// Name is the placeholder exactly as written in the SQL: $1 (postgres,
	// duckdb), :1 (oracle), @p1 (bigquery), {p1:Date} or {p1:String}
	// (clickhouse server-side parameters).
	Name  string    `json:"name"`
	Kind  ParamKind `json:"kind"`
	Value string    `json:"value"`
}

// BindName returns the name a driver binds the parameter under: "p1" for
// bigquery's @p1 and clickhouse's {p1:Date}, and the placeholder itself for
// the positional dialects.
func (p Param) BindName() string {
	switch {
	case strings.HasPrefix(p.Name, "@"):
		return p.Name[1:]
	case strings.HasPrefix(p.Name, "{"):
		name, _, _ := strings.Cut(p.Name[1:], ":")
		return name
	}
	return p.Name
}

// Statement is SQL text with its bound parameters. The SQL holds no value
// of the question or of the catalogue: every one is a Param.
type Statement struct {
	SQL    string  `json:"sql"`
	Params []Param `json:"params"`
}

// ErrPlanNotRenderable wraps every reason Render refuses a plan: a plan not
// built by Compile, or one with a shape SQL rendering does not support yet
// (several legs).
var ErrPlanNotRenderable = errors.New("the plan cannot be rendered as SQL")

// Render writes the one statement that answers a single-leg plan on a data
// system of dialect d. It does no I/O. The statement returns the plan's
// Columns, in order, labelled with their names, and at most RowCap+1 rows
// (top.n with top), in the order the package documentation states. A leg
// of a federated plan (domain.Plan.LegPlan) is rendered the same way: its
// base leg as partials in no particular order, a lookup leg as the rows
// of its table (see the package documentation).
func Render(p *domain.Plan, d Dialect) (Statement, error) {
	if !d.valid() {
		return Statement{}, ErrUnknownDialect
	}
	r, err := newRenderer(p, d)
	if err != nil {
		return Statement{}, err
	}
	return r.statement().finish(d), nil
}

// RenderClickHouseLegacy writes the statement Render(p, ClickHouse) writes,
// for a ClickHouse server whose native protocol carries no query
// parameters (servers before 22.8; Debian 12 ships 18.16): the same SQL,
// with each value a ? that the driver binds, a date as toDate(?) so that
// it compares as a Date whatever the driver makes of the bound text. A
// Param's Name is then "?", its Value the text to bind, and the order of
// Params the order of the placeholders. Choose it by the server's version
// only: on a server that has query parameters, Render's typed {p1:Date}
// placeholders are what the server itself binds.
func RenderClickHouseLegacy(p *domain.Plan) (Statement, error) {
	r, err := newRenderer(p, ClickHouse)
	if err != nil {
		return Statement{}, err
	}
	return r.statement().finishBound(), nil
}

func notRenderable(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrPlanNotRenderable, fmt.Sprintf(format, args...))
}

type renderer struct {
	d      Dialect
	p      *domain.Plan
	leg    *domain.Leg
	tables map[string]domain.Table // alias → table
}

func (r *renderer) ident(s string) string { return r.d.quote(s) }

func (r *renderer) col(c domain.ColumnRef) frag {
	return cat(r.ident(c.Alias) + "." + r.ident(c.Column))
}

func (r *renderer) base(column string) frag {
	return r.col(domain.ColumnRef{Alias: r.leg.Base.Alias, Column: column})
}

func (r *renderer) colType(c domain.ColumnRef) domain.ColumnType {
	for _, mc := range r.tables[c.Alias].Columns {
		if mc.Name == c.Column {
			return mc.Type
		}
	}
	return domain.TypeUnset
}

func (r *renderer) statement() frag {
	leg := r.leg
	if leg.Kind == domain.LegLookup {
		return r.lookup()
	}
	timeCol := domain.ColumnRef{Alias: leg.Base.Alias, Column: leg.TimeColumn}
	timeType := r.colType(timeCol)
	bucket := r.d.bucket(r.p.Grain, r.col(timeCol), timeType)

	var selects, groups []frag
	for _, dim := range leg.Dimensions {
		selects = append(selects, cat(r.col(dim.Column), " AS "+r.ident(dim.Name)))
		groups = append(groups, r.col(dim.Column))
	}
	selects = append(selects, cat(bucket, " AS "+r.ident("period")))
	groups = append(groups, bucket)
	common, residuals := splitFilters(leg.Metrics)
	for i, m := range leg.Metrics {
		selects = append(selects, cat(r.measure(m.Measure, r.conjunction(residuals[i])), " AS "+r.ident(m.Name)))
	}

	out := cat("SELECT\n  ", joinFrags(",\n  ", selects), "\nFROM "+r.d.tableAs(leg.Base))
	out = append(out, r.joins()...)

	rc := r.d.rangeColumn(r.col(timeCol), timeType)
	where := []frag{
		cat(rc, " >= ", value(ParamDate, r.p.Range.Start.String())),
		cat(rc, " < ", value(ParamDate, r.p.Range.End.String())),
	}
	for _, f := range leg.Filters {
		where = append(where, r.callerFilter(f))
	}
	for _, f := range common {
		where = append(where, r.required(f))
	}
	if anyOf(residuals) {
		var alts []frag
		for i, res := range residuals {
			if slices.ContainsFunc(residuals[:i], func(prev []domain.RequiredFilter) bool { return slices.Equal(prev, res) }) {
				continue // the same alternative once is enough
			}
			c := r.conjunction(res)
			if len(res) > 1 {
				c = cat("(", c, ")")
			}
			alts = append(alts, c)
		}
		where = append(where, cat("(", joinFrags(" OR ", alts), ")"))
	}
	out = append(out, cat("\nWHERE ", joinFrags("\n  AND ", where))...)
	out = append(out, cat("\nGROUP BY\n  ", joinFrags(",\n  ", groups))...)
	if !r.p.Part {
		// A leg's partials go to the combine, which orders the answer.
		out = append(out, cat("\nORDER BY\n  ", joinFrags(",\n  ", r.orderKeys()))...)
	}
	n := r.p.RowCap + 1
	if r.p.Top != nil {
		n = r.p.Top.N
	}
	return r.finishQuery(out, n)
}

// finishQuery ends a statement with its limit and, on clickhouse, the
// setting LEFT JOINs need.
func (r *renderer) finishQuery(out frag, n int) frag {
	out = append(out, cat("\n"+r.d.limit(n))...)
	if r.d == ClickHouse && len(r.leg.Joins) > 0 {
		// Without it, an unmatched LEFT JOIN row reads default values (''
		// or 0) instead of nulls.
		out = append(out, cat("\nSETTINGS join_use_nulls = 1")...)
	}
	return out
}

// lookup is the statement of a lookup leg: one row per row of its base
// table whose key (the first column) is not null, with the columns it
// reaches through its joins, filtered by the leg's filters.
func (r *renderer) lookup() frag {
	leg := r.leg
	var selects []frag
	for _, dim := range leg.Dimensions {
		selects = append(selects, cat(r.col(dim.Column), " AS "+r.ident(dim.Name)))
	}
	out := cat("SELECT\n  ", joinFrags(",\n  ", selects), "\nFROM "+r.d.tableAs(leg.Base))
	out = append(out, r.joins()...)
	where := []frag{cat(r.col(leg.Dimensions[0].Column), " IS NOT NULL")}
	for _, f := range leg.Filters {
		where = append(where, r.callerFilter(f))
	}
	out = append(out, cat("\nWHERE ", joinFrags("\n  AND ", where))...)
	return r.finishQuery(out, r.p.RowCap+1)
}

// joins renders the leg's LEFT JOINs.
func (r *renderer) joins() frag {
	var out frag
	for _, j := range r.leg.Joins {
		on := r.col(domain.ColumnRef{Alias: j.FromAlias, Column: j.FromColumn})
		to := r.col(domain.ColumnRef{Alias: j.To.Alias, Column: j.ToColumn})
		out = append(out, cat("\nLEFT JOIN "+r.d.tableAs(j.To)+" ON ", on, " = ", to)...)
	}
	return out
}

// anyOf reports whether every metric has a residual filter, so WHERE must
// require one of them to hold. When some metric has none, every row the
// common filters keep counts for it and no alternative is needed.
func anyOf(residuals [][]domain.RequiredFilter) bool {
	for _, res := range residuals {
		if len(res) == 0 {
			return false
		}
	}
	return len(residuals) > 1
}

// orderKeys orders by the top key first (when set), then every group key
// ascending, nulls last, text by its bytes.
func (r *renderer) orderKeys() []frag {
	var keys []frag
	dir := func(desc bool) string {
		if desc {
			return " DESC NULLS LAST"
		}
		return " ASC NULLS LAST"
	}
	periodDone := false
	if t := r.p.Top; t != nil {
		switch t.By {
		case domain.ByPeriod:
			keys = append(keys, cat(r.ident("period")+dir(t.Descending())))
			periodDone = true
		default:
			keys = append(keys, cat(r.ident(r.leg.Metrics[0].Name)+dir(t.Descending())))
		}
	}
	for _, dim := range r.leg.Dimensions {
		k := r.col(dim.Column)
		if t := r.colType(dim.Column); t == domain.TypeText || t == domain.TypeUnset {
			k = r.d.orderText(k)
		}
		keys = append(keys, cat(k, dir(false)))
	}
	if !periodDone {
		keys = append(keys, cat(r.ident("period")+dir(false)))
	}
	return keys
}

// splitFilters returns the required filters every metric has, and each
// metric's remaining ones.
func splitFilters(ms []domain.MetricRef) (common []domain.RequiredFilter, residuals [][]domain.RequiredFilter) {
	for _, f := range ms[0].RequiredFilters {
		all := true
		for _, m := range ms[1:] {
			all = all && slices.Contains(m.RequiredFilters, f)
		}
		if all && !slices.Contains(common, f) {
			common = append(common, f)
		}
	}
	for _, m := range ms {
		var res []domain.RequiredFilter
		for _, f := range m.RequiredFilters {
			if !slices.Contains(common, f) {
				res = append(res, f)
			}
		}
		residuals = append(residuals, res)
	}
	return common, residuals
}

// conjunction is the AND of the filters, or nil for none.
func (r *renderer) conjunction(fs []domain.RequiredFilter) frag {
	var parts []frag
	for _, f := range fs {
		parts = append(parts, r.required(f))
	}
	return joinFrags(" AND ", parts)
}

func (r *renderer) required(f domain.RequiredFilter) frag {
	c := r.base(f.Column)
	switch f.Op {
	case domain.Equals:
		return cat(c, " = ", value(ParamText, f.Value))
	case domain.NotEquals:
		return cat(c, " <> ", value(ParamText, f.Value))
	case domain.IsTrue:
		return r.d.isTrue(c)
	}
	return cat(c, " IS NOT NULL")
}

func (r *renderer) callerFilter(f domain.FilterRef) frag {
	c := r.col(f.Column)
	var vals []frag
	for _, v := range f.Values {
		vals = append(vals, value(ParamText, v))
	}
	list := cat("(", joinFrags(", ", vals), ")")
	switch f.Op {
	case domain.OpEq:
		return cat(c, " = ", vals[0])
	case domain.OpIn:
		return cat(c, " IN ", list)
	}
	return cat("(", c, " IS NULL OR ", c, " NOT IN ", list, ")")
}

// measure renders a metric's value; cond, when non-nil, is the metric's
// residual filter, applied inside its aggregates.
func (r *renderer) measure(m domain.Measure, cond frag) frag {
	if m.Simple != nil {
		return r.term(*m.Simple, cond)
	}
	num, den := r.term(m.Ratio.Numerator, cond), r.term(m.Ratio.Denominator, cond)
	if m.Ratio.ZeroDenominator == domain.Fails {
		return r.d.divideOrFail(num, den)
	}
	return cat(r.d.toDouble(num), " / ", r.d.toDouble(cat("NULLIF(", den, ", 0)")))
}

func (r *renderer) term(t domain.Term, cond frag) frag {
	var e frag
	countLike := true
	if t.CountIf != "" {
		pred := r.d.isTrue(r.base(t.CountIf))
		if cond != nil {
			pred = cat(cond, " AND ", pred)
		}
		e = cat("COUNT(CASE WHEN ", pred, " THEN 1 END)")
	} else {
		arg := r.base(t.Column)
		if cond != nil {
			arg = cat("CASE WHEN ", cond, " THEN ", arg, " END")
		}
		switch t.Aggregate {
		case domain.Sum:
			e, countLike = cat("SUM(", arg, ")"), false
		case domain.Count:
			e = cat("COUNT(", arg, ")")
		case domain.CountDistinct:
			e = cat("COUNT(DISTINCT ", arg, ")")
		case domain.Avg:
			e, countLike = r.avg(t.Column, arg), false
		case domain.Min:
			e, countLike = cat("MIN(", arg, ")"), false
		default:
			e, countLike = cat("MAX(", arg, ")"), false
		}
	}
	if countLike && cond != nil {
		// A count is 0 over no rows; the metric has no cell in a group
		// where none of its rows pass, so it must be null there.
		e = cat("CASE WHEN COUNT(CASE WHEN ", cond, " THEN 1 END) = 0 THEN NULL ELSE ", e, " END")
	}
	return e
}

// avg is the average of arg (over the base table's column), as a double.
// PostgreSQL's AVG of a numeric keeps only about 16 significant digits
// before the cast, one short of a double's 17: for a decimal column the
// statement divides the exact sum, carried 20 more fractional digits, by
// the count instead, so the cast gives the double nearest the exact
// average, as DuckDB's AVG(DECIMAL) and the embedded engine do
// (docs/reference.md, Numbers). NULLIF keeps an average over no value
// null, as AVG's.
func (r *renderer) avg(column string, arg frag) frag {
	if r.d == Postgres && r.colType(domain.ColumnRef{Alias: r.leg.Base.Alias, Column: column}) == domain.TypeDecimal {
		return r.d.toDouble(cat("SUM(", arg, ") * 1.00000000000000000000 / NULLIF(COUNT(", arg, "), 0)"))
	}
	return r.d.toDouble(cat("AVG(", arg, ")"))
}

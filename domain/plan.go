package domain

// Plan is a resolved question ready for execution, produced by the
// compiler (package semantic) and consumed by every data system; it lives
// here because executors may import only the domain. It names every table,
// column and value the work needs, so no executor ever consults the
// question or the bundle again.
//
// A single-source plan has one Leg, which answers the question, and no
// Combine. A federated plan (docs/contract.md §11) has a base leg (Legs[0]) on
// the metrics' source, whose rows are re-aggregable partials, a lookup leg
// (LegLookup) per crossing relationship, and a Combine step that joins and
// re-aggregates their rows into the answer. An executor never sees a
// federated plan whole: it runs one leg at a time, as the plan LegPlan
// returns.
type Plan struct {
	// Columns of the answer: dimensions in question order, period, then one
	// per metric. For a Part plan, the columns of the leg's rows
	// (Leg.OutputColumns).
	Columns []Column
	Grain   Grain
	Range   Range
	// Legs hold the work per data system; Legs[0] is the fact leg.
	Legs []Leg
	// Combine, set on a federated plan, says how the legs' rows become the
	// answer.
	Combine *Combine
	// Top, when set, ranks by the single metric or by period.
	Top *Top
	// RowCap is the most rows an answer may hold; executors fetch RowCap+1
	// to tell a full answer from a truncated one, which is refused. For a
	// Part plan it is the most rows the leg may return
	// (governance.max_leg_rows).
	RowCap int
	// Part marks one leg of a federated plan as an executor receives it
	// (LegPlan): its rows go to the combine, not to a caller, so RowCap may
	// exceed MaxRowCap (up to MaxLegRowCap) and the byte bound of an answer
	// does not apply (Bounds).
	Part bool
	// Provenance without ExecutedAs, which executors add.
	Provenance Provenance
}

// MaxLegRowCap is the most rows any leg of a federated plan may be allowed
// (the upper end of governance.max_leg_rows).
const MaxLegRowCap = 10_000_000

// Bounds returns the most rows an executor may return for the plan and the
// most bytes their rendered cells may take: RowCap (MaxRowCap when it is
// not positive or larger) and MaxResultBytes for an answer; RowCap (up to
// MaxLegRowCap) and no byte bound (math.MaxInt) for a Part plan, whose
// rows the combine reduces. More is refused as result_too_large.
func (p *Plan) Bounds() (rows, bytes int) {
	if p.Part {
		rows = p.RowCap
		if rows <= 0 || rows > MaxLegRowCap {
			rows = MaxLegRowCap
		}
		return rows, int(^uint(0) >> 1)
	}
	rows = p.RowCap
	if rows <= 0 || rows > MaxRowCap {
		rows = MaxRowCap
	}
	return rows, MaxResultBytes
}

// Federated reports whether the plan spans several legs that a combine
// joins (docs/contract.md §11).
func (p *Plan) Federated() bool { return p.Combine != nil }

// LegPlan returns the plan an executor runs for leg i of a federated plan:
// that leg alone, marked Part, with its own output columns, the plan's
// grain and range, no top and rowCap as its row cap. The leg is shared,
// not copied; the executor must not modify it.
func (p *Plan) LegPlan(i, rowCap int) *Plan {
	leg := p.Legs[i]
	return &Plan{
		Columns: leg.OutputColumns(),
		Grain:   p.Grain,
		Range:   p.Range,
		Legs:    []Leg{leg},
		RowCap:  rowCap,
		Part:    true,
	}
}

// LegKind says what a leg returns.
type LegKind uint8

// The kinds of legs.
const (
	// LegAggregate groups the base table's rows by the dimensions and the
	// period and aggregates each metric: the whole answer of a
	// single-source plan, or the partials of a federated base leg.
	LegAggregate LegKind = iota
	// LegLookup returns one row per row of Base whose key is not null:
	// the Dimensions' columns (the key first), with no grouping, no time
	// column and no metric. Filters apply as in any leg.
	LegLookup
)

// OutputColumns returns the columns of the rows the leg returns: for an
// aggregate leg its dimensions (labelled with their names), "period",
// then its metrics; for a lookup leg its dimensions only.
func (l *Leg) OutputColumns() []Column {
	out := make([]Column, 0, len(l.Dimensions)+1+len(l.Metrics))
	for _, d := range l.Dimensions {
		out = append(out, Column{Name: d.Name, Role: RoleDimension})
	}
	if l.Kind == LegLookup {
		return out
	}
	out = append(out, Column{Name: "period", Role: RolePeriod})
	for _, m := range l.Metrics {
		out = append(out, Column{Name: m.Name, Role: RoleMetric})
	}
	return out
}

// Combine is the last step of a federated plan: the base leg's rows (the
// partials, grouped by the local dimensions, the period and the key of
// each crossing) are joined to each lookup leg's rows by key with LEFT
// JOIN semantics (an unmatched or null key gives nulls), filtered on the
// remote dimensions with SQL's null semantics, re-aggregated by the
// answer's dimensions and period, then finished (averages, ratios and
// their zero-denominator rules), ordered, ranked by Top and bounded like
// any answer. A key held by two rows of a lookup leg makes the answer not
// well formed (federated_answer_not_well_formed).
type Combine struct {
	// Links joins lookup leg Links[i].Leg (i+1: the lookup legs in order);
	// each links from a column of an earlier leg.
	Links []Link
	// Dimensions holds, per answer dimension in question order, the leg
	// column it reads.
	Dimensions []LegColumn
	// Filters are the caller filters on remote dimensions, applied after
	// the joins: eq and in keep rows whose value is listed (a null never
	// is), not_in keeps the others and the nulls.
	Filters []CombineFilter
	// Metrics holds, per answer metric in question order, how it is
	// re-aggregated from the base leg's partial columns.
	Metrics []CombineMetric
}

// LegColumn is one column of one leg's rows: Leg indexes Plan.Legs,
// Column the leg's OutputColumns.
type LegColumn struct {
	Leg    int
	Column int
}

// Link is the LEFT JOIN of lookup leg Leg's rows, by their key (column 0),
// from column From of an earlier leg: the crossing relationship
// Relationship.
type Link struct {
	Relationship string
	Leg          int
	From         LegColumn
}

// CombineFilter is a caller filter on a remote dimension, as the combine
// applies it to Column.
type CombineFilter struct {
	Dimension string
	Column    LegColumn
	Op        Op
	Values    []string
}

// CombineMetric is one answer metric: its measure (the terms and the ratio
// rule) and, per term of Measure.Terms(), the base-leg columns of its
// partials: one for sum, count, count_if, min and max (re-aggregated by
// sum, sum, sum, min and max), two for avg (a sum then a count, divided
// once both are summed). count_distinct does not federate.
type CombineMetric struct {
	Name     string
	Measure  Measure
	Partials [][]int
}

// Leg is the part of a plan one data system executes: a scan of the base
// model with LEFT JOINs to the models its dimensions are reached through,
// the question's range and filters, grouping by the dimensions and the time
// bucket, and one aggregate group per metric. A lookup leg (LegLookup)
// reads the same way but neither groups nor aggregates: it has no time
// column and no metric.
type Leg struct {
	Source string // configured source alias
	// Kind is LegAggregate (the zero value) or LegLookup.
	Kind  LegKind
	Base  Table
	Joins []Join
	// TimeColumn is a column of Base.
	TimeColumn string
	Dimensions []DimensionRef
	Filters    []FilterRef
	Metrics    []MetricRef
}

// Table is a model's table as a leg reads it. Alias is unique in the leg
// ("t0" for the base, "t1"... for joins) and is what SQL qualifies columns
// with.
type Table struct {
	Model   string
	Path    []string // table path segments: t, schema.t or project.dataset.t
	Alias   string
	Columns []ModelColumn // the declared columns
}

// Join is one LEFT JOIN: To is reached from the table aliased FromAlias by
// FromColumn = ToColumn. Joins are ordered so every FromAlias is defined
// before it is used.
type Join struct {
	Relationship string
	To           Table
	FromAlias    string
	FromColumn   string
	ToColumn     string
}

// ColumnRef is a column of one table of the leg.
type ColumnRef struct {
	Alias  string
	Column string
}

// DimensionRef is a grouped dimension: its answer label and the column it
// reads.
type DimensionRef struct {
	Name   string
	Column ColumnRef
}

// FilterRef is a caller filter resolved to a column. Values were checked
// against the allowlist; they are always bound as parameters.
type FilterRef struct {
	Dimension string
	Column    ColumnRef
	Op        Op
	Values    []string
}

// MetricRef is one metric of the leg: its label, its measure over columns
// of the base table, and its own required filters, which apply to that
// metric's aggregates only (docs/contract.md §4.1).
type MetricRef struct {
	Name            string
	Measure         Measure
	RequiredFilters []RequiredFilter // columns of the base table
}

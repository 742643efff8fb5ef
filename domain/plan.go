package domain

// Plan is a resolved question ready for execution, produced by the
// compiler (package semantic) and consumed by every data system; it lives
// here because executors may import only the domain. It names every table,
// column and value the work needs, so no executor ever consults the
// question or the bundle again. A single-source plan has one Leg; a
// federated plan (later) has a lookup leg per remote source and a Combine
// step, without changing these types.
type Plan struct {
	// Columns of the answer: dimensions in question order, period, then one
	// per metric.
	Columns []Column
	Grain   Grain
	Range   Range
	// Legs hold the work per data system; Legs[0] is the fact leg.
	Legs []Leg
	// Top, when set, ranks by the single metric or by period.
	Top *Top
	// RowCap is the most rows an answer may hold; executors fetch RowCap+1
	// to tell a full answer from a truncated one, which is refused.
	RowCap int
	// Provenance without ExecutedAs, which executors add.
	Provenance Provenance
}

// Leg is the part of a plan one data system executes: a scan of the base
// model with LEFT JOINs to the models its dimensions are reached through,
// the question's range and filters, grouping by the dimensions and the time
// bucket, and one aggregate group per metric.
type Leg struct {
	Source string // configured source alias
	Base   Table
	Joins  []Join
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
// metric's aggregates only (product.md §4.1).
type MetricRef struct {
	Name            string
	Measure         Measure
	RequiredFilters []RequiredFilter // columns of the base table
}

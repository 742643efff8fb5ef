package kernel

import (
	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/groups"
	"sutura.dev/exec-arrow/internal/join"
)

// Query is what the kernels read of a bound query: the slots of the
// base table, the range and its buckets, the joins, the filters, the
// metrics and the group keys.
type Query struct {
	Rows     int // base rows when cached; a bound of them when streamed
	Parallel int
	Aliases  int // the tables of the leg: the base and each joined table

	Base     []*column.Column // per base slot
	TimeSlot int
	DirectOK bool // the shape allows the direct kernel (direct.go)

	Start    int32
	Span     int32
	BucketOf []int32 // day-start → bucket
	Buckets  []domain.Date

	Joins       []*join.Step
	BaseFilters []*Predicate // caller filters on the base table
	JoinFilters []*Predicate // caller filters on joined tables
	Required    []*Predicate // distinct required filters, all on the base table
	Metrics     []*MetricPlan
	Needs       []uint64 // per metric: the bits of the required filters it needs

	Dims  []DimRef
	Radix []uint64 // per dimension: the starting radix of its codes

	// Members, when set, makes the query a union: the questions of its
	// members scanned together over one base table (union.go).
	Members []Member

	// ShareCodes splits its distinct counts' codes between the workers,
	// each reading every batch (share.go); set only when CanShareCodes,
	// and only over cached columns (NewCachedProducer).
	ShareCodes bool
}

// MaxGroupKeys is the most columns a question groups by (groups.MaxKeys).
const MaxGroupKeys = groups.MaxKeys

// DimRef is a grouped dimension: a column with fixed codes (cached or
// joined), or a base slot each worker numbers with a codebook (streamed).
type DimRef struct {
	Alias int
	Slot  int
	Col   *column.Column
	Codes *column.CodeSet // nil: numbered by each worker
}

// MetricPlan is one metric: the required filters it needs (indexes into
// Query.Required), its terms, and its ratio rule.
type MetricPlan struct {
	Name     string
	Required []int
	Terms    []*TermPlan
	Ratio    *domain.Ratio
	// Combine, set when a federated combine re-aggregates partials,
	// maps each term of the measure to the term plans of its partials.
	Combine []CombineTerm
}

// CombineTerm is one term of a measure re-aggregated from partials: the
// term plan a, or for avg the sum a divided by the count b.
type CombineTerm struct {
	A, B int
	Avg  bool
}

package kernel

import (
	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/groups"
	"sutura.dev/exec-arrow/internal/join"
	"sutura.dev/exec-arrow/internal/match"
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
	BaseFilters []*match.Predicate // caller filters on the base table
	JoinFilters []*match.Predicate // caller filters on joined tables
	Required    []*match.Predicate // distinct required filters, all on the base table
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

// MayCount reports whether a row group whose base columns have the
// statistics stats gives (per slot; false when it has none) may hold a
// row that counts: false when a caller filter on the base table, or for
// every metric a required filter it needs, passes no row of it,
// whatever the order of its rows.
func (q *Query) MayCount(stats func(slot int) (column.ChunkStats, bool)) bool {
	if q.union() {
		for _, mb := range q.Members {
			if mb.Q.MayCount(func(s int) (column.ChunkStats, bool) { return stats(mb.Slots[s]) }) {
				return true
			}
		}
		return false
	}
	fails := func(p *match.Predicate) bool {
		st, ok := stats(p.Slot)
		return ok && !p.MayPass(st)
	}
	for _, f := range q.BaseFilters {
		if fails(f) {
			return false
		}
	}
	var failed uint64
	for i, f := range q.Required {
		if fails(f) {
			failed |= 1 << i
		}
	}
	if failed == 0 {
		return true
	}
	for _, need := range q.Needs {
		if need&failed == 0 {
			return true
		}
	}
	return len(q.Needs) == 0
}

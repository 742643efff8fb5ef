package wire

import "sutura.dev/domain"

// The Go wire types below exist to generate the tools' JSON Schemas; the
// struct tag `jsonschema` is the description a model reads. Arguments are
// never decoded into them: a question is parsed by domain.ParseQuestion,
// which refuses unknown fields by name and never echoes a value. Named
// string and integer types carry their constraints through scalarSchemas
// (tools.go).

// DescribeCatalogArgs is the input of describe_catalog (docs/contract.md
// §14): the empty object lists the catalogue; each field is optional.
type DescribeCatalogArgs struct {
	Search  SearchText   `json:"search,omitempty" jsonschema:"Words to find metrics by (1 to 200 characters): matched against names, descriptions, dimension names and glossary terms. The answer lists summaries of the matching metrics, best first."`
	Metrics []MetricName `json:"metrics,omitempty" jsonschema:"1 to 32 metric names to describe in full, with their dimensions and allowed values. Not with search."`
	Cursor  Cursor       `json:"cursor,omitempty" jsonschema:"The next_cursor of the previous response, unchanged, to continue the same listing (send the same search or metrics with it)."`
}

// AskMetricArgs is the input of ask_metric, exactly the question of
// docs/contract.md §3.1. It has no field for SQL, a table, a filter expression or
// row ids.
type AskMetricArgs struct {
	Metrics    []MetricName    `json:"metrics" jsonschema:"Names of 1 to 8 distinct metrics listed by describe_catalog. Several metrics must share one model and time column."`
	Grain      Grain           `json:"grain" jsonschema:"The time bucket of the answer. Every metric asked must declare it."`
	Range      TimeRange       `json:"range" jsonschema:"The time range: either explicit dates or the last N whole buckets before the current one. At most 3653 days."`
	Dimensions []DimensionName `json:"dimensions,omitempty" jsonschema:"Up to 4 distinct dimensions to group by, each declared by every metric asked. Omit for one total per period."`
	Filters    []Filter        `json:"filters,omitempty" jsonschema:"Up to 16 filters, AND-ed, each on a different filterable dimension, using only the values describe_catalog lists for it."`
	Top        *Top            `json:"top,omitempty" jsonschema:"Keep only the first n groups, ranked by the metric or by the period. Single metric only."`
	DryRun     bool            `json:"dry_run,omitempty" jsonschema:"true: check, plan and estimate the bytes the question would scan, and say whether it would be refused, without running it or spending the caller's budget. Default false."`
}

// RunSQLArgs is the input of run_sql: one statement and nothing else.
type RunSQLArgs struct {
	Statement Statement `json:"statement" jsonschema:"One read-only SQL statement in the database's own dialect. It runs in a read-only transaction; a result of more than 10000 rows is refused, never truncated: add a LIMIT or aggregate."`
}

// TimeRange is the range of a question: a FixedRange or a RelativeRange.
// Its schema is the oneOf of theirs.
type TimeRange struct{}

// FixedRange is an explicit half-open range of dates.
type FixedRange struct {
	Start Date `json:"start" jsonschema:"First day included, YYYY-MM-DD."`
	End   Date `json:"end" jsonschema:"First day excluded, YYYY-MM-DD; after start."`
}

// RelativeRange is the last Count whole buckets of Unit, resolved against
// the server's clock.
type RelativeRange struct {
	Last LastBuckets `json:"last" jsonschema:"The last count whole buckets of unit before the current one."`
}

// LastBuckets is the body of a RelativeRange.
type LastBuckets struct {
	Count          Count `json:"count" jsonschema:"How many buckets, at least 1."`
	Unit           Grain `json:"unit" jsonschema:"The bucket width."`
	IncludeCurrent bool  `json:"include_current,omitempty" jsonschema:"Also include the current, incomplete bucket. Default false."`
}

// Filter restricts one dimension to listed values: an EqFilter or a
// ListFilter. Its schema is the oneOf of theirs.
type Filter struct{}

// EqFilter keeps one value of a dimension.
type EqFilter struct {
	Op        EqOp           `json:"op" jsonschema:"eq: keep exactly one value."`
	Dimension DimensionName  `json:"dimension" jsonschema:"A filterable dimension of every metric asked."`
	Value     DimensionValue `json:"value" jsonschema:"One of the values describe_catalog lists for the dimension, exactly as written there."`
}

// ListFilter keeps (in) or drops (not_in) several values of a dimension.
type ListFilter struct {
	Op        ListOp           `json:"op" jsonschema:"in: keep these values; not_in: drop them."`
	Dimension DimensionName    `json:"dimension" jsonschema:"A filterable dimension of every metric asked."`
	Values    []DimensionValue `json:"values" jsonschema:"1 to 64 of the values describe_catalog lists for the dimension, exactly as written there."`
}

// Top keeps the first N groups of a single-metric question.
type Top struct {
	N         TopN      `json:"n" jsonschema:"How many groups to keep, 1 to 10000."`
	By        TopBy     `json:"by" jsonschema:"metric: rank groups by the metric's value; period: rank by the period."`
	Direction Direction `json:"direction,omitempty" jsonschema:"desc (largest first, the default) or asc."`
}

// Scalar wire types; scalarSchemas gives each its schema.
type (
	// MetricName is the name of a metric.
	MetricName string
	// DimensionName is the name of a dimension.
	DimensionName string
	// DimensionValue is one allowlisted value of a dimension.
	DimensionValue string
	// Grain is day, week, month, quarter or year.
	Grain string
	// Date is a calendar date, YYYY-MM-DD.
	Date string
	// Count is the number of buckets of a relative range.
	Count int
	// TopN is the number of groups top keeps.
	TopN int
	// EqOp is the operator "eq".
	EqOp string
	// ListOp is "in" or "not_in".
	ListOp string
	// TopBy is "metric" or "period".
	TopBy string
	// Direction is "desc" or "asc".
	Direction string
	// Statement is the text of one SQL statement.
	Statement string
	// SearchText is the words of a catalogue search.
	SearchText string
	// Cursor continues a listing.
	Cursor string
)

// answerBody is the wire shape of an answer (domain.Outcome.MarshalJSON).
type answerBody struct {
	Outcome    answerTag         `json:"outcome" jsonschema:"answer: the question was answered."`
	Columns    []domain.Column   `json:"columns" jsonschema:"The requested dimensions in question order, then period (the bucket start date), then one column per metric."`
	Rows       [][]domain.Cell   `json:"rows" jsonschema:"The rows; every cell is text in canonical form, or null."`
	Provenance domain.Provenance `json:"provenance" jsonschema:"The exact definitions that produced the answer and the data systems read. Quote definition_version and definition_digest with the numbers."`
}

// sqlAnswerBody is the wire shape of a run_sql result (SQLContent): the
// statement's columns and rows, with no provenance.
type sqlAnswerBody struct {
	Outcome answerTag       `json:"outcome" jsonschema:"answer: the statement ran."`
	Columns []sqlColumn     `json:"columns" jsonschema:"The columns of the statement's result, in its order."`
	Rows    [][]domain.Cell `json:"rows" jsonschema:"The rows; every cell is text in canonical form, or null. These numbers are not certified and carry no provenance."`
}

// sqlColumn is one column of a run_sql result.
type sqlColumn struct {
	Name string `json:"name" jsonschema:"The name the statement gave the column."`
}

// refusalBody is the wire shape of a refusal.
type refusalBody struct {
	Outcome refusalTag `json:"outcome" jsonschema:"refusal: the question may not be asked, for the reason given. This is an answer, not an error."`
	Reason  reason     `json:"reason" jsonschema:"Why the question was refused."`
}

type reason struct {
	Code              domain.Code `json:"code" jsonschema:"A stable refusal code."`
	Detail            string      `json:"detail" jsonschema:"A sentence for a person."`
	RetryAfterSeconds int64       `json:"retry_after_seconds,omitempty" jsonschema:"budget_exhausted: seconds until enough of the caller's budget window has passed to ask again."`
}

// estimateBody is the wire shape of a dry run's outcome
// (docs/contract.md §15).
type estimateBody struct {
	Outcome     estimateTag  `json:"outcome" jsonschema:"estimate: the question was checked and estimated, not run (dry_run)."`
	Estimate    estimateWire `json:"estimate" jsonschema:"What the question would scan."`
	WouldRefuse wouldRefuse  `json:"would_refuse" jsonschema:"The refusal code the question would meet when run (scan_ceiling_exceeded, budget_exhausted), or null."`
	Reason      *reason      `json:"reason,omitempty" jsonschema:"The refusal it would meet, when would_refuse is not null."`
}

type estimateWire struct {
	Bytes  int64         `json:"bytes" jsonschema:"The estimated bytes scanned, summed over the legs whose estimate is known."`
	PerLeg []legEstimate `json:"per_leg" jsonschema:"One estimate per data system read, in plan order."`
}

type legEstimate struct {
	Source string   `json:"source" jsonschema:"The configured source alias."`
	Bytes  legBytes `json:"bytes" jsonschema:"The bytes this data system expects to scan, or \"unknown\" when it cannot estimate (the scan ceiling then does not apply to it)."`
}

type (
	answerTag   string
	refusalTag  string
	estimateTag string
	// legBytes is an integer, or the string "unknown".
	legBytes string
	// wouldRefuse is a refusal code or null.
	wouldRefuse string
)

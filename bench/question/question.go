// Package question holds the wire shape of a sutura question (docs/contract.md
// §3.1) as plain Go data, so the conformance-corpus generator and the
// benchmark harness can state questions without importing sutura itself.
package question

// Question is one certified question, exactly as a caller sends it over
// MCP (`ask_metric` arguments) or HTTP (`POST /v1/query` body).
type Question struct {
	// Metrics names the metrics asked, in answer-column order.
	Metrics []string `json:"metrics"`
	// Grain is day, week, month, quarter or year.
	Grain string `json:"grain"`
	// Range is the half-open time range on each metric's time column.
	Range Range `json:"range"`
	// Dimensions are the group-by keys, in answer-column order.
	Dimensions []string `json:"dimensions,omitempty"`
	// Filters are AND-ed caller filters on allowlisted dimension values.
	Filters []Filter `json:"filters,omitempty"`
	// Top keeps the first N rows by a key, when set.
	Top *Top `json:"top,omitempty"`
}

// Range is a half-open date range: Start inclusive, End exclusive,
// both YYYY-MM-DD.
type Range struct {
	// Start is the first day included.
	Start string `json:"start"`
	// End is the first day excluded.
	End string `json:"end"`
}

// Filter is one caller filter: op eq carries Value; in and not_in carry
// Values.
type Filter struct {
	// Op is eq, in or not_in.
	Op string `json:"op"`
	// Dimension is the filtered dimension's name.
	Dimension string `json:"dimension"`
	// Value is the single value of an eq filter.
	Value string `json:"value,omitempty"`
	// Values are the values of an in or not_in filter.
	Values []string `json:"values,omitempty"`
}

// Top keeps the first N rows ordered by the metric or the period.
type Top struct {
	// N is how many rows to keep.
	N int `json:"n"`
	// By is "metric" or "period".
	By string `json:"by"`
	// Direction is "desc" or "asc".
	Direction string `json:"direction"`
}

// Eq returns an eq filter on dimension d.
func Eq(d, v string) Filter { return Filter{Op: "eq", Dimension: d, Value: v} }

// In returns an in filter on dimension d.
func In(d string, vs ...string) Filter { return Filter{Op: "in", Dimension: d, Values: vs} }

// NotIn returns a not_in filter on dimension d.
func NotIn(d string, vs ...string) Filter { return Filter{Op: "not_in", Dimension: d, Values: vs} }

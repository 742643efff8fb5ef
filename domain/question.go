package domain

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// Question bounds (docs/contract.md §3.1). Counts that a caller may exceed are
// refused by the compiler with a typed reason; the parser only bounds what
// no valid question can exceed, so input cannot exhaust memory.
const (
	MaxMetrics       = 8
	MaxDimensions    = 4
	MaxFilters       = 16
	MaxFilterValues  = 64
	MaxRowCap        = 10000
	MaxResultBytes   = 8 << 20
	maxListLen       = 256 // parser bound for any list; larger is malformed
	maxRelativeCount = 100000
)

// Question is a certified question (docs/contract.md §3.1). It holds only names,
// a grain, a bounded range and allowlist-checked values: there is no field
// for SQL, a table or an expression.
type Question struct {
	Metrics    []string `json:"metrics"`
	Grain      Grain    `json:"grain"`
	Range      TimeSpan `json:"range"`
	Dimensions []string `json:"dimensions,omitempty"`
	Filters    []Filter `json:"filters,omitempty"`
	Top        *Top     `json:"top,omitempty"`
	// DryRun asks for the estimate of the question instead of its answer
	// (docs/contract.md §15): checked and planned, never executed or
	// debited.
	DryRun bool `json:"dry_run,omitempty"`
}

// TimeSpan is the range of a question: either an explicit half-open Range or
// the last Count buckets of Unit, resolved against the server's clock.
type TimeSpan struct {
	Fixed    *Range    `json:"fixed,omitempty"`
	Relative *Relative `json:"last,omitempty"`
}

// Relative is a range of the last Count whole buckets of Unit before the
// current one (and the current one too when IncludeCurrent).
type Relative struct {
	Count          int   `json:"count"`
	Unit           Grain `json:"unit"`
	IncludeCurrent bool  `json:"include_current"`
}

// Resolve returns the concrete range of s with today being the server's
// current date.
func (s TimeSpan) Resolve(today Date) Range {
	if s.Fixed != nil {
		return *s.Fixed
	}
	r := s.Relative
	end := r.Unit.Truncate(today)
	if r.IncludeCurrent {
		end = r.Unit.Add(end, 1)
	}
	n := r.Count
	if r.IncludeCurrent {
		n--
	}
	start := r.Unit.Add(r.Unit.Truncate(today), -n)
	if start > end {
		start = end
	}
	return Range{Start: start, End: end}
}

// Op is a filter operator.
type Op string

// The filter operators a caller may use.
const (
	OpEq    Op = "eq"
	OpIn    Op = "in"
	OpNotIn Op = "not_in"
)

// Filter restricts a dimension to allowlisted values. For OpEq Values holds
// exactly one value.
type Filter struct {
	Op        Op       `json:"op"`
	Dimension string   `json:"dimension"`
	Values    []string `json:"values"`
}

// TopBy is what a top-n question ranks by.
type TopBy string

// Ranking keys of top.
const (
	ByMetric TopBy = "metric"
	ByPeriod TopBy = "period"
)

// Top keeps the first N groups ranked by the metric or the period.
type Top struct {
	N         int    `json:"n"`
	By        TopBy  `json:"by"`
	Direction string `json:"direction"`
}

// Descending reports whether top ranks from the largest key down.
func (t Top) Descending() bool { return t.Direction != "asc" }

// ParseQuestion decodes a question from JSON (the `ask_metric` arguments and
// the `POST /v1/query` body). Unknown fields are refused by name, never
// dropped; every problem is a *FieldError naming the field, and no error
// ever contains a value the caller sent.
func ParseQuestion(data []byte) (Question, error) {
	v, err := DecodeJSON(data)
	if err != nil {
		return Question{}, err
	}
	return DecodeQuestion(v)
}

// DecodeQuestion decodes a question from its wire form (see DecodeJSON); a
// catalogue adapter passes a YAML document converted to the same form.
func DecodeQuestion(v any) (Question, error) {
	d := decoder{}
	q := d.question(v)
	if d.err != nil {
		return Question{}, d.err
	}
	return q, nil
}

// decoder keeps the first error; after it, every method is a no-op.
type decoder struct{ err error }

func (d *decoder) fail(field, problem string, err error) {
	if d.err == nil {
		d.err = &FieldError{Field: field, Problem: problem, Err: err}
	}
}

// object checks v is an object with only the allowed keys and returns its
// members by key; required keys that are missing are reported.
func (d *decoder) object(path string, v any, required []string, optional ...string) map[string]any {
	if d.err != nil {
		return nil
	}
	obj, ok := v.(Object)
	if !ok {
		d.fail(path, "must be an object", nil)
		return nil
	}
	out := make(map[string]any, len(obj))
	for _, m := range obj {
		if !slices.Contains(required, m.Key) && !slices.Contains(optional, m.Key) {
			d.fail(joinField(path, safeKey(m.Key)), "is not a field of "+describe(path), nil)
			return nil
		}
		if _, dup := out[m.Key]; dup {
			d.fail(joinField(path, m.Key), "appears twice", nil)
			return nil
		}
		out[m.Key] = m.Value
	}
	for _, k := range required {
		if _, ok := out[k]; !ok {
			d.fail(joinField(path, k), "is required", nil)
			return nil
		}
	}
	return out
}

func describe(path string) string {
	if path == "" {
		return "a question"
	}
	return path
}

func (d *decoder) str(path string, v any) string {
	if d.err != nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		d.fail(path, "must be a string", nil)
	}
	return s
}

func (d *decoder) ident(path string, v any) string {
	s := d.str(path, v)
	if d.err == nil {
		if err := CheckIdent(s); err != nil {
			d.fail(path, err.Error(), err)
		}
	}
	return s
}

func (d *decoder) value(path string, v any) string {
	s := d.str(path, v)
	if d.err == nil {
		if err := CheckValue(s); err != nil {
			d.fail(path, "is not a valid dimension value: it "+err.Error(), err)
		}
	}
	return s
}

func (d *decoder) list(path string, v any, min, max int) []any {
	if d.err != nil {
		return nil
	}
	l, ok := v.([]any)
	if !ok {
		d.fail(path, "must be a list", nil)
		return nil
	}
	if len(l) < min {
		d.fail(path, fmt.Sprintf("must hold at least %d item(s)", min), nil)
		return nil
	}
	if len(l) > max {
		d.fail(path, fmt.Sprintf("must hold at most %d items", max), nil)
		return nil
	}
	return l
}

func (d *decoder) integer(path string, v any, min, max int) int {
	if d.err != nil {
		return 0
	}
	var n int64
	var err error
	switch x := v.(type) {
	case json.Number:
		n, err = strconv.ParseInt(string(x), 10, 64)
	case int:
		n = int64(x)
	case int64:
		n = x
	case float64:
		n = int64(x)
		if float64(n) != x {
			err = strconv.ErrSyntax
		}
	default:
		d.fail(path, "must be a whole number", nil)
		return 0
	}
	if err != nil {
		d.fail(path, "must be a whole number", nil)
		return 0
	}
	if n < int64(min) || n > int64(max) {
		d.fail(path, fmt.Sprintf("must be between %d and %d", min, max), nil)
		return 0
	}
	return int(n)
}

func (d *decoder) enum(path string, v any, allowed ...string) string {
	s := d.str(path, v)
	if d.err == nil && !slices.Contains(allowed, s) {
		d.fail(path, "must be one of: "+join(allowed), nil)
	}
	return s
}

func join(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

func (d *decoder) grain(path string, v any) Grain {
	s := d.enum(path, v, "day", "week", "month", "quarter", "year")
	g, _ := ParseGrain(s)
	return g
}

func (d *decoder) date(path string, v any) Date {
	s := d.str(path, v)
	if d.err != nil {
		return 0
	}
	dt, err := ParseDate(s)
	if err != nil {
		d.fail(path, err.Error(), err)
	}
	return dt
}

func (d *decoder) question(v any) Question {
	var q Question
	m := d.object("", v, []string{"metrics", "grain", "range"}, "dimensions", "filters", "top", "dry_run")
	for i, x := range d.list("metrics", m["metrics"], 1, maxListLen) {
		q.Metrics = append(q.Metrics, d.ident(fmt.Sprintf("metrics[%d]", i), x))
	}
	q.Grain = d.grain("grain", m["grain"])
	q.Range = d.span(m["range"])
	if x, ok := m["dimensions"]; ok {
		for i, x := range d.list("dimensions", x, 0, maxListLen) {
			q.Dimensions = append(q.Dimensions, d.ident(fmt.Sprintf("dimensions[%d]", i), x))
		}
	}
	if x, ok := m["filters"]; ok {
		for i, x := range d.list("filters", x, 0, maxListLen) {
			q.Filters = append(q.Filters, d.filter(fmt.Sprintf("filters[%d]", i), x))
		}
	}
	if x, ok := m["top"]; ok {
		q.Top = d.top(x)
	}
	if x, ok := m["dry_run"]; ok && d.err == nil {
		b, isBool := x.(bool)
		if !isBool {
			d.fail("dry_run", "must be true or false", nil)
		}
		q.DryRun = b
	}
	return q
}

func (d *decoder) span(v any) TimeSpan {
	obj, _ := v.(Object)
	if d.err != nil {
		return TimeSpan{}
	}
	for _, mem := range obj {
		if mem.Key == "last" {
			m := d.object("range", v, []string{"last"})
			return TimeSpan{Relative: d.relative(m["last"])}
		}
	}
	m := d.object("range", v, []string{"start", "end"})
	r := Range{Start: d.date("range.start", m["start"]), End: d.date("range.end", m["end"])}
	if d.err == nil && r.End <= r.Start {
		d.fail("range.end", "must be after range.start", nil)
	}
	return TimeSpan{Fixed: &r}
}

func (d *decoder) relative(v any) *Relative {
	m := d.object("range.last", v, []string{"count", "unit"}, "include_current")
	r := &Relative{
		Count: d.integer("range.last.count", m["count"], 1, maxRelativeCount),
		Unit:  d.grain("range.last.unit", m["unit"]),
	}
	if x, ok := m["include_current"]; ok && d.err == nil {
		b, isBool := x.(bool)
		if !isBool {
			d.fail("range.last.include_current", "must be true or false", nil)
		}
		r.IncludeCurrent = b
	}
	return r
}

func (d *decoder) filter(path string, v any) Filter {
	var f Filter
	obj, _ := v.(Object)
	op := ""
	for _, m := range obj {
		if m.Key == "op" {
			op, _ = m.Value.(string)
		}
	}
	if d.err != nil {
		return f
	}
	switch Op(op) {
	case OpEq:
		m := d.object(path, v, []string{"op", "dimension", "value"})
		f.Op = OpEq
		f.Dimension = d.ident(path+".dimension", m["dimension"])
		f.Values = []string{d.value(path+".value", m["value"])}
	case OpIn, OpNotIn:
		m := d.object(path, v, []string{"op", "dimension", "values"})
		f.Op = Op(op)
		f.Dimension = d.ident(path+".dimension", m["dimension"])
		for i, x := range d.list(path+".values", m["values"], 1, MaxFilterValues) {
			f.Values = append(f.Values, d.value(fmt.Sprintf("%s.values[%d]", path, i), x))
		}
	default:
		if _, isObj := v.(Object); !isObj {
			d.fail(path, "must be an object", nil)
			return f
		}
		if !hasKey(obj, "op") {
			d.fail(path+".op", "is required", nil)
			return f
		}
		d.enum(path+".op", func() any {
			for _, m := range obj {
				if m.Key == "op" {
					return m.Value
				}
			}
			return nil
		}(), "eq", "in", "not_in")
	}
	return f
}

func hasKey(obj Object, k string) bool {
	for _, m := range obj {
		if m.Key == k {
			return true
		}
	}
	return false
}

func (d *decoder) top(v any) *Top {
	m := d.object("top", v, []string{"n", "by"}, "direction")
	t := &Top{
		N:         d.integer("top.n", m["n"], 1, 1<<31-1),
		By:        TopBy(d.enum("top.by", m["by"], "metric", "period")),
		Direction: "desc",
	}
	if x, ok := m["direction"]; ok {
		t.Direction = d.enum("top.direction", x, "desc", "asc")
	}
	return t
}

// MarshalJSON writes the span in its wire shape: {"start","end"} or
// {"last": {...}}.
func (s TimeSpan) MarshalJSON() ([]byte, error) {
	if s.Relative != nil {
		return json.Marshal(struct {
			Last *Relative `json:"last"`
		}{s.Relative})
	}
	if s.Fixed == nil {
		return []byte("null"), nil
	}
	return json.Marshal(s.Fixed)
}

// MarshalJSON writes the filter in its wire shape: eq carries "value", the
// list operators carry "values".
func (f Filter) MarshalJSON() ([]byte, error) {
	if f.Op == OpEq && len(f.Values) == 1 {
		return json.Marshal(struct {
			Op        Op     `json:"op"`
			Dimension string `json:"dimension"`
			Value     string `json:"value"`
		}{f.Op, f.Dimension, f.Values[0]})
	}
	type plain Filter
	return json.Marshal(plain(f))
}

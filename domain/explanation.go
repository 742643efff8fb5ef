package domain

import (
	"context"
	"encoding/json"
)

// ScopeSQLRead is the scope that lets a caller read the statements an
// answer ran (Explanation.Statements), which name physical tables
// (docs/contract.md §16). A caller that is not scoped (the local operator,
// a single-user deployment) always reads them.
const ScopeSQLRead = "sutura:sql.read"

// Cache states of a leg the embedded engine answered (LegAccount.Cache).
const (
	CacheHit     = "hit"
	CachePartial = "partial"
	CacheMiss    = "miss"
)

// Explanation is the compact account of how an answer was computed
// (docs/contract.md §16): each metric's definition in words, the caller's
// filters as applied, what ran where as whom, how fresh the data is, and
// notes when the range asked reaches past the data. It never names a
// value the caller sent other than the allowlisted filter values of
// Filters.
type Explanation struct {
	Definitions []DefinitionWords `json:"definitions"`
	Filters     []AppliedFilter   `json:"filters"`
	Legs        []LegAccount      `json:"legs"`
	DataThrough []DataThrough     `json:"data_through"`
	Notes       []string          `json:"notes"`
	// Statements are the statements the legs sent, only for a caller
	// holding ScopeSQLRead; nil (absent) otherwise.
	Statements []Statement `json:"statements,omitzero"`
	// TraceID is the W3C trace id of the call (32 hex digits), the id
	// the audit record and the statements' traceparent comments carry.
	TraceID string `json:"trace_id,omitempty"`
}

// DefinitionWords is one metric's definition as sentences, with the
// digest that pins it.
type DefinitionWords struct {
	Metric string `json:"metric"`
	Digest string `json:"digest"`
	// Measure is the computation, e.g. "the sum of amount".
	Measure string `json:"measure"`
	// TimeColumn is the column periods and ranges are read from.
	TimeColumn string `json:"time_column"`
	// RequiredFilters are the metric's own filters, one sentence each.
	RequiredFilters []string `json:"required_filters"`
}

// AppliedFilter is one filter of the question as it was applied: the
// dimension, the operator and the allowlisted values.
type AppliedFilter struct {
	Dimension string   `json:"dimension"`
	Op        string   `json:"op"`
	Values    []string `json:"values"`
}

// LegAccount is what one leg read and how: its source, the posture and
// identity it ran under, what the data system measured, and for the
// embedded engine whether it answered from cached columns.
type LegAccount struct {
	Source   string  `json:"source"`
	Posture  Posture `json:"posture"`
	Identity string  `json:"identity"`
	// RowsScanned and BytesScanned are the data system's own figures;
	// Measured is false when it could not measure (they are then zero).
	RowsScanned  int64   `json:"rows_scanned"`
	BytesScanned int64   `json:"bytes_scanned"`
	Measured     bool    `json:"measured"`
	ElapsedMS    float64 `json:"elapsed_ms"`
	// Cache is CacheHit, CachePartial or CacheMiss for the embedded
	// engine, empty (absent) for a database.
	Cache string `json:"cache,omitempty"`
}

// DataThrough is the newest day the time column of a model read holds in
// its source, as last read (at start or at the catalogue's refresh).
type DataThrough struct {
	Model  string `json:"model"`
	Source string `json:"source"`
	// Through is the day, YYYY-MM-DD.
	Through string `json:"through"`
}

// Statement is one statement a leg sent to its data system: its dialect,
// its text (with the traceparent comment it carried) and its bound
// parameters in order, rendered as text.
type Statement struct {
	Source  string   `json:"source"`
	Dialect string   `json:"dialect"`
	Text    string   `json:"text"`
	Params  []string `json:"params"`
}

// Size returns the bytes of the explanation's wire form, the part of the
// 8 MiB bound (MaxResultBytes) it takes; 0 for nil.
func (e *Explanation) Size() int {
	if e == nil {
		return 0
	}
	b, err := json.Marshal(e)
	if err != nil {
		return MaxResultBytes + 1
	}
	return len(b)
}

// SizeBound returns a cheap upper bound of Size, without encoding: every
// string as if each of its bytes were escaped (6 bytes, \u00XX) plus a
// fixed allowance per field and element. A caller checks it against the
// bound first and computes Size only when it does not fit.
func (e *Explanation) SizeBound() int {
	if e == nil {
		return 0
	}
	const field, number = 48, 24
	str := func(s string) int { return 6*len(s) + field }
	strs := func(ss []string) int {
		n := field
		for _, s := range ss {
			n += str(s)
		}
		return n
	}
	n := 8*field + str(e.TraceID)
	for _, d := range e.Definitions {
		n += str(d.Metric) + str(d.Digest) + str(d.Measure) + str(d.TimeColumn) + strs(d.RequiredFilters)
	}
	for _, f := range e.Filters {
		n += str(f.Dimension) + str(f.Op) + strs(f.Values)
	}
	for _, l := range e.Legs {
		n += str(l.Source) + str(string(l.Posture)) + str(l.Identity) + str(l.Cache) + 4*number + 2*field
	}
	for _, d := range e.DataThrough {
		n += str(d.Model) + str(d.Source) + str(d.Through)
	}
	n += strs(e.Notes)
	for _, st := range e.Statements {
		n += str(st.Source) + str(st.Dialect) + str(st.Text) + strs(st.Params)
	}
	return n
}

// wire returns a copy of e whose lists are arrays, never null, for the
// wire form of an answer; nil stays nil.
func (e *Explanation) wire() *Explanation {
	if e == nil {
		return nil
	}
	c := *e
	if c.Definitions == nil {
		c.Definitions = []DefinitionWords{}
	}
	for i, d := range c.Definitions {
		if d.RequiredFilters == nil {
			c.Definitions = append([]DefinitionWords(nil), c.Definitions...)
			c.Definitions[i].RequiredFilters = []string{}
		}
	}
	if c.Filters == nil {
		c.Filters = []AppliedFilter{}
	}
	if c.Legs == nil {
		c.Legs = []LegAccount{}
	}
	if c.DataThrough == nil {
		c.DataThrough = []DataThrough{}
	}
	if c.Notes == nil {
		c.Notes = []string{}
	}
	return &c
}

type traceParentKey struct{}

// WithTraceParent returns ctx carrying the W3C traceparent of the span a
// data system call runs in, for the data system to put in its statement's
// trailing comment (docs/contract.md §16).
func WithTraceParent(ctx context.Context, traceparent string) context.Context {
	if traceparent == "" {
		return ctx
	}
	return context.WithValue(ctx, traceParentKey{}, traceparent)
}

// TraceParent returns the traceparent ctx carries (WithTraceParent), or
// "". A data system checks its format before it writes it anywhere.
func TraceParent(ctx context.Context) string {
	s, _ := ctx.Value(traceParentKey{}).(string)
	return s
}

// ValidTraceParent reports whether s is a W3C traceparent of version 00
// exactly: "00-" 32 lowercase hex digits (not all zero) "-" 16 lowercase
// hex digits (not all zero) "-" 2 lowercase hex digits. Only such a value
// is ever written into a statement.
func ValidTraceParent(s string) bool {
	if len(s) != 55 || s[0] != '0' || s[1] != '0' || s[2] != '-' || s[35] != '-' || s[52] != '-' {
		return false
	}
	hex := func(part string) (nonZero, ok bool) {
		for i := 0; i < len(part); i++ {
			c := part[i]
			switch {
			case c >= '1' && c <= '9', c >= 'a' && c <= 'f':
				nonZero = true
			case c == '0':
			default:
				return false, false
			}
		}
		return nonZero, true
	}
	traceNZ, ok1 := hex(s[3:35])
	spanNZ, ok2 := hex(s[36:52])
	_, ok3 := hex(s[53:55])
	return ok1 && ok2 && ok3 && traceNZ && spanNZ
}

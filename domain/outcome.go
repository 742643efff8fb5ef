package domain

import (
	"encoding/json"
	"math"
	"strconv"
)

// Kind is the type of a cell.
type Kind uint8

// Cell kinds.
const (
	KindNull Kind = iota
	KindInt
	KindFloat
	KindText
	KindDate
	KindBool
	// KindDecimal is an exact decimal (Decimal, DecimalCell).
	KindDecimal
)

// Cell is one value of an answer. Construct cells with Null, Int, Float,
// Text, DateCell and Bool; the zero Cell is null.
type Cell struct {
	kind Kind
	i    int64
	f    float64
	s    string
}

// Null returns the null cell.
func Null() Cell { return Cell{} }

// Int returns an integer cell.
func Int(v int64) Cell { return Cell{kind: KindInt, i: v} }

// Float returns a real cell. A non-finite value is null: no data system
// agrees on how to render it, and an answer must render identically
// everywhere.
func Float(v float64) Cell {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Cell{}
	}
	return Cell{kind: KindFloat, f: v}
}

// Text returns a text cell.
func Text(v string) Cell { return Cell{kind: KindText, s: v} }

// DateCell returns a date cell.
func DateCell(d Date) Cell { return Cell{kind: KindDate, i: int64(d)} }

// Bool returns a boolean cell.
func Bool(v bool) Cell {
	c := Cell{kind: KindBool}
	if v {
		c.i = 1
	}
	return c
}

// Kind returns the cell's kind.
func (c Cell) Kind() Kind { return c.kind }

// IsNull reports whether the cell is null.
func (c Cell) IsNull() bool { return c.kind == KindNull }

// IntValue returns the value of an integer cell; 0 for a cell of another
// kind.
func (c Cell) IntValue() int64 {
	if c.kind != KindInt {
		return 0
	}
	return c.i
}

// FloatValue returns the value of a real, integer or decimal cell as a
// float64 (a decimal's nearest); 0 for a cell of another kind.
func (c Cell) FloatValue() float64 {
	switch c.kind {
	case KindFloat:
		return c.f
	case KindInt:
		return float64(c.i)
	case KindDecimal:
		return decimalFloat(c.s)
	}
	return 0
}

// DateValue returns the date of a date cell; 0 (1970-01-01) for a cell of
// another kind.
func (c Cell) DateValue() Date {
	if c.kind != KindDate {
		return 0
	}
	return Date(c.i)
}

// BoolValue reports whether the cell is the boolean true.
func (c Cell) BoolValue() bool { return c.kind == KindBool && c.i != 0 }

// Render returns the canonical text of the cell (docs/contract.md §4.2): null →
// "null"; integers as plain decimals; reals as the shortest decimal that
// round-trips, never in exponent form, a whole real without ".0", and
// negative zero as "0"; decimals as their exact value (DecimalCell); dates YYYY-MM-DD; booleans true/false; text
// verbatim. Every adapter renders through this function, so the same value
// renders identically on every data system.
func (c Cell) Render() string {
	switch c.kind {
	case KindInt:
		return strconv.FormatInt(c.i, 10)
	case KindFloat:
		if c.f == 0 {
			return "0"
		}
		return strconv.FormatFloat(c.f, 'f', -1, 64)
	case KindText, KindDecimal:
		return c.s
	case KindDate:
		return Date(c.i).String()
	case KindBool:
		if c.i != 0 {
			return "true"
		}
		return "false"
	}
	return "null"
}

// MarshalJSON writes the canonical text as a JSON string, or JSON null for
// a null cell.
func (c Cell) MarshalJSON() ([]byte, error) {
	if c.kind == KindNull {
		return []byte("null"), nil
	}
	return json.Marshal(c.Render())
}

// Column describes one column of an answer.
type Column struct {
	Name string `json:"name"`
	// Role is "dimension", "period" or "metric".
	Role string `json:"role"`
}

// Column roles.
const (
	RoleDimension = "dimension"
	RolePeriod    = "period"
	RoleMetric    = "metric"
)

// RowSet is the table of an answer: the requested dimensions in question
// order, then period, then one column per metric.
type RowSet struct {
	Columns []Column `json:"columns"`
	Rows    [][]Cell `json:"rows"`
}

// RenderedBytes returns the size of the row set's rendered cells, the
// quantity the 8 MiB bound (MaxResultBytes) applies to.
func (rs *RowSet) RenderedBytes() int {
	n := 0
	for _, row := range rs.Rows {
		for _, c := range row {
			n += len(c.Render())
		}
	}
	return n
}

// MetricDigest pins one metric of an answer to its definition.
type MetricDigest struct {
	Metric string `json:"metric"`
	Digest string `json:"digest"`
}

// Posture is how a leg runs on its data system.
type Posture string

// The two postures.
const (
	SharedServiceUser     Posture = "shared-service-user"
	ImpersonationAtSource Posture = "impersonation-at-source"
)

// ExecutedAs records one data system an answer read and how.
type ExecutedAs struct {
	Source  string  `json:"source"`
	Posture Posture `json:"posture"`
}

// Provenance traces an answer back to the exact definitions that produced
// it and the data systems that were read.
type Provenance struct {
	DefinitionVersion string         `json:"definition_version"`
	DefinitionDigest  string         `json:"definition_digest"`
	MetricDigests     []MetricDigest `json:"metric_digests"`
	ExecutedAs        []ExecutedAs   `json:"executed_as"`
}

// Answer is the rows of a certified question and their provenance.
type Answer struct {
	RowSet
	Provenance Provenance `json:"provenance"`
}

// Outcome is the result of a question: exactly one of Answer, Refusal and
// Estimate (a dry run, docs/contract.md §15) is set. A refusal is a result,
// never an error.
type Outcome struct {
	Answer   *Answer
	Refusal  *Reason
	Estimate *Estimate
}

// Answered returns the outcome holding a.
func Answered(a *Answer) Outcome { return Outcome{Answer: a} }

// Refused returns the outcome holding r.
func Refused(r Reason) Outcome { return Outcome{Refusal: &r} }

// Kind returns "answer", "refusal" or "estimate", the value of the wire
// field outcome.
func (o Outcome) Kind() string {
	if o.Refusal != nil {
		return "refusal"
	}
	if o.Estimate != nil {
		return "estimate"
	}
	return "answer"
}

// MarshalJSON writes the outcome's wire body: {"outcome":"answer",
// "columns", "rows", "provenance"} or {"outcome":"refusal","reason":{code,
// detail}}.
func (o Outcome) MarshalJSON() ([]byte, error) {
	if o.Refusal != nil {
		return json.Marshal(struct {
			Outcome string `json:"outcome"`
			Reason  Reason `json:"reason"`
		}{"refusal", *o.Refusal})
	}
	if o.Estimate != nil {
		return o.Estimate.marshalOutcome()
	}
	if o.Answer == nil {
		return nil, errorString("domain: an outcome holds neither answer nor refusal")
	}
	// An empty answer still carries its lists as arrays, never null.
	a := *o.Answer
	if a.Columns == nil {
		a.Columns = []Column{}
	}
	if a.Rows == nil {
		a.Rows = [][]Cell{}
	}
	if a.Provenance.MetricDigests == nil {
		a.Provenance.MetricDigests = []MetricDigest{}
	}
	if a.Provenance.ExecutedAs == nil {
		a.Provenance.ExecutedAs = []ExecutedAs{}
	}
	return json.Marshal(struct {
		Outcome string `json:"outcome"`
		*Answer
	}{"answer", &a})
}

type errorString string

func (e errorString) Error() string { return string(e) }

// WithStatus returns the reason's wire form with its HTTP status, as the
// HTTP surface writes it: {code, status, detail}.
func (r Reason) WithStatus() json.Marshaler { return statusReason(r) }

type statusReason Reason

func (r statusReason) MarshalJSON() ([]byte, error) { return marshalReason(Reason(r), true) }

func marshalReason(r Reason, withStatus bool) ([]byte, error) {
	if withStatus {
		return json.Marshal(struct {
			Code       Code   `json:"code"`
			Status     int    `json:"status"`
			Detail     string `json:"detail"`
			RetryAfter int64  `json:"retry_after_seconds,omitempty"`
		}{r.code, r.Status(), r.detail, r.RetryAfterSeconds()})
	}
	return json.Marshal(struct {
		Code       Code   `json:"code"`
		Detail     string `json:"detail"`
		RetryAfter int64  `json:"retry_after_seconds,omitempty"`
	}{r.code, r.detail, r.RetryAfterSeconds()})
}

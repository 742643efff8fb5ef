package domain

import "encoding/json"

// ColumnType is the declared type of a model column.
type ColumnType string

// Column types a model may declare. An undeclared type is inferred by the
// data system.
const (
	TypeUnset     ColumnType = ""
	TypeText      ColumnType = "text"
	TypeInteger   ColumnType = "integer"
	TypeFloat     ColumnType = "float"
	TypeDecimal   ColumnType = "decimal"
	TypeBoolean   ColumnType = "boolean"
	TypeDate      ColumnType = "date"
	TypeTimestamp ColumnType = "timestamp"
)

// ColumnTypes lists the declarable column types.
var ColumnTypes = []ColumnType{TypeText, TypeInteger, TypeFloat, TypeDecimal, TypeBoolean, TypeDate, TypeTimestamp}

// ModelColumn is one declared column of a model.
type ModelColumn struct {
	Name string     `json:"name"`
	Type ColumnType `json:"type,omitempty"`
	// Precision and Scale are a decimal column's declared most significant
	// digits (1 to 38; 0: undeclared, 38) and fractional digits (nil:
	// inferred from the data). A value with more fractional digits than
	// Scale is refused at start (docs/catalog-authoring.md).
	Precision   int    `json:"precision,omitempty"`
	Scale       *int   `json:"scale,omitempty"`
	Description string `json:"description,omitempty"`
}

// DecimalProblem is what is wrong with the column's precision and scale,
// or "" when nothing is: they are declared only on a decimal column,
// precision 1 to 38, scale 0 to the precision (38 when undeclared).
func (c ModelColumn) DecimalProblem() string {
	if c.Precision == 0 && c.Scale == nil {
		return ""
	}
	if c.Type != TypeDecimal {
		return "precision and scale are declared only on a decimal column"
	}
	if c.Precision < 0 || c.Precision > MaxDecimalDigits {
		return "precision is 1 to 38"
	}
	p := c.Precision
	if p == 0 {
		p = MaxDecimalDigits
	}
	if c.Scale != nil && (*c.Scale < 0 || *c.Scale > p) {
		return "scale is 0 to the column's precision"
	}
	return ""
}

// Model is a table in one data system.
type Model struct {
	Name        string        `json:"name"`
	Source      string        `json:"source"`
	Table       string        `json:"table"` // t, schema.t or project.dataset.t
	Columns     []ModelColumn `json:"columns"`
	PrimaryKey  []string      `json:"primary_key,omitempty"`
	Audience    *Audience     `json:"audience,omitempty"`
	Description string        `json:"description"`
}

// TableParts returns the segments of the table path.
func (m *Model) TableParts() []string { return splitDots(m.Table) }

// BareTable returns the last segment of the table path.
func (m *Model) BareTable() string {
	p := m.TableParts()
	return p[len(p)-1]
}

// Column returns the declared column called name.
func (m *Model) Column(name string) (ModelColumn, bool) {
	for _, c := range m.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return ModelColumn{}, false
}

func splitDots(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// JoinType is the cardinality of a relationship seen from its origin.
type JoinType string

// Join types.
const (
	OneToOne  JoinType = "one_to_one"
	ManyToOne JoinType = "many_to_one"
	OneToMany JoinType = "one_to_many"
)

// Endpoint is one side of a relationship.
type Endpoint struct {
	Model  string `json:"model"`
	Column string `json:"column"`
}

// Relationship is an equality join between two models' columns. It is
// always rendered as a LEFT JOIN from origin to target.
type Relationship struct {
	Name        string   `json:"name"`
	Origin      Endpoint `json:"origin"`
	Target      Endpoint `json:"target"`
	JoinType    JoinType `json:"join_type"`
	Description string   `json:"description,omitempty"`
}

// Aggregate is an aggregate function of the closed measure vocabulary.
type Aggregate string

// Aggregates.
const (
	Sum           Aggregate = "sum"
	Count         Aggregate = "count"
	CountDistinct Aggregate = "count_distinct"
	Avg           Aggregate = "avg"
	Min           Aggregate = "min"
	Max           Aggregate = "max"
)

// Aggregates lists every aggregate.
var Aggregates = []Aggregate{Sum, Count, CountDistinct, Avg, Min, Max}

// Term is one aggregate over a column: either Aggregate over Column, or
// count_if over the boolean column CountIf.
type Term struct {
	Aggregate Aggregate `json:"aggregate,omitempty"`
	Column    string    `json:"column,omitempty"`
	CountIf   string    `json:"count_if,omitempty"`
}

// InputColumn returns the column the term reads.
func (t Term) InputColumn() string {
	if t.CountIf != "" {
		return t.CountIf
	}
	return t.Column
}

// ZeroDenominator is what a ratio does when its denominator is zero.
type ZeroDenominator string

// Zero-denominator rules; there is no default.
const (
	YieldsNull ZeroDenominator = "yields_null"
	Fails      ZeroDenominator = "fails"
)

// Ratio divides two terms.
type Ratio struct {
	Numerator       Term            `json:"numerator"`
	Denominator     Term            `json:"denominator"`
	ZeroDenominator ZeroDenominator `json:"zero_denominator"`
}

// Measure is the closed-vocabulary computation of a metric: exactly one of
// Simple and Ratio is set.
type Measure struct {
	Simple *Term  `json:"simple,omitempty"`
	Ratio  *Ratio `json:"ratio,omitempty"`
}

// Terms returns the terms the measure aggregates.
func (m Measure) Terms() []Term {
	if m.Ratio != nil {
		return []Term{m.Ratio.Numerator, m.Ratio.Denominator}
	}
	if m.Simple != nil {
		return []Term{*m.Simple}
	}
	return nil
}

// FilterOp is a required-filter operator.
type FilterOp string

// The four required-filter operators; nothing else exists.
const (
	Equals    FilterOp = "equals"
	NotEquals FilterOp = "not_equals"
	IsTrue    FilterOp = "is_true"
	IsNotNull FilterOp = "is_not_null"
)

// RequiredFilter is part of a metric's meaning: applied to every question,
// never shown to callers, its value always bound as a parameter. Value is
// set for Equals and NotEquals only.
type RequiredFilter struct {
	Op     FilterOp `json:"op"`
	Column string   `json:"column"`
	Value  string   `json:"value,omitempty"`
}

// Dimension is a name a metric may be grouped by and, when Values is
// non-nil, filtered on with exactly those values.
type Dimension struct {
	Name        string   `json:"name"`
	Column      string   `json:"column"`
	Via         []string `json:"via,omitempty"` // relationship chain from the metric's model
	Values      []string `json:"values,omitempty"`
	Filterable  bool     `json:"filterable"`
	Description string   `json:"description,omitempty"`
}

// Allows reports whether v is on the dimension's allowlist (exact match).
func (d *Dimension) Allows(v string) bool {
	for _, x := range d.Values {
		if x == v {
			return true
		}
	}
	return false
}

// Anchor is a known result: the metric's single value over one period of
// its coarsest grain, compared with the canonical rendering.
type Anchor struct {
	Range Range  `json:"range"`
	Value string `json:"value"`
}

// Audience says who may see a metric or model: everyone (Open) or the
// principals holding one of the Restricted ids.
type Audience struct {
	Restricted []string `json:"restricted,omitempty"`
}

// Open reports whether the audience is open.
func (a Audience) Open() bool { return len(a.Restricted) == 0 }

// MarshalJSON writes "open" or {"restricted": [...]}.
func (a Audience) MarshalJSON() ([]byte, error) {
	if a.Open() {
		return []byte(`"open"`), nil
	}
	type plain Audience
	return jsonMarshal(plain(a))
}

// Metric is a certified measure over one model.
type Metric struct {
	Name            string            `json:"name"`
	Model           string            `json:"model"`
	Measure         *Measure          `json:"measure,omitempty"`
	AuthoredSQL     map[string]string `json:"authored_sql,omitempty"` // dialect → expression; digested, never run
	TimeColumn      string            `json:"time_column"`
	Grains          []Grain           `json:"grains"`
	Dimensions      []Dimension       `json:"dimensions"`
	RequiredFilters []RequiredFilter  `json:"required_filters"`
	Anchor          *Anchor           `json:"anchor,omitempty"`
	Audience        Audience          `json:"audience"`
	Description     string            `json:"description"`
}

// Dimension returns the metric's dimension called name.
func (m *Metric) Dimension(name string) (*Dimension, bool) {
	for i := range m.Dimensions {
		if m.Dimensions[i].Name == name {
			return &m.Dimensions[i], true
		}
	}
	return nil, false
}

// HasGrain reports whether the metric declares g.
func (m *Metric) HasGrain(g Grain) bool {
	for _, x := range m.Grains {
		if x == g {
			return true
		}
	}
	return false
}

// CoarsestGrain returns the widest grain the metric declares.
func (m *Metric) CoarsestGrain() Grain {
	var c Grain
	for _, g := range m.Grains {
		if g > c {
			c = g
		}
	}
	return c
}

// UnmarshalJSON reads "open" or {"restricted": [...]}.
func (a *Audience) UnmarshalJSON(b []byte) error {
	if string(b) == `"open"` {
		*a = Audience{}
		return nil
	}
	type plain Audience
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*a = Audience(p)
	return nil
}

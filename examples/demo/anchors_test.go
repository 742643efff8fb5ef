package demo_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAnchorsMatchData recomputes every anchor from the embedded CSV data
// with deliberately naive code (a loop over rows: the metric's required
// filters, the half-open anchor range on the time column, then the
// measure) and compares it with the anchor text in the catalogue.
func TestAnchorsMatchData(t *testing.T) {
	c := loadCatalogue(t)
	anchored := 0
	for _, name := range sortedKeys(c.metrics) {
		m := c.metrics[name]
		if m.Anchor == nil {
			continue
		}
		anchored++
		t.Run(name, func(t *testing.T) {
			model := c.models[m.Model]
			require.NotNil(t, model, "%s: unknown model %q", m.file, m.Model)
			got, err := naiveCell(t, loadData(t, model.Table), m, m.Anchor.Range)
			require.NoError(t, err, m.file)
			assert.Equal(t, m.Anchor.Value, got, "%s: anchor over [%s, %s)", m.file, m.Anchor.Range.Start, m.Anchor.Range.End)
		})
	}
	require.NotZero(t, anchored)
}

// TestIntegerMetricsAreAnchored: every metric whose single cell is an exact
// integer (sum, count, count_distinct, min, max over integer columns, and
// count_if) carries an anchor.
func TestIntegerMetricsAreAnchored(t *testing.T) {
	c := loadCatalogue(t)
	for _, name := range sortedKeys(c.metrics) {
		m := c.metrics[name]
		s := m.Measure.Simple
		if s == nil || s.Aggregate == "avg" {
			continue
		}
		if s.Column != "" {
			col, ok := c.models[m.Model].column(s.Column)
			require.True(t, ok, m.file)
			if s.Aggregate != "count" && s.Aggregate != "count_distinct" && col.Type != "integer" {
				continue
			}
		}
		assert.NotNil(t, m.Anchor, "%s: integer-valued metric without an anchor", m.file)
	}
}

// naiveCell computes the metric's one cell over rng at its coarsest grain
// with no dimensions and no caller filters, rendered canonically.
func naiveCell(t *testing.T, d *dataTable, m *metricDoc, rng dateRange) (string, error) {
	t.Helper()
	timeCol := d.col(t, m.TimeColumn)
	var kept [][]string
	for _, row := range d.rows {
		day := row[timeCol] // YYYY-MM-DD orders as text
		if day == "" || day < rng.Start || day >= rng.End {
			continue
		}
		if passesRequiredFilters(t, d, m.RequiredFilters, row) {
			kept = append(kept, row)
		}
	}
	if s := m.Measure.Simple; s != nil {
		return naiveTerm(t, d, *s, kept).render(), nil
	}
	r := m.Measure.Ratio
	require.NotNil(t, r, m.file)
	num := naiveTerm(t, d, r.Numerator, kept)
	den := naiveTerm(t, d, r.Denominator, kept)
	if num.null || den.null {
		return "null", nil
	}
	if den.float() == 0 {
		if r.ZeroDenominator == "fails" {
			return "", fmt.Errorf("zero denominator")
		}
		return "null", nil
	}
	return strconv.FormatFloat(num.float()/den.float(), 'f', -1, 64), nil
}

// passesRequiredFilters applies SQL semantics: a null never equals, never
// differs from, and is never true.
func passesRequiredFilters(t *testing.T, d *dataTable, filters []requiredFilter, row []string) bool {
	t.Helper()
	for _, f := range filters {
		switch {
		case f.Equals != nil:
			v := row[d.col(t, f.Equals.Column)]
			if v == "" || v != f.Equals.Value {
				return false
			}
		case f.NotEquals != nil:
			v := row[d.col(t, f.NotEquals.Column)]
			if v == "" || v == f.NotEquals.Value {
				return false
			}
		case f.IsTrue != nil:
			if row[d.col(t, f.IsTrue.Column)] != "true" {
				return false
			}
		case f.IsNotNull != nil:
			if row[d.col(t, f.IsNotNull.Column)] == "" {
				return false
			}
		default:
			t.Fatalf("empty required filter")
		}
	}
	return true
}

// value is an aggregate result: an exact integer, a real or null.
type value struct {
	null    bool
	isFloat bool
	i       int64
	f       float64
}

func (v value) float() float64 {
	if v.isFloat {
		return v.f
	}
	return float64(v.i)
}

// render is the canonical cell text of §4.2.
func (v value) render() string {
	switch {
	case v.null:
		return "null"
	case v.isFloat:
		return strconv.FormatFloat(v.f, 'f', -1, 64)
	default:
		return strconv.FormatInt(v.i, 10)
	}
}

// naiveTerm aggregates one measure term over rows. Only integer columns are
// summed, averaged or compared; that is all the demo uses.
func naiveTerm(t *testing.T, d *dataTable, tm term, rows [][]string) value {
	t.Helper()
	if tm.CountIf != "" {
		col := d.col(t, tm.CountIf)
		var n int64
		for _, row := range rows {
			if row[col] == "true" {
				n++
			}
		}
		return value{i: n}
	}
	col := d.col(t, tm.Column)
	var present []string
	for _, row := range rows {
		if row[col] != "" {
			present = append(present, row[col])
		}
	}
	switch tm.Aggregate {
	case "count":
		return value{i: int64(len(present))}
	case "count_distinct":
		seen := map[string]bool{}
		for _, v := range present {
			seen[v] = true
		}
		return value{i: int64(len(seen))}
	}
	if len(present) == 0 {
		return value{null: true}
	}
	ints := make([]int64, len(present))
	for i, v := range present {
		n, err := strconv.ParseInt(v, 10, 64)
		require.NoError(t, err, "column %s", tm.Column)
		ints[i] = n
	}
	switch tm.Aggregate {
	case "sum", "avg":
		var s int64
		for _, n := range ints {
			s += n
		}
		if tm.Aggregate == "avg" {
			return value{isFloat: true, f: float64(s) / float64(len(ints))}
		}
		return value{i: s}
	case "min":
		return value{i: minOf(ints)}
	case "max":
		return value{i: maxOf(ints)}
	}
	t.Fatalf("unknown aggregate %q", tm.Aggregate)
	return value{}
}

func minOf(xs []int64) int64 {
	m := xs[0]
	for _, x := range xs[1:] {
		m = min(m, x)
	}
	return m
}

func maxOf(xs []int64) int64 {
	m := xs[0]
	for _, x := range xs[1:] {
		m = max(m, x)
	}
	return m
}

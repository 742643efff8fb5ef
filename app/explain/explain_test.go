package explain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app/apptest"
	"sutura.dev/app/explain"
	"sutura.dev/domain"
)

func TestWords(t *testing.T) {
	for name, tc := range map[string]struct {
		m       domain.Metric
		measure string
		filters []string
	}{
		"sum": {domain.Metric{Name: "revenue", Model: "sales", TimeColumn: "sold_on",
			Measure:         &domain.Measure{Simple: &domain.Term{Aggregate: domain.Sum, Column: "amount"}},
			RequiredFilters: []domain.RequiredFilter{{Op: domain.Equals, Column: "status", Value: "complete"}, {Op: domain.IsNotNull, Column: "amount"}}},
			"the sum of amount, over the rows of sales", []string{`only rows where status is "complete" count`, "only rows where amount is set count"}},
		"ratio": {domain.Metric{Name: "aov", Model: "orders", TimeColumn: "day",
			Measure: &domain.Measure{Ratio: &domain.Ratio{Numerator: domain.Term{Aggregate: domain.Sum, Column: "amount"},
				Denominator: domain.Term{Aggregate: domain.CountDistinct, Column: "order_id"}, ZeroDenominator: domain.YieldsNull}}},
			"the sum of amount divided by the number of distinct values of order_id; a zero denominator gives null, over the rows of orders", []string{}},
		"count_if": {domain.Metric{Name: "returns", Model: "orders", TimeColumn: "day",
			Measure:         &domain.Measure{Simple: &domain.Term{CountIf: "returned"}},
			RequiredFilters: []domain.RequiredFilter{{Op: domain.IsTrue, Column: "paid"}, {Op: domain.NotEquals, Column: "kind", Value: "test"}}},
			"the number of rows where returned is true, over the rows of orders", []string{"only rows where paid is true count", `only rows where kind is not "test" count`}},
		"authored": {domain.Metric{Name: "x", Model: "m", TimeColumn: "t"}, "an expression its author wrote in SQL, over the rows of m", []string{}},
	} {
		t.Run(name, func(t *testing.T) {
			w := explain.Words(&tc.m, "d1")
			assert.Equal(t, tc.measure, w.Measure)
			assert.Equal(t, tc.filters, w.RequiredFilters)
			assert.Equal(t, "d1", w.Digest)
			assert.Equal(t, tc.m.TimeColumn, w.TimeColumn)
		})
	}
}

func TestNote(t *testing.T) {
	last := domain.DateOf(2026, 6, 30)
	for name, tc := range map[string]struct {
		r    domain.Range
		note bool
	}{
		"ends on the last day":   {domain.Range{Start: domain.DateOf(2026, 1, 1), End: domain.DateOf(2026, 7, 1)}, false},
		"ends before":            {domain.Range{Start: domain.DateOf(2026, 1, 1), End: domain.DateOf(2026, 2, 1)}, false},
		"ends a day after":       {domain.Range{Start: domain.DateOf(2026, 1, 1), End: domain.DateOf(2026, 7, 2)}, true},
		"lies wholly after data": {domain.Range{Start: domain.DateOf(2026, 8, 1), End: domain.DateOf(2026, 9, 1)}, true},
	} {
		t.Run(name, func(t *testing.T) {
			note, ok := explain.Note("sales", last, tc.r)
			assert.Equal(t, tc.note, ok)
			if ok {
				assert.Equal(t, "the data of sales ends on 2026-06-30; periods after it are empty because there is no data yet", note)
			}
		})
	}
}

func TestBuildNamesOnlyAllowlistedValues(t *testing.T) {
	b := apptest.Bundle(t, "v1")
	q, err := domain.ParseQuestion([]byte(`{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"},
		"filters":[{"op":"in","dimension":"city","values":["Lyon","ZZ-canary"]}]}`))
	require.NoError(t, err)
	r := q.Range.Resolve(domain.DateOf(2025, 6, 1))
	e := explain.Build(explain.Input{Bundle: b, Question: q, Range: r,
		Through: func(model, column string) (domain.Date, bool) {
			assert.Equal(t, "sales", model)
			assert.Equal(t, "sold_on", column)
			return domain.DateOf(2025, 1, 31), true
		}, TraceID: "abc"})
	require.Len(t, e.Definitions, 1)
	assert.Equal(t, b.MetricDigest("revenue"), e.Definitions[0].Digest)
	assert.Equal(t, []domain.AppliedFilter{{Dimension: "city", Op: "in", Values: []string{"Lyon"}}}, e.Filters,
		"a value off the allowlist is never echoed")
	assert.Equal(t, []domain.DataThrough{{Model: "sales", Source: apptest.SourceName, Through: "2025-01-31"}}, e.DataThrough)
	assert.Equal(t, []string{"the data of sales ends on 2025-01-31; periods after it are empty because there is no data yet"}, e.Notes)
	assert.NotNil(t, e.Legs)
	assert.Nil(t, e.Statements, "none unless the caller may read them")
	assert.Equal(t, "abc", e.TraceID)
}

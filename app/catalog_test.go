package app_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
)

// TestDescribeShowsMeaningButNotRequiredFilterValues: a metric's model,
// time column, measure, anchor and required filters (in words) are shown;
// a required filter's value never is.
func TestDescribeShowsMeaningButNotRequiredFilterValues(t *testing.T) {
	const hidden = "ZZ-required-value"
	defs := apptest.Definitions()
	defs.Metrics[0].RequiredFilters = []domain.RequiredFilter{
		{Op: domain.Equals, Column: "city", Value: hidden},
		{Op: domain.NotEquals, Column: "note", Value: hidden},
		{Op: domain.IsTrue, Column: "note"},
		{Op: domain.IsNotNull, Column: "amount"},
	}
	b, err := domain.NewBundle("v1", defs, apptest.Knowledge())
	require.NoError(t, err)
	v := app.DescribeBundle(b, domain.Principal{Subject: "agent"})
	require.Len(t, v.Metrics, 1)
	m := v.Metrics[0]
	assert.Equal(t, "sales", m.Model)
	assert.Equal(t, "sold_on", m.TimeColumn)
	assert.Equal(t, "sum(amount)", m.Measure)
	assert.Equal(t, &app.AnchorView{Start: "2025-01-01", End: "2026-01-01", Value: "42"}, m.Anchor)
	assert.ElementsMatch(t, []string{
		"only rows where city has one fixed value",
		"leaves out rows where note has one fixed value",
		"only rows where note is true",
		"only rows where amount is present (not null)",
	}, m.RequiredFilters)
	body, err := json.Marshal(v)
	require.NoError(t, err)
	assert.NotContains(t, string(body), hidden, "a required filter's value is never shown")
}

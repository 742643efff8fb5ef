package clickhouse

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sutura.dev/domain"
)

// plan is a one-metric plan with a filter value that looks like SQL.
func plan() *domain.Plan {
	base := domain.Table{Model: "orders", Path: []string{"orders"}, Alias: "t0",
		Columns: []domain.ModelColumn{{Name: "order_date", Type: domain.TypeDate}, {Name: "channel", Type: domain.TypeText}}}
	return &domain.Plan{
		Columns: []domain.Column{{Name: "period", Role: domain.RolePeriod}, {Name: "n", Role: domain.RoleMetric}},
		Grain:   domain.Month,
		Range:   domain.Range{Start: domain.DateOf(2025, 1, 1), End: domain.DateOf(2025, 2, 1)},
		Legs: []domain.Leg{{Source: "s", Base: base, TimeColumn: "order_date",
			Filters: []domain.FilterRef{{Dimension: "channel", Column: domain.ColumnRef{Alias: "t0", Column: "channel"},
				Op: domain.OpEq, Values: []string{"x' OR 1=1 --"}}},
			Metrics: []domain.MetricRef{{Name: "n", Measure: domain.Measure{Simple: &domain.Term{Aggregate: domain.Count, Column: "channel"}}}}}},
		RowCap: 10,
	}
}

// TestRender: the server's version decides how values travel, and none is
// ever in the SQL; EXECUTE AS quotes the configured user.
func TestRender(t *testing.T) {
	current, _ := parseServer("26.5.1.1")
	old, _ := parseServer("18.16.1")

	st, err := render(plan(), current, "")
	require.NoError(t, err)
	require.Contains(t, st.sql, "{p1:Date}")
	require.NotContains(t, st.sql, "OR 1=1")
	require.Len(t, st.args, 3)

	st, err = render(plan(), old, "")
	require.NoError(t, err)
	require.Contains(t, st.sql, ">= toDate(?)")
	require.NotContains(t, st.sql, "{p")
	require.NotContains(t, st.sql, "OR 1=1")
	require.Equal(t, []any{"2025-01-01", "2025-02-01", "x' OR 1=1 --"}, st.args)

	st, err = render(plan(), current, "ana`lyst")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(st.sql, "EXECUTE AS `ana\\`lyst` SELECT"), st.sql)
	require.Equal(t, "ana`lyst", st.user)

	_, err = render(plan(), old, "analyst")
	require.ErrorIs(t, err, errNoExecuteAs)
}

// TestIsQuery: run_sql's first-word rule sees through comments and
// parentheses, and refuses what it cannot be sure of.
func TestIsQuery(t *testing.T) {
	for _, tc := range []struct {
		sql   string
		query bool
	}{
		{"SELECT 1", true},
		{"  ((select 1))", true},
		{"WITH 1 AS a SELECT a", true},
		{"SHOW TABLES", true},
		{"DESCRIBE TABLE t", true},
		{"desc t", true},
		{"EXISTS TABLE t", true},
		{"-- a\nSELECT 1", true},
		{"/* a */ SELECT 1", true},
		{"KILL QUERY WHERE 1", false},
		{"kill query where 1", false},
		{"/* SELECT */ KILL QUERY WHERE 1", false},
		{"/* /* */ SELECT */ KILL QUERY WHERE 1", false},
		{"-- SELECT", false},
		{"# SELECT\nKILL QUERY WHERE 1", false},
		{"SYSTEM SHUTDOWN", false},
		{"SET readonly = 0", false},
		{"SELECTED", false},
		{"select_x", false},
		{"SELECT1", false},
		{"", false},
	} {
		assert.Equal(t, tc.query, isQuery(tc.sql), tc.sql)
	}
}

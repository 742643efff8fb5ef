package chdbtest_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/adapters/clickhouse/chdbtest"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// TestExplainEstimateTakesTheDialect: a current ClickHouse accepts EXPLAIN
// ESTIMATE of the clickhouse dialect's statements, with their typed
// parameters, and answers the columns the adapter's Estimate reads
// (database, table, parts, rows, marks), one row per table read; and
// system.tables has the sizes it divides.
func TestExplainEstimateTakesTheDialect(t *testing.T) {
	b := demoBundle(t)
	sys := onChDB(t, b)
	for _, tc := range []struct {
		question string
		tables   int
	}{
		{`{"metrics":["order_count"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`, 1},
		{`{"metrics":["net_sales"],"grain":"month","range":{"start":"2025-03-01","end":"2025-04-01"},"dimensions":["area","product_category"]}`, 4},
	} {
		q, err := domain.ParseQuestion([]byte(tc.question))
		require.NoError(t, err)
		plan, why := semantic.Compile(b, domain.LocalOperator, q, domain.DateOf(2026, 7, 1))
		require.Nil(t, why)
		st, err := semantic.Render(plan, semantic.ClickHouse)
		require.NoError(t, err)
		params := map[string]string{}
		for _, p := range st.Params {
			params[p.BindName()] = chdbtest.Escape(p.Value)
		}
		res, err := sys.Engine().Query("EXPLAIN ESTIMATE "+st.SQL, "TSVWithNamesAndTypes", params)
		require.NoError(t, err)
		lines := strings.Split(strings.TrimSpace(string(res.Output)), "\n")
		require.Len(t, lines, 2+tc.tables, string(res.Output))
		assert.Equal(t, "database\ttable\tparts\trows\tmarks", lines[0])
		assert.Equal(t, "String\tString\tUInt64\tUInt64\tUInt64", lines[1])
	}
	res, err := sys.Engine().Query("SELECT toFloat64(ifNull(total_bytes, 0)) / greatest(toFloat64(ifNull(total_rows, 0)), 1) FROM system.tables WHERE database = 'demo' AND name = 'orders'", "TSV", nil)
	require.NoError(t, err)
	assert.NotEqual(t, "0", strings.TrimSpace(string(res.Output)))
}

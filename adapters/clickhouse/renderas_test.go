package clickhouse

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
)

// TestRenderAs: the statement an explanation shows is the one sent — as a
// user under impersonation it starts with EXECUTE AS and the quoted user,
// as the service user it does not, and a server without EXECUTE AS
// refuses to write one rather than show a statement that never runs.
func TestRenderAs(t *testing.T) {
	b, err := conformance.DemoBundle("demo")
	require.NoError(t, err)
	plan := sqltest.Compile(t, b, domain.LocalOperator, `{"metrics":["order_count"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`)
	modern, err := parseServer("25.11.1")
	require.NoError(t, err)
	old, err := parseServer("18.16.1")
	require.NoError(t, err)

	st, err := renderAs(plan, modern, "analyst_eu")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(st.SQL, "EXECUTE AS `analyst_eu` SELECT"), st.SQL)
	sent, err := render(plan, modern, "analyst_eu")
	require.NoError(t, err)
	assert.Equal(t, sent.sql, st.SQL, "the explained text is the text sent")

	st, err = renderAs(plan, modern, "")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(st.SQL, "SELECT"), st.SQL)

	_, err = renderAs(plan, old, "analyst_eu")
	require.ErrorIs(t, err, errNoExecuteAs)
}

package postgres

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCheckStatement: run_sql's reading of a statement's text finds the
// refused functions however they are written, is not fooled by comments,
// strings or quoting, and tells a query from another statement.
func TestCheckStatement(t *testing.T) {
	for _, tc := range []struct {
		sql     string
		refused bool // a reason
		query   bool
	}{
		{"SELECT 1", false, true},
		{"  ((select 1)) ;", false, true},
		{"WITH a AS (SELECT 1) SELECT * FROM a", false, true},
		{"values (1)", false, true},
		{"TABLE regions", false, true},
		{"-- SELECT\nDO $$ BEGIN END $$", false, false},
		{"/* a /* nested */ SELECT */ DO $$ BEGIN END $$", false, false},
		{"/* unterminated /* */ SELECT 1", true, false},
		{"SELECT 1; SELECT 2", false, false},
		{"\"select\" 1", false, false},
		{"SELECT pg_terminate_backend(1)", true, false},
		{"SELECT PG_CANCEL_BACKEND(1)", true, false},
		{`SELECT pg_catalog."pg_terminate_backend"(1)`, true, false},
		{`SELECT "Set_Config"('role', 'x', true)`, true, false},
		{`SELECT U&"\0070g_terminate_backend"(1)`, true, false},
		{`SELECT u&'\0041' AS a`, false, true},
		{"SELECT query_to_xml('x', true, false, '')", true, false},
		{"SELECT 'pg_terminate_backend(1)' AS text", false, true},
		{"SELECT $q$ pg_terminate_backend(1) $q$", false, true},
		{"SELECT $q$ unterminated", true, false},
		{"SELECT E'\\' pg_terminate_backend(1)'", false, true},
		{"SELECT 'it''s' AS a, \"a\"\"b\" FROM t", false, true},
		{"SELECT '\\' , pg_cancel_backend(1) --'", true, false},
		{"SELECT $1::int", false, true},
		{"SELECT 1e5, 0x1F, 1_000, .5", false, true},
		{"SELECT a$b FROM t", false, true},
		{"SELECT 1 /* pg_terminate_backend(1) */", false, true},
		{"SELECT 1 -- pg_terminate_backend(1)", false, true},
		{"SELECT 1 --+ pg_terminate_backend(1)\n, pg_reload_conf()", true, false},
	} {
		reason, query := checkStatement(tc.sql, true)
		assert.Equal(t, tc.refused, reason != "", "%s: %q", tc.sql, reason)
		if reason == "" {
			assert.Equal(t, tc.query, query, tc.sql)
		}
	}
	// Backslashes escape in standard strings when the server says so.
	reason, _ := checkStatement(`SELECT '\' , pg_cancel_backend(1) --'`, false)
	assert.Empty(t, reason, "inside one string")
	reason, _ = checkStatement(`SELECT 'a\', pg_cancel_backend(1) --'`, true)
	assert.NotEmpty(t, reason)
}

package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	postgres "sutura.dev/adapters/postgres"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/domain"
)

func TestRunSQL(t *testing.T) {
	f := needDB(t)
	// As the superuser: read-only must hold even for a user that could
	// write, and the row cap for any statement.
	cfg := f.config()
	cfg.User, cfg.Password = f.admin.User, []byte(f.admin.Password)
	db := open(t, cfg)
	ctx := context.Background()

	rs, err := db.RunSQL(ctx, "SELECT region_id, region_name FROM regions ORDER BY region_id", 0)
	require.NoError(t, err)
	require.Equal(t, []domain.Column{{Name: "region_id"}, {Name: "region_name"}}, rs.Columns)
	require.Equal(t, [][]string{{"1", "North"}, {"2", "East"}, {"3", "South"}, {"4", "West"}}, rendered(rs))

	// The row cap: exactly rowCap rows is an answer, one more is refused.
	rs, err = db.RunSQL(ctx, "SELECT order_id FROM orders ORDER BY order_id LIMIT 100", 100)
	require.NoError(t, err)
	require.Len(t, rs.Rows, 100)
	_, err = db.RunSQL(ctx, "SELECT order_id FROM orders", 100)
	require.Equal(t, domain.ResultTooLarge, refusalCode(err))
	_, err = db.RunSQL(ctx, "SELECT order_id FROM orders", 0) // 12 000 rows > domain.MaxRowCap
	require.Equal(t, domain.ResultTooLarge, refusalCode(err))

	// Read-only: every way of writing is refused, and nothing was written.
	for _, stmt := range []string{
		"INSERT INTO regions VALUES (5, 'Nowhere')",
		"UPDATE regions SET region_name = 'x'",
		"CREATE TABLE sneaky (i int)",
		"WITH x AS (DELETE FROM regions RETURNING *) SELECT count(*) FROM x",
		"SELECT nextval('no_such_sequence')",
	} {
		_, err := db.RunSQL(ctx, stmt, 10)
		code := refusalCode(err)
		if code == "" {
			e, ok := errorsAs[*postgres.Error](err)
			require.True(t, ok, "%s: %v", stmt, err)
			require.NotEmpty(t, e.Code, stmt)
			continue
		}
		require.Equal(t, domain.SourceRefused, code, stmt)
	}
	// One query only: a statement cannot end the read-only transaction and
	// go on (the server's parser refuses two statements in one), nor change
	// the transaction's mode.
	for _, stmt := range []string{"COMMIT; INSERT INTO regions VALUES (6, 'Elsewhere')", "SELECT 1 AS one; INSERT INTO regions VALUES (6, 'Elsewhere')"} {
		_, err = db.RunSQL(ctx, stmt, 10)
		e, ok := errorsAs[*postgres.Error](err)
		require.True(t, ok, "%v", err)
		require.Equal(t, "42601", e.Code)
	}
	_, err = db.RunSQL(ctx, "SET TRANSACTION READ WRITE", 10)
	require.Equal(t, domain.SourceRefused, refusalCode(err))
	rs, err = db.RunSQL(ctx, "SELECT count(*) FROM regions", 1)
	require.NoError(t, err)
	require.Equal(t, [][]string{{"4"}}, rendered(rs))

	// A statement the server fails: an *Error with the SQLSTATE and the
	// server's message for whoever wrote it; the error text holds neither.
	sqltest.RejectsBadStatements(t, db.RunSQL, "42601")
}

// TestRunSQLLeavesNothingBehind: what a statement sets on its session
// (settings, prepared statements, advisory locks) reaches no later call.
func TestRunSQLLeavesNothingBehind(t *testing.T) {
	f := needDB(t)
	cfg := f.config()
	cfg.MaxConns = 1
	db := open(t, cfg)
	ctx := context.Background()
	for _, stmt := range []string{
		"SELECT set_config('search_path', 'rls', false)",
		"PREPARE sneaky AS SELECT 1",
	} {
		_, err := db.RunSQL(ctx, stmt, 1)
		require.Equal(t, domain.SourceRefused, refusalCode(err), stmt)
	}
	_, err := db.RunSQL(ctx, "SELECT pg_advisory_lock(4242)", 1)
	require.NoError(t, err)
	rs, err := db.RunSQL(ctx, "SELECT current_setting('search_path'), (SELECT count(*) FROM pg_prepared_statements WHERE name = 'sneaky')", 1)
	require.NoError(t, err)
	require.Equal(t, [][]string{{`"$user", public`, "0"}}, rendered(rs))
	admin, err := f.connect(ctx, f.db)
	require.NoError(t, err)
	defer admin.Close(ctx)
	var locks int
	require.NoError(t, admin.QueryRow(ctx, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242").Scan(&locks))
	require.Zero(t, locks)
	plan := compile(t, demoBundle(t, source), domain.LocalOperator,
		`{"metrics":["order_count"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`)
	rs, err = db.Execute(ctx, plan)
	require.NoError(t, err)
	require.Equal(t, [][]string{{"2025-01-01", "4841"}}, rendered(rs))
}

// TestCells reads one value of every type the adapter decodes and checks
// its canonical rendering.
func TestCells(t *testing.T) {
	f := needDB(t)
	db := open(t, f.config())
	rs, err := db.RunSQL(context.Background(), `SELECT
  1::int2, -2::int4, 9007199254740993::int8,
  1.5::float4, 0.1::float8, 1e21::float8, 1e-7::float8, -0.0::float8, 'NaN'::float8, 'Infinity'::float8, 3.0::float8,
  12.000::numeric, 12.5::numeric, -0.25::numeric, 9223372036854775807::numeric, 9223372036854775808::numeric,
  1e30::numeric, 'NaN'::numeric, 0::numeric, 100::numeric(10,2),
  true, false, DATE '2025-01-02', DATE '0900-03-04', 'infinity'::date,
  TIMESTAMP '2025-01-02 03:04:05.5', TIMESTAMPTZ '2025-01-02 03:04:05+02', TIMESTAMP '2025-01-02 00:00:00',
  'tab	and é'::text, 'v'::varchar, 'c'::char(3), 'n'::name, NULL::int, NULL::text,
  '5 days'::interval, ARRAY[1,2], '{"a": 1}'::jsonb, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid`, 1)
	require.NoError(t, err)
	want := []string{
		"1", "-2", "9007199254740993",
		"1.5", "0.1", "1000000000000000000000", "0.0000001", "0", "null", "null", "3",
		"12", "12.5", "-0.25", "9223372036854775807", "9223372036854775808", // past int64: still exact
		"1000000000000000000000000000000", "null", "0", "100",
		"true", "false", "2025-01-02", "0900-03-04", "infinity",
		"2025-01-02T03:04:05.5Z", "2025-01-02T01:04:05Z", "2025-01-02T00:00:00Z",
		"tab\tand é", "v", "c  ", "n", "null", "null",
		"5 days", "{1,2}", `{"a": 1}`, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
	}
	require.Equal(t, [][]string{want}, rendered(rs))
	kinds := []domain.Kind{domain.KindInt, domain.KindInt, domain.KindInt, domain.KindFloat}
	for i, k := range kinds {
		require.Equal(t, k, rs.Rows[0][i].Kind(), "column %d", i+1)
	}
	require.Equal(t, domain.KindInt, rs.Rows[0][11].Kind(), "an integral numeric is an integer")
	require.Equal(t, domain.KindDecimal, rs.Rows[0][15].Kind(), "past int64 it is an exact decimal")
	require.Equal(t, domain.KindDecimal, rs.Rows[0][12].Kind(), "12.5 is an exact decimal")
	require.Equal(t, domain.KindDate, rs.Rows[0][22].Kind())
}

// TestRunSQLTraced: a run_sql statement under a traced call reaches the
// server ending with the call's traceparent comment (docs/contract.md
// §16) — the server's own current_query() shows it — and a trailing
// semicolon or line comment of the statement does not change what runs.
func TestRunSQLTraced(t *testing.T) {
	f := needDB(t)
	db := open(t, f.config())
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	ctx := domain.WithTraceParent(context.Background(), tp)
	for _, stmt := range []string{
		"SELECT current_query()",
		"SELECT current_query();",
		"SELECT current_query() -- the text the server holds",
	} {
		rs, err := db.RunSQL(ctx, stmt, 1)
		require.NoError(t, err, stmt)
		require.Len(t, rs.Rows, 1)
		got := rendered(rs)[0][0]
		assert.True(t, strings.HasSuffix(got, "\n/* traceparent='"+tp+"' */"), got)
		assert.True(t, strings.HasPrefix(got, "SELECT current_query()"), got)
	}
	rs, err := db.RunSQL(context.Background(), "SELECT current_query()", 1)
	require.NoError(t, err)
	assert.Equal(t, "SELECT current_query()", rendered(rs)[0][0], "an untraced call sends the statement as written")
	_, plain := db.RunSQL(context.Background(), "SELECT 1; SELECT 2", 1)
	require.Error(t, plain)
	_, err = db.RunSQL(ctx, "SELECT 1; SELECT 2", 1)
	require.Error(t, err, "still one statement only")
	assert.Equal(t, plain.Error(), err.Error())
}

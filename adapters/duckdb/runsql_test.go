//go:build cgo

package duckdb_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	duckdb "sutura.dev/adapters/duckdb"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/domain"
)

// TestRunSQLAnswers runs read-only queries: rows named after the result's
// columns, no roles, every row within the cap; more is refused, never
// truncated, and DuckDB stops after the rows it may return.
func TestRunSQLAnswers(t *testing.T) {
	db := openDemo(t)
	ctx := context.Background()
	rs, err := db.RunSQL(ctx, "SELECT channel, count(*) AS n FROM orders GROUP BY channel ORDER BY channel", 10)
	require.NoError(t, err)
	assert.Equal(t, []domain.Column{{Name: "channel"}, {Name: "n"}}, rs.Columns)
	assert.Equal(t, [][]string{{"online", "7283"}, {"store", "4717"}}, rendered(rs))

	for _, q := range []string{"FROM regions ORDER BY region_id", "DESCRIBE regions", "SHOW TABLES", "SUMMARIZE regions",
		"VALUES (1, 'a')", "WITH r AS (SELECT * FROM regions) SELECT count(*) FROM r;", "SELECT 1 -- a comment"} {
		_, err := db.RunSQL(ctx, q, 100)
		assert.NoError(t, err, q)
	}

	rs, err = db.RunSQL(ctx, "SELECT * FROM regions ORDER BY region_id", 4)
	require.NoError(t, err)
	assert.Len(t, rs.Rows, 4)
	_, err = db.RunSQL(ctx, "SELECT * FROM orders", 100)
	assert.Equal(t, domain.ResultTooLarge, refusalCode(err), "error: %v", err)
	_, err = db.RunSQL(ctx, "SELECT * FROM range(1000000000000)", 0)
	assert.Equal(t, domain.ResultTooLarge, refusalCode(err), "a trillion rows are refused at the cap, not computed: %v", err)
	_, err = db.RunSQL(ctx, "SELECT repeat('x', 65536) FROM range(200)", 0)
	assert.Equal(t, domain.ResultTooLarge, refusalCode(err), "the byte bound: %v", err)

	_, err = db.RunSQL(ctx, "  ", 10)
	assert.ErrorIs(t, err, duckdb.ErrEmptyStatement)
}

// TestRunSQLSandbox tries every way out of a read-only query on one
// database file: writes, DDL, settings, other files, other databases and
// extensions are refused as source_refused, and the file is unchanged.
func TestRunSQLSandbox(t *testing.T) {
	path := demoFile(t)
	before := digest(t, path)
	db := open(t, duckdbConfig(path))
	ctx := context.Background()
	outside := filepath.Join(t.TempDir(), "outside.csv")
	require.NoError(t, os.WriteFile(outside, []byte("secret\nzz-canary\n"), 0o600))
	target := filepath.Join(t.TempDir(), "out")
	refused := []string{
		// Writes and DDL, on the file or on a connection's temporary schema.
		"INSERT INTO regions VALUES (99, 'zz-canary')",
		"UPDATE regions SET region_name = 'x'",
		"DELETE FROM regions",
		"CREATE TABLE x AS SELECT 1",
		"CREATE TEMP TABLE x AS SELECT 1",
		"CREATE TEMP VIEW orders AS SELECT 1",
		"CREATE MACRO m(a) AS a",
		"DROP TABLE regions",
		"ALTER TABLE regions ADD COLUMN c INTEGER",
		"CHECKPOINT",
		"VACUUM",
		"BEGIN TRANSACTION",
		// Settings, variables and prepared statements.
		"SET threads = 1",
		"SET GLOBAL enable_external_access = true",
		"RESET lock_configuration",
		"PRAGMA enable_profiling",
		"SET VARIABLE v = 1",
		"PREPARE p AS SELECT 1",
		"USE memory",
		// Other files and databases.
		"ATTACH '" + target + ".duckdb' AS other",
		"ATTACH ':memory:' AS m",
		"DETACH " + "data",
		"COPY regions TO '" + target + ".csv'",
		"COPY (SELECT 1) TO '" + target + ".parquet' (FORMAT parquet)",
		"EXPORT DATABASE '" + target + "'",
		"IMPORT DATABASE '" + target + "'",
		"SELECT * FROM read_csv('" + outside + "')",
		"SELECT * FROM '" + outside + "'",
		"SELECT * FROM read_text('/etc/passwd')",
		"SELECT * FROM read_blob('/etc/hostname')",
		"SELECT * FROM glob('/etc/*')",
		"SELECT * FROM read_parquet('https://example.com/x.parquet')",
		"SELECT * FROM read_json('" + outside + "')",
		// Extensions.
		"INSTALL httpfs",
		"LOAD httpfs",
		"FORCE INSTALL spatial",
		"CALL pragma_version()",
		"EXPLAIN SELECT 1",
		"EXPLAIN ANALYZE CREATE TEMP TABLE y AS SELECT 1",
	}
	for _, q := range refused {
		rs, err := db.RunSQL(ctx, q, 10)
		if assert.Error(t, err, q) {
			assert.Equal(t, domain.SourceRefused, refusalCode(err), "%s: %v", q, err)
			assert.NotContains(t, err.Error(), "zz-canary")
		}
		assert.Nil(t, rs)
	}
	// Nothing above left anything behind on any connection.
	rs, err := db.RunSQL(ctx, "SELECT count(*) FROM duckdb_tables() WHERE temporary", 10)
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"0"}}, rendered(rs))
	rs, err = db.RunSQL(ctx, "SELECT current_setting('enable_external_access'), current_setting('lock_configuration'), current_setting('access_mode'), current_setting('TimeZone')", 10)
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"false", "true", "read_only", "UTC"}}, rendered(rs))
	_, err = os.Stat(target + ".csv")
	assert.True(t, errors.Is(err, os.ErrNotExist), "no file was written")
	db.Close()
	assert.Equal(t, before, digest(t, path), "the database file is unchanged")
}

// TestRunSQLStatementFailures: a statement DuckDB rejects is the author's
// error, whose message reaches the author only through Message; text of
// several statements is one too, and runs none of them.
func TestRunSQLStatementFailures(t *testing.T) {
	db := openDemo(t)
	ctx := context.Background()
	for _, q := range []string{
		"selec nothing",
		"SELECT nope FROM regions",
		"SELECT * FROM no_such_table",
		"SELECT CAST('x' AS INTEGER)",
		"SELECT 1; SELECT 2",
		"SELECT 1; INSERT INTO regions VALUES (99, 'zz-canary')",
		"-- only a comment",
		"SELECT * FROM query('CREATE TEMP TABLE z AS SELECT 1')",
		"SELECT which_secret('s3://bucket/x', 's3')",
	} {
		_, err := db.RunSQL(ctx, q, 10)
		if refusalCode(err) == domain.SourceRefused && strings.Contains(q, "INSERT") {
			// A text holding a write is refused before it is prepared (its
			// values cannot be read), which runs none of it either.
			assert.NotContains(t, err.Error(), "zz-canary")
			continue
		}
		var e *duckdb.Error
		if assert.True(t, errors.As(err, &e), "%s: %v", q, err) {
			assert.ErrorIs(t, e, domain.ErrRejected, q)
			assert.NotEmpty(t, e.Message, q)
			assert.NotContains(t, e.Error(), "nope", "the text never quotes the statement")
			assert.NotContains(t, e.Error(), "zz-canary")
		}
	}
	rs, err := db.RunSQL(ctx, "SELECT count(*) FROM regions WHERE region_id = 99", 10)
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"0"}}, rendered(rs))
}

// TestRunSQLSecretsAreTheStatements (issue 28): the secrets functions
// fail in the sandbox (refused the first time, then an invalid
// configuration), which is the statement's failure or a refusal, never a
// database that cannot be used; the source answers on.
func TestRunSQLSecretsAreTheStatements(t *testing.T) {
	db := openDemo(t)
	ctx := context.Background()
	for range 2 {
		for _, q := range []string{
			"SELECT * FROM which_secret('s3://bucket/x', 's3')",
			"SELECT * FROM duckdb_secrets()",
			"SELECT * FROM which_secret('/etc/passwd', 'local')",
		} {
			_, err := db.RunSQL(ctx, q, 10)
			require.Error(t, err, q)
			assert.NotErrorIs(t, err, domain.ErrUnavailable, "%s: %v", q, err)
			if refusalCode(err) == "" {
				assert.ErrorIs(t, err, domain.ErrRejected, "%s: %v", q, err)
			}
		}
	}
	rs, err := db.RunSQL(ctx, "SELECT count(*) FROM regions", 1)
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"4"}}, rendered(rs))
}

func digest(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return sha256.Sum256(b)
}

func duckdbConfig(path string) duckdb.Config {
	return duckdb.Config{Source: source, Path: path, Models: demoModels()}
}

// TestRunSQLRejectsBadStatements: a syntax error is the author's (a
// parser error, DuckDB's message kept for them), a blank statement none.
func TestRunSQLRejectsBadStatements(t *testing.T) {
	sqltest.RejectsBadStatements(t, openDemo(t).RunSQL, "parser error")
}

// TestRunSQLTraced: under a traced call the statement DuckDB runs (the
// query that wraps the caller's, which is bound as a value) ends with the
// call's traceparent comment (docs/contract.md §16), as DuckDB's own
// current_query() shows; the caller's statement is not altered.
func TestRunSQLTraced(t *testing.T) {
	db := openDemo(t)
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	rs, err := db.RunSQL(domain.WithTraceParent(context.Background(), tp), "SELECT current_query() AS q", 1)
	require.NoError(t, err)
	got := rendered(rs)[0][0]
	assert.True(t, strings.HasSuffix(got, " /* traceparent='"+tp+"' */"), got)
	rs, err = db.RunSQL(context.Background(), "SELECT current_query() AS q", 1)
	require.NoError(t, err)
	assert.NotContains(t, rendered(rs)[0][0], "traceparent", "an untraced call sends no comment")
}

//go:build cgo

package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/adapters/duckdb"
	"sutura.dev/adapters/duckdb/ducktest"
	"sutura.dev/app"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
	"sutura.dev/examples/demo"
)

// The abilities a duckdb source has.
var (
	_ app.DataSystem = (*duckdb.DB)(nil)
	_ app.Validator  = (*duckdb.DB)(nil)
	_ app.SQLRunner  = (*duckdb.DB)(nil)
)

// demoOnDuckDB builds a DuckDB file of the demo tables and returns a
// Surface over it, and one over the embedded engine.
func demoOnDuckDB(t *testing.T) (duck, files *app.Surface) {
	return demoAgainstTheEngine(t, func(models []domain.Model) app.DataSystem {
		db, err := duckdb.New(context.Background(), ducktest.Config(demo.SourceAlias, ducktest.Build(t, demo.Data(), models), models))
		require.NoError(t, err)
		t.Cleanup(db.Close)
		return db
	})
}

// TestDuckDBConformance runs the data-system contract suite through the
// application on a DuckDB file: the same rows and refusals as the corpus.
func TestDuckDBConformance(t *testing.T) {
	duck, _ := demoOnDuckDB(t)
	conformance.Run(t, duck)
}

// TestDuckDBMatchesTheEngine asks 500 random valid questions of the demo
// catalogue on DuckDB and on the embedded engine and compares them answer
// for answer, cell for cell, refusal for refusal. The demo's measures are
// integers, and both compute a real from the same integer terms, so every
// real is byte-identical too.
func TestDuckDBMatchesTheEngine(t *testing.T) {
	duck, files := demoOnDuckDB(t)
	tally := conformance.Differential(t, duck, files, 500, 2026)
	t.Logf("outcomes of 500 questions: %v; %d real cells, %d not byte-identical", tally.Outcomes, tally.Reals, tally.InexactReals)
	require.Greater(t, tally.Outcomes["answer"], 300, "most random questions are answered, so the comparison means something")
	require.Zero(t, tally.InexactReals, "every real cell is byte-identical to the engine's")
}

// TestDuckDBCancellationFreesTheSlot asks a question that cannot finish
// (orders is a view over a cross join of 4·10^10 rows), cancels it, and
// checks that the call ends and the admission slot is back within a
// second.
func TestDuckDBCancellationFreesTheSlot(t *testing.T) {
	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	path := ducktest.Build(t, demo.Data(), nil, `CREATE VIEW orders AS SELECT a.range AS order_id,
		DATE '2025-01-01' + CAST(a.range % 365 AS INTEGER) AS order_date, b.range % 1000 AS customer_id, b.range % 25 AS product_id,
		CASE WHEN a.range % 2 = 0 THEN 'online' ELSE 'store' END AS channel, 'completed' AS status, 'card' AS payment_method,
		true AS is_paid, CAST(1 AS BIGINT) AS quantity, a.range % 977 AS gross_amount_cents, CAST(0 AS BIGINT) AS discount_cents,
		(a.range + b.range) % 977 AS net_amount_cents, a.range % 977 AS collected_cents, DATE '2025-01-02' AS shipped_date,
		CAST(1 AS BIGINT) AS dispatch_days, false AS is_returned
		FROM range(200000) AS a CROSS JOIN range(200000) AS b`)
	cfg := ducktest.Config(demo.SourceAlias, path, b.Definitions().Models)
	cfg.MaxConns = 1
	db, err := duckdb.New(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(db.Close)
	asked := time.Now()
	elapsed := askAndCancel(t, db, func() bool { return time.Since(asked) > 300*time.Millisecond })
	t.Logf("slot back %v after cancel", elapsed)
	// The source has one connection, which the statement would still hold
	// if it ran on: the next call has it at once.
	start := time.Now()
	require.NoError(t, db.Ping(context.Background()))
	require.Less(t, time.Since(start), time.Second)
}

// TestServeADuckDBSource serves the demo catalogue from a DuckDB file with
// nothing but configuration: doctor reaches it, validate re-runs the
// anchors on it, serve answers over HTTP (questions through no, one and
// two joins, each the embedded demo's answer) and sutura mcp over stdio.
func TestServeADuckDBSource(t *testing.T) {
	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	path := ducktest.Build(t, demo.Data(), b.Definitions().Models)
	dir := demoConfig(t, "duck-1", "{kind: duckdb, posture: shared-service-user, path: "+path+", threads: 2, memory_limit_bytes: 268435456}", "", nil)
	servesTheDemo(t, dir, "duckdb", nil, byChannel, byCategory, byArea)
}

// TestRunSQLWithTwoSQLSources: run_sql runs on one source. With two that
// can run SQL, start-up refuses to guess and names the key that chooses;
// with tools.run_sql.source set, run_sql answers on that source, reading
// only what the DuckDB file holds.
func TestRunSQLWithTwoSQLSources(t *testing.T) {
	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	path := ducktest.Build(t, demo.Data(), b.Definitions().Models)
	spare := ducktest.Build(t, demo.Data(), nil, "CREATE TABLE spare AS SELECT 7 AS n")
	configure := func(runSQL string) string {
		return demoConfig(t, "duck-1", "{kind: duckdb, posture: shared-service-user, path: "+path+"}",
			"  spare: {kind: duckdb, posture: shared-service-user, path: "+spare+"}\ntools: {run_sql: "+runSQL+"}\n", nil)
	}

	code, _, errOut := runCLI(t, map[string]string{"SUTURA_CONFIG_DIR": configure("{enabled: true}")}, "validate")
	require.Equal(t, exitFail, code, errOut)
	assert.Contains(t, errOut, "several configured sources can run SQL (demo, spare)")
	assert.Contains(t, errOut, "tools.run_sql.source")

	s := serve(t, "SUTURA_CONFIG_DIR="+configure("{enabled: true, source: demo}"))
	status, _, body := s.do(t, "POST", "/v1/sql/run", `{"statement":"select count(*) as n from orders"}`)
	require.Equal(t, 200, status, body)
	assert.Contains(t, body, `"12000"`)
	assert.NotContains(t, body, "provenance")
	status, _, body = s.do(t, "POST", "/v1/sql/run", `{"statement":"select n from spare"}`)
	assert.Equal(t, 400, status, "the other source's table is not there: %s", body)
	assert.Contains(t, body, "statement_failed")
	status, _, body = s.do(t, "POST", "/v1/sql/run", `{"statement":"select * from read_csv('/etc/passwd')"}`)
	assert.Equal(t, 403, status, "the file may reach nothing outside it: %s", body)
	assert.Contains(t, body, "source_refused")
	status, _, body = s.do(t, "POST", "/v1/sql/run", `{"statement":"create table zz_canary (n int)"}`)
	assert.NotEqual(t, 200, status, "the file is read-only: %s", body)
	assert.NotContains(t, body, "zz_canary")
}

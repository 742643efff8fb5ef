package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/adapters/postgres"
	"sutura.dev/adapters/postgres/pgtest"
	"sutura.dev/app"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
	"sutura.dev/examples/demo"
)

var _ app.PrincipalExecutor = (*postgres.DB)(nil)

// demoOnPostgres loads the demo tables into a throwaway database and
// returns a Surface over it, and one over the embedded engine.
func demoOnPostgres(t *testing.T) (pg, files *app.Surface) {
	return demoAgainstTheEngine(t, func(models []domain.Model) app.DataSystem {
		d := pgtest.New(t)
		d.Load(t, demo.Data(), models)
		db, err := postgres.New(context.Background(), d.Config(demo.SourceAlias, models))
		require.NoError(t, err)
		t.Cleanup(db.Close)
		return db
	})
}

// TestPostgresConformance runs the data-system contract suite on a real
// PostgreSQL: the same rows and refusals as the corpus DuckDB computed.
func TestPostgresConformance(t *testing.T) {
	pg, _ := demoOnPostgres(t)
	conformance.Run(t, pg)
}

// TestPostgresMatchesTheEngine asks 500 random valid questions of the
// demo catalogue on Postgres and on the embedded engine and compares them
// answer for answer, cell for cell, refusal for refusal.
func TestPostgresMatchesTheEngine(t *testing.T) {
	pg, files := demoOnPostgres(t)
	tally := conformance.Differential(t, pg, files, 500, 2026)
	t.Logf("outcomes of 500 questions: %v; %d real cells, %d not byte-identical", tally.Outcomes, tally.Reals, tally.InexactReals)
	require.Greater(t, tally.Outcomes["answer"], 300, "most random questions are answered, so the comparison means something")
}

// TestServeAPostgresSource serves the demo catalogue from a real Postgres
// with nothing but configuration: doctor reaches it, validate re-runs the
// anchors on it, and serve answers over HTTP.
func TestServeAPostgresSource(t *testing.T) {
	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	d := pgtest.New(t)
	d.Load(t, demo.Data(), b.Definitions().Models)
	pc := d.Config(demo.SourceAlias, nil)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pgpass"), pc.Password, 0o600))
	catalog, err := filepath.Abs("../../../examples/demo/catalog")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "base.yaml"), []byte(fmt.Sprintf(`catalogs:
  - {name: demo, kind: markdown, dir: %s, version: pg-1}
sources:
  demo: {kind: postgres, posture: shared-service-user, host: %s, port: %d, database: %s, user: %s, password_file: pgpass, transport_mode: plaintext}
security: {identity: single-user}
`, catalog, pc.Host, pc.Port, pc.Database, pc.User)), 0o600))
	env := map[string]string{"SUTURA_CONFIG_DIR": dir}

	code, out, errOut := runCLI(t, env, "doctor")
	require.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, "ok         source demo (postgres) reachable")
	code, out, errOut = runCLI(t, env, "validate")
	require.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, "13 checked, all reproduce")

	s := serve(t, "SUTURA_CONFIG_DIR="+dir)
	status, _, body := s.do(t, "POST", "/v1/query", year2025)
	require.Equal(t, 200, status, body)
	assert.Contains(t, body, "24032720")
	assert.Contains(t, body, `"posture":"shared-service-user"`)
	assert.NotContains(t, s.stderr.String(), string(pc.Password), "the password is never logged")

	// And sutura mcp, over stdio, with the SDK's own client.
	cmd := exec.Command(binary(t), "mcp")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "SUTURA_CONFIG_DIR=" + dir}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sess, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	defer sess.Close()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "ask_metric", Arguments: json.RawMessage(year2025)})
	require.NoError(t, err)
	require.False(t, res.IsError)
	assert.Contains(t, mustJSON(t, res.StructuredContent), "24032720")
}

var _ app.StatementFailure = (*postgres.Error)(nil)

// TestRunSQLOnPostgres enables run_sql on a served Postgres source: a
// read-only statement answers with rows and no provenance, a write is
// refused by the read-only transaction, a statement the database rejects
// is the author's error, and every call is audited with its statement.
func TestRunSQLOnPostgres(t *testing.T) {
	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	d := pgtest.New(t)
	d.Load(t, demo.Data(), b.Definitions().Models)
	pc := d.Config(demo.SourceAlias, nil)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pgpass"), pc.Password, 0o600))
	catalog, err := filepath.Abs("../../../examples/demo/catalog")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "base.yaml"), []byte(fmt.Sprintf(`catalogs:
  - {name: demo, kind: markdown, dir: %s, version: pg-1}
sources:
  demo: {kind: postgres, posture: shared-service-user, host: %s, port: %d, database: %s, user: %s, password_file: pgpass, transport_mode: plaintext}
security: {identity: single-user}
tools: {run_sql: {enabled: true}}
audit: {sink: file, file: audit.jsonl}
`, catalog, pc.Host, pc.Port, pc.Database, pc.User)), 0o600))
	s := serve(t, "SUTURA_CONFIG_DIR="+dir)

	status, _, body := s.do(t, "POST", "/v1/sql/run", `{"statement":"select count(*) as n from orders"}`)
	require.Equal(t, 200, status, body)
	assert.Contains(t, body, `"12000"`)
	assert.NotContains(t, body, "provenance")
	status, _, body = s.do(t, "POST", "/v1/sql/run", `{"statement":"insert into regions values (99, 'zz-canary')"}`)
	assert.Equal(t, 403, status, body)
	assert.Contains(t, body, "source_refused")
	assert.NotContains(t, body, "zz-canary")
	status, _, body = s.do(t, "POST", "/v1/sql/run", `{"statement":"selec nothing"}`)
	assert.Equal(t, 400, status, body)
	status, _, _ = s.do(t, "POST", "/v1/sql/run", `{"statement":"select 1","table":"orders"}`)
	assert.Equal(t, 400, status, "unknown fields are refused by name")

	audit, err := os.ReadFile(filepath.Join(dir, "audit.jsonl"))
	require.NoError(t, err)
	assert.Contains(t, string(audit), `"capability":"run_sql"`)
	assert.Contains(t, string(audit), `select count(*) as n from orders`)
}

// TestPostgresCancellationFreesBackendAndSlot asks a deliberately slow
// question (orders is a view generating 300 million rows), cancels it, and
// watches pg_stat_activity: the backend is idle again within a second, and
// so is the admission slot.
func TestPostgresCancellationFreesBackendAndSlot(t *testing.T) {
	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	d := pgtest.New(t)
	d.Exec(t, `CREATE VIEW orders AS SELECT g AS order_id, date '2025-01-01' + (g % 365)::int AS order_date,
		g % 1000 AS customer_id, g % 25 AS product_id, CASE WHEN g % 2 = 0 THEN 'online' ELSE 'store' END AS channel,
		'completed'::text AS status, 'card'::text AS payment_method, true AS is_paid, 1::bigint AS quantity,
		(g % 977)::bigint AS gross_amount_cents, 0::bigint AS discount_cents, (g % 977)::bigint AS net_amount_cents,
		(g % 977)::bigint AS collected_cents, date '2025-01-02' AS shipped_date, 1::bigint AS dispatch_days, false AS is_returned
		FROM generate_series(1, 300000000) AS g`)
	db, err := postgres.New(context.Background(), d.Config(demo.SourceAlias, b.Definitions().Models))
	require.NoError(t, err)
	t.Cleanup(db.Close)
	active := func() int {
		var n int
		row := pgtestQuery(t, d, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE '%net_sales%' AND pid <> pg_backend_pid()`)
		require.NoError(t, row.Scan(&n))
		return n
	}
	elapsed := askAndCancel(t, db, func() bool { return active() > 0 })
	require.Eventually(t, func() bool { return active() == 0 }, time.Second, 10*time.Millisecond, "the backend is idle within a second")
	t.Logf("slot back %v after cancel", elapsed)
}

// pgtestQuery runs one query as the superuser in d's database.
func pgtestQuery(t *testing.T, d *pgtest.Database, sql string) pgx.Row {
	cfg := d.Config("q", nil)
	conn, err := pgx.Connect(context.Background(), fmt.Sprintf("postgres://%s:%s@%s:%d/%s?sslmode=disable", cfg.User, cfg.Password, cfg.Host, cfg.Port, cfg.Database))
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn.QueryRow(context.Background(), sql)
}

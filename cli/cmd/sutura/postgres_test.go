package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
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
// anchors on it, serve answers over HTTP and sutura mcp over stdio.
func TestServeAPostgresSource(t *testing.T) {
	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	d := pgtest.New(t)
	d.Load(t, demo.Data(), b.Definitions().Models)
	pc := d.Config(demo.SourceAlias, nil)
	dir := demoConfig(t, "pg-1", fmt.Sprintf("{kind: postgres, posture: shared-service-user, host: %s, port: %d, database: %s, user: %s, password_file: pgpass, transport_mode: plaintext}",
		pc.Host, pc.Port, pc.Database, pc.User), "", map[string][]byte{"pgpass": pc.Password})
	servesTheDemo(t, dir, "postgres", pc.Password, byArea)
}

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
	configure := func(user string, password []byte) string {
		return demoConfig(t, "pg-1", fmt.Sprintf("{kind: postgres, posture: shared-service-user, host: %s, port: %d, database: %s, user: %s, password_file: pgpass, transport_mode: plaintext}",
			pc.Host, pc.Port, pc.Database, user), "tools: {run_sql: {enabled: true}}\naudit: {sink: file, file: audit.jsonl}\n", map[string][]byte{"pgpass": password})
	}

	// The test cluster's own login is a superuser: run_sql is refused on
	// it at start, naming the key.
	code, _, errOut := runCLI(t, map[string]string{"SUTURA_CONFIG_DIR": configure(pc.User, pc.Password)}, "validate")
	require.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "tools.run_sql.enabled")

	// run_sql is served on a login role that may only read.
	reader := fmt.Sprintf("sutura_sql_reader_%d", rand.Uint64())
	password := fmt.Sprintf("pw%d", rand.Uint64())
	d.Exec(t, fmt.Sprintf(`CREATE ROLE %s LOGIN PASSWORD '%s'`, reader, password))
	t.Cleanup(func() { d.Exec(t, `DROP OWNED BY `+reader+`; DROP ROLE `+reader) })
	d.Exec(t, fmt.Sprintf(`GRANT CONNECT ON DATABASE %s TO %s; GRANT USAGE ON SCHEMA public TO %s; GRANT SELECT ON ALL TABLES IN SCHEMA public TO %s`,
		pc.Database, reader, reader, reader))
	dir := configure(reader, []byte(password))
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
	active := activeStatements(t, d, "net_sales")
	elapsed := askAndCancel(t, db, func() bool { return active() > 0 })
	require.Eventually(t, func() bool { return active() == 0 }, time.Second, 10*time.Millisecond, "the backend is idle within a second")
	t.Logf("slot back %v after cancel", elapsed)
}

// activeStatements returns a probe counting the statements other than its
// own that are running in d's database and whose text contains fragment. It
// holds one superuser connection for the whole test, so a probe polled every
// few milliseconds does not open a connection per poll (on a loaded machine
// that alone could outlast the window polled in), and it is safe to call
// from the goroutine assert.Eventually runs it on. A failed probe reports
// the error and counts -1, which satisfies no condition.
func activeStatements(t *testing.T, d *pgtest.Database, fragment string) func() int {
	cfg := d.Config("q", nil)
	conn, err := pgx.Connect(context.Background(), fmt.Sprintf("postgres://%s:%s@%s:%d/%s?sslmode=disable", cfg.User, cfg.Password, cfg.Host, cfg.Port, cfg.Database))
	require.NoError(t, err)
	var mu sync.Mutex
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		conn.Close(context.Background())
	})
	return func() int {
		mu.Lock()
		defer mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND state = 'active' AND strpos(query, $1) > 0 AND pid <> pg_backend_pid()`, fragment).Scan(&n); err != nil {
			t.Errorf("pg_stat_activity: %v", err)
			return -1
		}
		return n
	}
}

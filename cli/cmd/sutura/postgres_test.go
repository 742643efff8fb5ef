package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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
	engine "sutura.dev/exec-arrow"
	"sutura.dev/runtime"
)

var _ app.PrincipalExecutor = (*postgres.DB)(nil)

// demoOnPostgres loads the demo tables into a throwaway database and
// returns a Surface over it, and one over the embedded engine.
func demoOnPostgres(t *testing.T) (pg, files *app.Surface) {
	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	models := b.Definitions().Models
	d := pgtest.New(t)
	d.Load(t, demo.Data(), models)
	db, err := postgres.New(context.Background(), d.Config(demo.SourceAlias, models))
	require.NoError(t, err)
	t.Cleanup(db.Close)
	eng, err := engine.New(context.Background(), engine.Config{Source: demo.SourceAlias, Files: demo.Data(), Models: models})
	require.NoError(t, err)
	surface := func(sys app.DataSystem) *app.Surface {
		adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: 2, Timeout: time.Minute})
		require.NoError(t, err)
		s, err := app.New(app.Config{
			Catalog: fixedCatalog{b}, Admission: adm, Audit: discardAudit{}, RequestTimeout: 5 * time.Minute,
			Sources: map[string]app.Source{demo.SourceAlias: {System: sys, Posture: domain.SharedServiceUser}},
			Now:     func() time.Time { return time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC) },
		})
		require.NoError(t, err)
		return s
	}
	require.NoError(t, app.CheckBundle(context.Background(), b, map[string]app.Source{demo.SourceAlias: {System: db, Posture: domain.SharedServiceUser}}),
		"the demo's anchors reproduce on Postgres too")
	return surface(db), surface(eng)
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
	b := pg.Bundle()
	rng := rand.New(rand.NewPCG(2026, 11))
	outcomes := map[string]int{}
	for i := 0; i < 500; i++ {
		q := conformance.RandomQuestion(rng, b)
		raw, err := json.Marshal(q)
		require.NoError(t, err)
		question, err := domain.ParseQuestion(raw)
		require.NoError(t, err, "%s", raw)
		caller := app.Caller{Principal: domain.LocalOperator}
		a, aerr := pg.Answer(context.Background(), caller, question)
		e, eerr := files.Answer(context.Background(), caller, question)
		switch {
		case aerr != nil || eerr != nil:
			if !(errors.Is(aerr, domain.ErrZeroDenominator) && errors.Is(eerr, domain.ErrZeroDenominator)) {
				t.Fatalf("question %d %s: postgres error %v, engine error %v", i, raw, aerr, eerr)
			}
			outcomes["zero_denominator"]++
			continue
		case a.Kind() != e.Kind():
			t.Fatalf("question %d %s: postgres %s, engine %s", i, raw, describeOutcome(a), describeOutcome(e))
		case a.Refusal != nil:
			if a.Refusal.Code() != e.Refusal.Code() {
				t.Fatalf("question %d %s: postgres refused %s, engine %s", i, raw, a.Refusal.Code(), e.Refusal.Code())
			}
			outcomes[string(a.Refusal.Code())]++
			continue
		}
		outcomes["answer"]++
		if diff := compareRows(a.Answer, e.Answer); diff != "" {
			t.Fatalf("question %d %s: %s", i, raw, diff)
		}
	}
	t.Logf("outcomes of 500 questions: %v", outcomes)
	require.Greater(t, outcomes["answer"], 300, "most random questions are answered, so the comparison means something")
}

func describeOutcome(o domain.Outcome) string {
	if o.Refusal != nil {
		return "refused " + string(o.Refusal.Code())
	}
	return fmt.Sprintf("answered %d rows", len(o.Answer.Rows))
}

func compareRows(a, e *domain.Answer) string {
	if len(a.Rows) != len(e.Rows) {
		return fmt.Sprintf("postgres %d rows, engine %d", len(a.Rows), len(e.Rows))
	}
	for i := range a.Rows {
		for j := range a.Rows[i] {
			x, y := a.Rows[i][j], e.Rows[i][j]
			if x.Render() == y.Render() {
				continue
			}
			fx, err1 := strconv.ParseFloat(x.Render(), 64)
			fy, err2 := strconv.ParseFloat(y.Render(), 64)
			if err1 == nil && err2 == nil && x.Kind() == domain.KindFloat && y.Kind() == domain.KindFloat &&
				math.Abs(fx-fy) <= 1e-9*math.Max(math.Abs(fx), math.Abs(fy)) {
				continue
			}
			return fmt.Sprintf("row %d column %s: postgres %s, engine %s", i, a.Columns[j].Name, x.Render(), y.Render())
		}
	}
	return ""
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
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: 1, Timeout: time.Second})
	require.NoError(t, err)
	s, err := app.New(app.Config{Catalog: fixedCatalog{b}, Admission: adm, Audit: discardAudit{}, RequestTimeout: time.Minute,
		Sources: map[string]app.Source{demo.SourceAlias: {System: db, Posture: domain.SharedServiceUser}}})
	require.NoError(t, err)
	q, err := domain.ParseQuestion([]byte(year2025))
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := s.Answer(ctx, app.Caller{Principal: domain.LocalOperator}, q); done <- err }()
	active := func() int {
		var n int
		row := pgtestQuery(t, d, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE '%net_sales%' AND pid <> pg_backend_pid()`)
		require.NoError(t, row.Scan(&n))
		return n
	}
	require.Eventually(t, func() bool { return active() > 0 }, 10*time.Second, 20*time.Millisecond, "the slow statement runs at the server")
	require.Equal(t, 1, adm.InUse())
	cancelled := time.Now()
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	require.Eventually(t, func() bool { return active() == 0 && adm.InUse() == 0 }, time.Second, 10*time.Millisecond,
		"the backend is idle and the slot is back within a second")
	t.Logf("backend idle and slot back %v after cancel", time.Since(cancelled))
}

// pgtestQuery runs one query as the superuser in d's database.
func pgtestQuery(t *testing.T, d *pgtest.Database, sql string) pgx.Row {
	cfg := d.Config("q", nil)
	conn, err := pgx.Connect(context.Background(), fmt.Sprintf("postgres://%s:%s@%s:%d/%s?sslmode=disable", cfg.User, cfg.Password, cfg.Host, cfg.Port, cfg.Database))
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn.QueryRow(context.Background(), sql)
}

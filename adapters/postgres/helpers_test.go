package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	postgres "sutura.dev/adapters/postgres"
	"sutura.dev/adapters/postgres/pgtest"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/domain"
)

// The tests run against a real PostgreSQL named by SUTURA_PG_URL, a
// superuser connection (scripts/pg start prints one). Each run creates its
// own database and roles, with a random suffix, and drops them at the end,
// so runs never see each other's data. Without SUTURA_PG_URL every test
// that needs the database says NOT RUN and skips, or fails when
// SUTURA_REQUIRE_TIERS lists postgres (CI).

const (
	source  = sqltest.DemoSource
	dataDir = sqltest.DemoData
)

// fixture is what one run creates on a server.
type fixture struct {
	admin  *pgx.ConnConfig // a superuser connection
	db     string          // the run's database
	suffix string          // of every role name
	pw     string          // password of the login roles
	dir    string          // the cluster directory, on a cluster of the run's own
}

// role returns the run's name for a role of the tests.
func (f *fixture) role(name string) string { return "sutura_" + f.suffix + "_" + name }

var (
	fxOnce sync.Once
	fx     *fixture
	fxErr  error

	ownOnce sync.Once
	own     *fixture
	ownDir  string
	ownErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fx != nil {
		if err := fx.teardown(); err != nil {
			fmt.Fprintln(os.Stderr, "teardown:", err)
		}
	}
	if ownDir != "" {
		if out, err := exec.Command("../../scripts/pg", "stop", ownDir).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "scripts/pg stop: %v: %s\n", err, out)
		}
	}
	os.Exit(code)
}

// ownCluster returns a fixture on a cluster of the run's own, started with
// scripts/pg start and stopped at the end: for the tests that stop the
// server or change its configuration, which must not disturb anything else
// using the shared server at the same time (other packages' tests run in
// parallel). It runs where the shared tests run (SUTURA_PG_URL is set) and
// needs scripts/pg to be able to start a cluster (PostgreSQL installed, or
// root to install it).
func ownCluster(t *testing.T) *fixture {
	t.Helper()
	pgtest.URL(t)
	ownOnce.Do(func() { own, ownErr = startOwnCluster() })
	if ownErr != nil && !pgtest.Tier.Required() {
		t.Skipf("NOT RUN: postgres, a cluster of the test's own (%v)", ownErr)
	}
	require.NoError(t, ownErr, "starting a cluster with scripts/pg")
	return own
}

func startOwnCluster() (*fixture, error) {
	cmd := exec.Command("../../scripts/pg", "start")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("scripts/pg start: %w: %s", err, stderr.String())
	}
	vars := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, _ := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		vars[k] = strings.Trim(v, "'")
	}
	ownDir = vars["SUTURA_PG_DIR"]
	f, err := setup(vars["SUTURA_PG_URL"])
	if err != nil {
		return nil, err
	}
	f.dir = ownDir
	return f, nil
}

// needDB skips t when no database is configured (fails it when CI
// requires the postgres tier) and returns the run's fixture, creating it
// on first use.
func needDB(t *testing.T) *fixture {
	t.Helper()
	url := pgtest.URL(t)
	fxOnce.Do(func() { fx, fxErr = setup(url) })
	require.NoError(t, fxErr, "setting up the test database")
	return fx
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// connect opens a superuser connection to database (the admin URL's own
// database when empty).
func (f *fixture) connect(ctx context.Context, database string) (*pgx.Conn, error) {
	cc := f.admin.Copy()
	if database != "" {
		cc.Database = database
	}
	return pgx.ConnectConfig(ctx, cc)
}

// connectAs opens a connection to the run's database as the login role
// user, whose password is the run's.
func (f *fixture) connectAs(ctx context.Context, user string) (*pgx.Conn, error) {
	cc := f.admin.Copy()
	cc.Database, cc.User, cc.Password = f.db, user, f.pw
	return pgx.ConnectConfig(ctx, cc)
}

// exec runs statements as the superuser in the run's database.
func (f *fixture) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := f.connect(ctx, f.db)
	require.NoError(t, err)
	defer c.Close(ctx)
	_, err = c.Exec(ctx, sql, args...)
	require.NoError(t, err)
}

func setup(url string) (*fixture, error) {
	admin, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("SUTURA_PG_URL: %w", err)
	}
	f := &fixture{admin: admin, suffix: randomHex(4), pw: randomHex(12)}
	f.db = "sutura_test_" + f.suffix
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := f.connect(ctx, "")
	if err != nil {
		return nil, err
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE DATABASE "+f.db+" TEMPLATE template0 ENCODING 'UTF8'"); err != nil {
		return nil, err
	}
	// Cluster-wide roles: a read-only service user, a service user that
	// impersonates (NOINHERIT: it has no privilege of its roles unless it
	// sets one), the caller roles, and a role nobody may set.
	roles := fmt.Sprintf(`
CREATE ROLE %[1]s LOGIN PASSWORD '%[2]s';
CREATE ROLE %[3]s LOGIN NOINHERIT PASSWORD '%[2]s';
CREATE ROLE %[4]s NOLOGIN; CREATE ROLE %[5]s NOLOGIN; CREATE ROLE %[6]s NOLOGIN; CREATE ROLE %[7]s NOLOGIN;
GRANT %[4]s, %[5]s, %[6]s TO %[3]s;`,
		f.role("reader"), f.pw, f.role("svc"), f.role("online"), f.role("store"), f.role("none"), f.role("other"))
	if _, err := c.Exec(ctx, roles); err != nil {
		return f, err
	}
	d, err := f.connect(ctx, f.db)
	if err != nil {
		return f, err
	}
	defer d.Close(ctx)
	if _, err := d.Exec(ctx, demoDDL); err != nil {
		return f, err
	}
	for _, table := range demoTables {
		file, err := os.Open(filepath.Join(dataDir, table+".csv"))
		if err != nil {
			return f, err
		}
		_, err = d.PgConn().CopyFrom(ctx, file, "COPY "+table+" FROM STDIN WITH (FORMAT csv, HEADER true)")
		file.Close()
		if err != nil {
			return f, fmt.Errorf("COPY %s: %w", table, err)
		}
	}
	more := fmt.Sprintf(`
ANALYZE;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO %[1]s;
-- A slow question: a view over a cross join of 2e5 x 2e5 rows, which no
-- test lets finish.
CREATE TABLE slow_base AS SELECT i FROM generate_series(1, 200000) AS i;
CREATE VIEW slow_orders AS
  SELECT DATE '2025-01-01' + (a.i %% 365) AS order_date, (a.i + b.i)::bigint AS amount
  FROM slow_base a CROSS JOIN slow_base b;
GRANT SELECT ON slow_base, slow_orders TO %[1]s;
-- Row-level security: one table, a policy per caller role.
CREATE SCHEMA rls;
CREATE TABLE rls.orders AS SELECT order_id, order_date, channel, status FROM orders;
ALTER TABLE rls.orders ENABLE ROW LEVEL SECURITY;
CREATE POLICY online_only ON rls.orders FOR SELECT TO %[2]s USING (channel = 'online');
CREATE POLICY store_only ON rls.orders FOR SELECT TO %[3]s USING (channel = 'store');
GRANT USAGE ON SCHEMA rls TO %[2]s, %[3]s, %[4]s;
GRANT SELECT ON rls.orders TO %[2]s, %[3]s;`,
		f.role("reader"), f.role("online"), f.role("store"), f.role("none"))
	if _, err := d.Exec(ctx, more); err != nil {
		return f, err
	}
	return f, nil
}

func (f *fixture) teardown() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := f.connect(ctx, "")
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+f.db+" WITH (FORCE)"); err != nil {
		return err
	}
	for _, r := range []string{"reader", "svc", "online", "store", "none", "other"} {
		if _, err := c.Exec(ctx, "DROP ROLE IF EXISTS "+f.role(r)); err != nil {
			return err
		}
	}
	return nil
}

// config is the adapter's configuration for the run's database, as the
// read-only service user over TCP with its password.
func (f *fixture) config() postgres.Config {
	return postgres.Config{
		Source: source, Server: postgres.Server{Host: f.admin.Host, Port: int(f.admin.Port), Database: f.db,
			User: f.role("reader"), Password: []byte(f.pw), TransportMode: postgres.Plaintext},
		Models: demoModels(source),
	}
}

// open opens the source cfg describes and closes it when t ends.
func open(t *testing.T, cfg postgres.Config) *postgres.DB { return sqltest.Open(t, postgres.New, cfg) }

// activity is one backend of pg_stat_activity.
type activity struct {
	pid   int32
	state string
	query string
}

// backends lists the run's source's backends (application_name
// sutura/<source>) other than idle ones, seen from a superuser connection.
func (f *fixture) backends(ctx context.Context, c *pgx.Conn) ([]activity, error) {
	rows, err := c.Query(ctx, `SELECT pid, coalesce(state, ''), query FROM pg_stat_activity
WHERE datname = $1 AND (application_name = $2 OR leader_pid IS NOT NULL) AND pid <> pg_backend_pid()`, f.db, "sutura/"+source)
	if err != nil {
		return nil, err
	}
	var out []activity
	var a activity
	_, err = pgx.ForEachRow(rows, []any{&a.pid, &a.state, &a.query}, func() error {
		if a.state != "idle" {
			out = append(out, a)
		}
		return nil
	})
	return out, err
}

// waitActive waits until a backend of the source runs a statement holding
// marker, and returns its pid.
func (f *fixture) waitActive(t *testing.T, c *pgx.Conn, marker string) int32 {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		bs, err := f.backends(context.Background(), c)
		require.NoError(t, err)
		for _, b := range bs {
			if b.state == "active" && strings.Contains(b.query, marker) {
				return b.pid
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no backend of the source ran the statement within 10 s")
	return 0
}

// waitIdle waits up to within for no backend of the source (parallel
// workers included) to be running anything, and returns how long it took.
func (f *fixture) waitIdle(t *testing.T, c *pgx.Conn, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		bs, err := f.backends(context.Background(), c)
		require.NoError(t, err)
		if len(bs) == 0 {
			return time.Since(start)
		}
		if time.Since(start) > within {
			t.Fatalf("backends still busy after %v: %+v", within, bs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The helpers every SQL adapter's tests share.
var (
	cols        = sqltest.Cols
	compile     = sqltest.Compile
	rendered    = sqltest.Rendered
	refusalCode = sqltest.RefusalCode
)

// slowQuestion asks slowBundle's metric.
const slowQuestion = sqltest.SlowQuestion

// slowBundle is a catalogue of one metric over the slow_orders view (a
// cross join of 4e10 rows): a question no test lets finish.
func slowBundle(t *testing.T) *domain.Bundle { return sqltest.SlowBundle(t, source) }

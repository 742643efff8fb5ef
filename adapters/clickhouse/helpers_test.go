package clickhouse_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/clickhouse"
	"sutura.dev/adapters/clickhouse/chtest"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
)

// The tests run against a real ClickHouse server named by SUTURA_CH_URL
// (scripts/ch start prints one; CI runs Debian's 18.16). Each test makes
// its own database with a random name and drops it at the end. Without
// SUTURA_CH_URL every test that needs the server says NOT RUN and skips,
// or fails when SUTURA_REQUIRE_TIERS lists clickhouse (CI). The full
// conformance corpus runs in the chdbtest module, through the application.

const (
	source  = sqltest.DemoSource
	dataDir = sqltest.DemoData
)

// dataSystem, validator and costReporter are app's ports, restated: this
// module may not import app.
type dataSystem interface {
	Execute(ctx context.Context, plan *domain.Plan) (*domain.RowSet, error)
}

type validator interface {
	Validate(ctx context.Context) error
}

type costReporter interface {
	ExecuteWithCost(ctx context.Context, plan *domain.Plan) (*domain.RowSet, domain.Cost, error)
}

type principalExecutor interface {
	ExecuteAs(ctx context.Context, principal domain.Principal, plan *domain.Plan) (*domain.RowSet, error)
}

type sqlRunner interface {
	RunSQL(ctx context.Context, statement string, rowCap int) (*domain.RowSet, error)
}

var (
	_ dataSystem        = (*clickhouse.DB)(nil)
	_ validator         = (*clickhouse.DB)(nil)
	_ costReporter      = (*clickhouse.DB)(nil)
	_ principalExecutor = (*clickhouse.DB)(nil)
	_ sqlRunner         = (*clickhouse.DB)(nil)
)

// demoModels are the demo catalogue's models (examples/demo/catalog).
func demoModels() []domain.Model { return conformance.DemoDefinitions(source).Models }

// demoBundle is the demo catalogue, mirrored by app/conformance.
func demoBundle(t testing.TB) *domain.Bundle {
	t.Helper()
	b, err := conformance.DemoBundle(source)
	require.NoError(t, err)
	return b
}

// loaded returns a database with the demo tables and a slow view, made
// for t.
func loaded(t *testing.T) *chtest.Database {
	t.Helper()
	d := chtest.New(t)
	d.Load(t, os.DirFS(dataDir), demoModels())
	// A question no test lets finish: 10^12 generated rows.
	d.Exec(t, "CREATE VIEW "+d.Name+".slow_orders AS SELECT toDate('2025-01-01') + (number % 365) AS order_date, "+
		"toInt64(number % 977) AS amount FROM system.numbers LIMIT 1000000000000")
	return d
}

// open opens the source cfg describes and closes it when t ends.
func open(t testing.TB, cfg clickhouse.Config) *clickhouse.DB {
	return sqltest.Open(t, clickhouse.New, cfg)
}

// processes lists the statements of sutura (query ids sutura-...) the
// server is running, other than the one asking.
func processes(t testing.TB, admin driver.Conn) []string {
	t.Helper()
	rows, err := admin.Query(context.Background(),
		"SELECT query_id, query FROM system.processes WHERE startsWith(query_id, 'sutura-') AND query NOT LIKE '%system.processes%'")
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, q string
		require.NoError(t, rows.Scan(&id, &q))
		out = append(out, id+": "+q)
	}
	require.NoError(t, rows.Err())
	return out
}

// waitRunning waits until the server runs a statement of sutura holding
// marker.
func waitRunning(t testing.TB, admin driver.Conn, marker string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, p := range processes(t, admin) {
			if strings.Contains(p, marker) {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the server did not run the statement within 10 s")
}

// chScript runs scripts/ch with args and returns its standard output.
func chScript(t testing.TB, args ...string) string {
	t.Helper()
	cmd := exec.Command("../../scripts/ch", args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "scripts/ch %s: %s", strings.Join(args, " "), stderr.String())
	return string(out)
}

// exports parses the export lines scripts/ch start prints.
func exports(out string) map[string]string {
	vars := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		k, v, _ := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		vars[k] = strings.Trim(v, "'")
	}
	return vars
}

// The helpers every SQL adapter's tests share.
var (
	cols        = sqltest.Cols
	rendered    = sqltest.Rendered
	refusalCode = sqltest.RefusalCode
)

// slowQuestion asks slowBundle's metric.
const slowQuestion = sqltest.SlowQuestion

// compile compiles a wire question against b as the local operator.
func compile(t testing.TB, b *domain.Bundle, question string) *domain.Plan {
	t.Helper()
	return sqltest.Compile(t, b, domain.LocalOperator, question)
}

// slowBundle is one metric over the slow view.
func slowBundle(t testing.TB) *domain.Bundle { return sqltest.SlowBundle(t, source) }

package main

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/adapters/postgres"
	"sutura.dev/adapters/postgres/pgtest"
	"sutura.dev/examples/demo"
)

// TestBudgetAcrossReplicas (docs/contract.md §15): two `sutura serve`
// processes share one PostgreSQL ledger and one caller's budget of 20
// questions an hour. Driven concurrently by 16 callers, together they
// answer at least 20 questions and never more than 20 plus the questions
// in flight; after that every question is refused budget_exhausted with a
// Retry-After, on both; a restarted process keeps the window; and the
// ledger's row holds exactly the answers given.
func TestBudgetAcrossReplicas(t *testing.T) {
	d := pgtest.New(t)
	d.Load(t, demo.Data(), storeModelsOf(t))
	pc := d.Config("warehouse", nil)
	dir := federatedDemoConfig(t, fmt.Sprintf("{kind: postgres, posture: shared-service-user, host: %s, port: %d, database: %s, user: %s, password_file: pgpass, transport_mode: plaintext}",
		pc.Host, pc.Port, pc.Database, pc.User), map[string][]byte{"pgpass": pc.Password})
	const budget = 20
	env := []string{"SUTURA_CONFIG_DIR=" + dir,
		"SUTURA__GOVERNANCE__BUDGET__WINDOW_SECONDS=3600",
		"SUTURA__GOVERNANCE__BUDGET__MAX_SCANNED_BYTES=1000000000000",
		"SUTURA__GOVERNANCE__BUDGET__MAX_QUESTIONS=" + strconv.Itoa(budget),
		"SUTURA__GOVERNANCE__BUDGET_LEDGER=postgres",
		"SUTURA__GOVERNANCE__BUDGET_LEDGER_SOURCE=warehouse",
	}
	replicas := []*served{serve(t, env...), serve(t, env...)}

	const callers = 16
	var answered, refused atomic.Int64
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			s := replicas[i%len(replicas)]
			for {
				status, header, body := s.do(t, "POST", "/v1/query", year2025)
				switch status {
				case 200:
					answered.Add(1)
					continue
				case 429:
					assert.Contains(t, body, `"code":"budget_exhausted"`)
					secs, err := strconv.Atoi(header.Get("Retry-After"))
					assert.NoError(t, err)
					assert.Positive(t, secs)
					assert.LessOrEqual(t, secs, 3600)
					refused.Add(1)
				default:
					t.Errorf("status %d: %s", status, body)
				}
				return
			}
		})
	}
	wg.Wait()
	n := answered.Load()
	t.Logf("answered %d of a budget of %d with %d callers on 2 replicas; %d refused", n, budget, callers, refused.Load())
	assert.GreaterOrEqual(t, n, int64(budget), "the budget is used")
	assert.LessOrEqual(t, n, int64(budget+callers), "never more than the budget plus the questions in flight")
	assert.Equal(t, int64(callers), refused.Load())

	// The ledger holds every answer, once.
	ctx := context.Background()
	cc, err := pgx.ParseConfig(fmt.Sprintf("postgres://%s@%s:%d/%s", pc.User, pc.Host, pc.Port, pc.Database))
	require.NoError(t, err)
	cc.Password = string(pc.Password)
	c, err := pgx.ConnectConfig(ctx, cc)
	require.NoError(t, err)
	defer c.Close(ctx)
	var questions int64
	require.NoError(t, c.QueryRow(ctx, "SELECT questions FROM "+postgres.LedgerTable+" WHERE subject = 'local-operator'").Scan(&questions))
	assert.Equal(t, n, questions)

	// A restarted replica keeps the window; a dry run says so and is free.
	_ = replicas[0].cmd.Process.Kill()
	_ = replicas[0].cmd.Wait()
	again := serve(t, env...)
	status, header, body := again.do(t, "POST", "/v1/query", year2025)
	assert.Equal(t, 429, status, body)
	assert.NotEmpty(t, header.Get("Retry-After"))
	status, _, body = again.do(t, "POST", "/v1/query", year2025[:len(year2025)-1]+`,"dry_run":true}`)
	assert.Equal(t, 200, status, body)
	assert.Contains(t, body, `"would_refuse":"budget_exhausted"`)
	status, _, body = again.do(t, "GET", "/ready", "")
	assert.Equal(t, 200, status, body)
	require.NoError(t, c.QueryRow(ctx, "SELECT questions FROM "+postgres.LedgerTable+" WHERE subject = 'local-operator'").Scan(&questions))
	assert.Equal(t, n, questions, "refusals and dry runs are not debited")
}

// TestBudgetLedgerUnreachable: a PostgreSQL ledger on a cluster of the
// test's own, stopped while `sutura serve` runs: every question is refused
// unavailable (never answered unmetered) and /ready says why; once the
// cluster is back, questions are answered again. It stops only its own
// cluster.
func TestBudgetLedgerUnreachable(t *testing.T) {
	d := pgtest.New(t) // where the postgres tier runs
	d.Load(t, demo.Data(), storeModelsOf(t))
	cmd := exec.Command("../../../scripts/pg", "start")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil && !pgtest.Tier.Required() {
		t.Skipf("NOT RUN: postgres, a cluster of the test's own (scripts/pg start: %v: %s)", err, stderr.String())
	}
	require.NoError(t, err, "scripts/pg start: %s", stderr.String())
	vars := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, _ := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		vars[k] = strings.Trim(v, "'")
	}
	own := vars["SUTURA_PG_DIR"]
	require.NotEmpty(t, own)
	t.Cleanup(func() { faultScript(t, "pg", "stop", own) })
	lc, err := pgx.ParseConfig(vars["SUTURA_PG_URL"])
	require.NoError(t, err)

	pc := d.Config("warehouse", nil)
	dir := federatedDemoConfig(t, fmt.Sprintf("{kind: postgres, posture: shared-service-user, host: %s, port: %d, database: %s, user: %s, password_file: pgpass, transport_mode: plaintext}",
		pc.Host, pc.Port, pc.Database, pc.User), map[string][]byte{"pgpass": pc.Password, "ledgerpass": []byte(lc.Password)})
	s := serve(t, "SUTURA_CONFIG_DIR="+dir,
		"SUTURA__GOVERNANCE__BUDGET__WINDOW_SECONDS=60",
		"SUTURA__GOVERNANCE__BUDGET__MAX_SCANNED_BYTES=1000000000",
		"SUTURA__GOVERNANCE__BUDGET__MAX_QUESTIONS=10",
		"SUTURA__GOVERNANCE__BUDGET_LEDGER=postgres",
		"SUTURA__GOVERNANCE__BUDGET_LEDGER_SOURCE=ledger",
		"SUTURA__GOVERNANCE__SOURCE_CEILING=3",
		"SUTURA__SOURCES__LEDGER__KIND=postgres",
		"SUTURA__SOURCES__LEDGER__POSTURE=shared-service-user",
		"SUTURA__SOURCES__LEDGER__HOST="+lc.Host,
		"SUTURA__SOURCES__LEDGER__PORT="+strconv.Itoa(int(lc.Port)),
		"SUTURA__SOURCES__LEDGER__DATABASE="+lc.Database,
		"SUTURA__SOURCES__LEDGER__USER="+lc.User,
		"SUTURA__SOURCES__LEDGER__PASSWORD_FILE=ledgerpass",
		"SUTURA__SOURCES__LEDGER__TRANSPORT_MODE=plaintext",
	)
	status, _, body := s.do(t, "POST", "/v1/query", year2025)
	require.Equal(t, 200, status, body)

	faultScript(t, "pg", "down", own)
	status, _, body = s.do(t, "POST", "/v1/query", year2025)
	assert.Equal(t, 503, status, body)
	assert.Contains(t, body, `"code":"unavailable"`)
	assert.Contains(t, body, "budget ledger")
	status, _, body = s.do(t, "GET", "/ready", "")
	assert.Equal(t, 503, status, body)
	assert.Contains(t, body, "budget ledger")

	faultScript(t, "pg", "up", own)
	require.Eventually(t, func() bool {
		status, _, _ := s.do(t, "POST", "/v1/query", year2025)
		return status == 200
	}, 30*time.Second, 200*time.Millisecond, "answers resume once the ledger is back")
	status, _, body = s.do(t, "GET", "/ready", "")
	assert.Equal(t, 200, status, body)
}

//go:build cgo

package duckdb_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	duckdb "sutura.dev/adapters/duckdb"
	"sutura.dev/adapters/duckdb/ducktest"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/domain"
)

// slowSetup is a view no question over it can finish: a cross join of
// 200,000 × 200,000 rows.
const slowSetup = `CREATE VIEW slow_orders AS
  SELECT DATE '2025-01-01' + CAST(a.range % 365 AS INTEGER) AS order_date, a.range + b.range AS amount
  FROM range(200000) AS a CROSS JOIN range(200000) AS b`

// slowSource opens a source over the slow view, with one connection, so a
// statement left running would keep the next call waiting.
func slowSource(t *testing.T) (*duckdb.DB, *domain.Plan) {
	t.Helper()
	models := []domain.Model{{Name: "slow_orders", Source: source, Table: "slow_orders",
		Columns: cols("order_date", "date", "amount", "integer")}}
	cfg := ducktest.Config(source, demoFile(t, slowSetup), models)
	cfg.MaxConns = 1
	cfg.Threads = 2
	db := open(t, cfg)
	defs := domain.Definitions{
		Models: models,
		Metrics: []domain.Metric{{Name: "total", Model: "slow_orders", TimeColumn: "order_date", Description: "total",
			Measure: &domain.Measure{Simple: &domain.Term{Aggregate: domain.Sum, Column: "amount"}},
			Grains:  []domain.Grain{domain.Month}}},
	}
	b, err := domain.NewBundle("slow", defs, domain.Knowledge{})
	require.NoError(t, err)
	return db, compile(t, b, `{"metrics":["total"],"grain":"month","range":{"start":"2025-01-01","end":"2026-01-01"}}`)
}

// cpu is the CPU time the process has used so far.
func cpu(t *testing.T) time.Duration {
	var ru syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// stopped checks that no statement is still running in the process: a
// quarter of a second after the call returned (tasks DuckDB had started
// end at their next vector), the process uses almost no CPU for half a
// second, where the slow statement used its threads, and the source's one
// connection answers at once.
func stopped(t *testing.T, db *duckdb.DB) {
	t.Helper()
	time.Sleep(250 * time.Millisecond)
	before := cpu(t)
	time.Sleep(500 * time.Millisecond)
	used := cpu(t) - before
	assert.Less(t, used, 50*time.Millisecond, "the statement no longer uses the CPU")
	start := time.Now()
	require.NoError(t, db.Ping(context.Background()))
	assert.Less(t, time.Since(start), 500*time.Millisecond, "the connection is free")
}

// TestCancellationInterruptsTheStatement cancels a question that cannot
// finish: the call returns ctx's error within a second, DuckDB stops the
// statement (the CPU goes quiet), and the one connection is free again.
func TestCancellationInterruptsTheStatement(t *testing.T) {
	db, plan := slowSource(t)
	// Should the test fail before it cancels, the statement must not run
	// on into the next test: Background's cleanup cancels it.
	done, cancel := sqltest.Background(t, db.Execute, plan)
	// Let the statement get going: wait until it has used 50 ms of CPU
	// (on a busy machine that takes longer than on an idle one).
	before, giveUp := cpu(t), time.Now().Add(30*time.Second)
	for cpu(t)-before < 50*time.Millisecond {
		if time.Now().After(giveUp) {
			t.Fatal("the statement used less than 50 ms of CPU in 30 s")
		}
		select {
		case err := <-done:
			t.Fatalf("the statement ended before it was cancelled: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancelled := time.Now()
	cancel()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
		assert.Less(t, time.Since(cancelled), time.Second)
		t.Logf("returned %v after cancel", time.Since(cancelled))
	case <-time.After(5 * time.Second):
		t.Fatal("the call did not return within 5 s of the cancellation")
	}
	stopped(t, db)
}

// TestDeadlineInterruptsTheStatement gives a question that cannot finish
// a budget of 400 ms: it is refused as deadline_exceeded within a second
// of the deadline, and the statement stops.
func TestDeadlineInterruptsTheStatement(t *testing.T) {
	db, plan := slowSource(t)
	sqltest.RefusesAtDeadline(t, db.Execute, plan, 400*time.Millisecond, time.Second)
	stopped(t, db)
}

// TestDefaultTimeout applies Config.DefaultTimeout to a context without a
// deadline.
func TestDefaultTimeout(t *testing.T) {
	models := []domain.Model{{Name: "slow_orders", Source: source, Table: "slow_orders",
		Columns: cols("order_date", "date", "amount", "integer")}}
	cfg := ducktest.Config(source, demoFile(t, slowSetup), models)
	cfg.DefaultTimeout = 300 * time.Millisecond
	db := open(t, cfg)
	start := time.Now()
	_, err := db.RunSQL(context.Background(), "SELECT sum(amount) FROM slow_orders", 10)
	require.Equal(t, domain.DeadlineExceeded, refusalCode(err), "error: %v", err)
	assert.Less(t, time.Since(start), 1300*time.Millisecond)
}

// TestRunSQLCancellation cancels a run_sql statement that cannot finish.
func TestRunSQLCancellation(t *testing.T) {
	db, _ := slowSource(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := db.RunSQL(ctx, "SELECT count(*) FROM slow_orders WHERE amount % 7 = 3", 10)
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), 1300*time.Millisecond)
	stopped(t, db)
}

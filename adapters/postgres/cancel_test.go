package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	postgres "sutura.dev/adapters/postgres"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/domain"
)

// TestCancelStopsTheStatementAtTheServer starts a slow question, cancels
// its context 200 ms later, and watches pg_stat_activity: the backend (and
// any parallel worker) must be idle again within one second, Execute must
// return the context's error as promptly (an admission slot held for the
// call would be back), and the pooled connection must answer the next
// question.
func TestCancelStopsTheStatementAtTheServer(t *testing.T) {
	f := needDB(t)
	cfg := f.config()
	cfg.MaxConns = 1 // the next question must reuse the cancelled connection
	db := open(t, cfg)
	plan := compile(t, slowBundle(t), domain.LocalOperator, slowQuestion)
	watch, err := f.connect(context.Background(), f.db)
	require.NoError(t, err)
	defer watch.Close(context.Background())

	done, cancel := sqltest.Background(t, db.Execute, plan)
	pid := f.waitActive(t, watch, "slow_orders")
	time.Sleep(200 * time.Millisecond)
	cancelled := time.Now()
	cancel()

	idle := f.waitIdle(t, watch, time.Second)
	var execErr error
	select {
	case execErr = <-done:
	case <-time.After(time.Second):
		t.Fatal("Execute did not return within 1 s of the cancellation")
	}
	returned := time.Since(cancelled)
	require.ErrorIs(t, execErr, context.Canceled)
	t.Logf("backend %d idle %v after the cancellation; Execute returned after %v", pid, idle, returned)

	// The backend is still there, idle: the statement was cancelled, the
	// connection was kept and goes on serving.
	var state string
	require.NoError(t, watch.QueryRow(context.Background(), "SELECT state FROM pg_stat_activity WHERE pid = $1", pid).Scan(&state))
	require.Equal(t, "idle", state)
	rs, err := db.Execute(context.Background(), compile(t, demoBundle(t, source), domain.LocalOperator,
		`{"metrics":["order_count"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`))
	require.NoError(t, err)
	require.Equal(t, [][]string{{"2025-01-01", "4841"}}, rendered(rs))
}

// TestDeadlineIsARefusal runs the slow question with a 300 ms budget: it
// is refused as deadline_exceeded promptly and nothing keeps running.
func TestDeadlineIsARefusal(t *testing.T) {
	f := needDB(t)
	db := open(t, f.config())
	plan := compile(t, slowBundle(t), domain.LocalOperator, slowQuestion)
	watch, err := f.connect(context.Background(), f.db)
	require.NoError(t, err)
	defer watch.Close(context.Background())

	sqltest.RefusesAtDeadline(t, db.Execute, plan, 300*time.Millisecond, time.Second)
	f.waitIdle(t, watch, time.Second)
}

// TestStatementTimeoutIsTheBudget shows that the server itself holds the
// deadline: statement_timeout is what is left of the context's budget,
// and it alone stops a statement (here the context is left without
// cancellation, as if the process could not send a cancel request).
func TestStatementTimeoutIsTheBudget(t *testing.T) {
	f := needDB(t)
	db := open(t, f.config())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rs, err := db.RunSQL(ctx, "SELECT current_setting('statement_timeout'), current_setting('transaction_read_only'), current_setting('TimeZone'), "+
		"current_setting('jit'), current_setting('client_connection_check_interval'), current_setting('application_name')", 1)
	require.NoError(t, err)
	got := rendered(rs)[0]
	d, err := time.ParseDuration(got[0])
	require.NoError(t, err, "statement_timeout %q", got[0])
	require.InDelta(t, 20, d.Seconds(), 1)
	require.Equal(t, []string{"on", "UTC", "off", "1s", "sutura/demo"}, got[1:])

	// A context without a deadline gets the configured default.
	cfg := f.config()
	cfg.DefaultTimeout = 400 * time.Millisecond
	short := open(t, cfg)
	start := time.Now()
	_, err = short.Execute(context.WithoutCancel(context.Background()), compile(t, slowBundle(t), domain.LocalOperator, slowQuestion))
	require.Equal(t, domain.DeadlineExceeded, refusalCode(err), "error: %v", err)
	require.Less(t, time.Since(start), 1500*time.Millisecond)
}

// TestRowCapRefusesWhileReading asks the slow view for its rows through
// run_sql: the row cap refuses at the 11th row and the statement is
// cancelled at the server instead of being read to its end.
func TestRowCapRefusesWhileReading(t *testing.T) {
	f := needDB(t)
	db := open(t, f.config())
	watch, err := f.connect(context.Background(), f.db)
	require.NoError(t, err)
	defer watch.Close(context.Background())
	start := time.Now()
	_, err = db.RunSQL(context.Background(), "SELECT * FROM slow_orders", 10)
	require.Equal(t, domain.ResultTooLarge, refusalCode(err), "error: %v", err)
	require.Less(t, time.Since(start), 2*time.Second)
	f.waitIdle(t, watch, time.Second)
	var pe *postgres.Error
	require.False(t, errors.As(err, &pe))
}

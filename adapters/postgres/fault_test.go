package postgres_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"sutura.dev/domain"
)

// pgScript runs scripts/pg with args.
func pgScript(t *testing.T, args ...string) {
	t.Helper()
	out, err := exec.Command("../../scripts/pg", args...).CombinedOutput()
	require.NoError(t, err, "scripts/pg %s: %s", strings.Join(args, " "), out)
}

// TestDatabaseDownAndBack stops the server while a question runs and
// while the pool holds idle connections, then starts it again: the running
// question and the questions asked while it is down fail as unreachable,
// with no driver text in what the application would show, and the first
// question after it is back is answered (the pool reconnects). It stops a
// cluster of its own.
func TestDatabaseDownAndBack(t *testing.T) {
	f := ownCluster(t)
	dir := f.dir
	down := false
	t.Cleanup(func() {
		if down {
			pgScript(t, "up", dir)
		}
	})
	cfg := f.config()
	cfg.MaxConns = 4
	db := open(t, cfg)
	ctx := context.Background()
	count := compile(t, demoBundle(t, source), domain.LocalOperator,
		`{"metrics":["order_count"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`)
	want := [][]string{{"2025-01-01", "4841"}}
	// Fill the pool with idle connections the restart will break.
	for range 4 {
		rs, err := db.Execute(ctx, count)
		require.NoError(t, err)
		require.Equal(t, want, rendered(rs))
	}

	slow := compile(t, slowBundle(t), domain.LocalOperator, slowQuestion)
	running := make(chan error, 1)
	go func() {
		_, err := db.Execute(ctx, slow)
		running <- err
	}()
	watch, err := f.connect(ctx, f.db)
	require.NoError(t, err)
	f.waitActive(t, watch, "slow_orders")
	watch.Close(ctx)

	pgScript(t, "down", dir)
	down = true
	var errs []error
	select {
	case err := <-running:
		errs = append(errs, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the running question did not end when the server stopped")
	}
	for range 2 {
		start := time.Now()
		_, err := db.Execute(ctx, count)
		require.Less(t, time.Since(start), 5*time.Second)
		errs = append(errs, err)
	}
	_, err = db.RunSQL(ctx, "SELECT 1", 1)
	errs = append(errs, err, db.Ping(ctx), db.Validate(ctx))
	for i, err := range errs {
		require.Error(t, err, "call %d", i)
		require.ErrorIs(t, err, domain.ErrUnavailable, "call %d: %v", i, err)
		require.Equal(t, "postgres source demo: the database cannot be reached", err.Error(), "call %d", i)
		var re *domain.RefusalError
		require.False(t, errors.As(err, &re), "a database that is down is a failure, not a refusal")
	}

	pgScript(t, "up", dir)
	down = false
	rs, err := db.Execute(ctx, count)
	require.NoError(t, err, "the first question after the restart")
	require.Equal(t, want, rendered(rs))
	require.NoError(t, db.Ping(ctx))
	require.NoError(t, db.Validate(ctx))
}

// TestTerminatedConnectionIsReplaced terminates the backend of the pool's
// idle connection (as a restart or an administrator would) and asks again
// at once, before the pool's own health check could notice: the question
// is run again on a fresh connection and answered.
func TestTerminatedConnectionIsReplaced(t *testing.T) {
	f := needDB(t)
	cfg := f.config()
	cfg.MaxConns = 1
	db := open(t, cfg)
	ctx := context.Background()
	count := compile(t, demoBundle(t, source), domain.LocalOperator,
		`{"metrics":["order_count"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`)
	_, err := db.Execute(ctx, count)
	require.NoError(t, err)

	admin, err := f.connect(ctx, f.db)
	require.NoError(t, err)
	defer admin.Close(ctx)
	var killed int
	require.NoError(t, admin.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
WHERE datname = $1 AND application_name = $2`, f.db, "sutura/"+source).Scan(&killed))
	require.Equal(t, 1, killed)
	time.Sleep(50 * time.Millisecond) // the backend is gone; the pooled connection does not know yet

	rs, err := db.Execute(ctx, count)
	require.NoError(t, err)
	require.Equal(t, [][]string{{"2025-01-01", "4841"}}, rendered(rs))
}

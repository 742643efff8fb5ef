package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	postgres "sutura.dev/adapters/postgres"
	"sutura.dev/domain"
)

func TestEstimateFromExplain(t *testing.T) {
	f := needDB(t)
	db := open(t, f.config())
	b := demoBundle(t, source)
	year := compile(t, b, domain.LocalOperator, `{"metrics":["order_count"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`)
	bytes, known, err := db.Estimate(context.Background(), year)
	require.NoError(t, err)
	require.True(t, known)
	assert.Positive(t, bytes)
	// The planner's estimate scales with what the question reads: rows
	// after the range's filter, and both sides of the slow view's join.
	month := compile(t, b, domain.LocalOperator, `{"metrics":["order_count"],"grain":"month","range":{"start":"2025-03-01","end":"2025-04-01"}}`)
	small, known, err := db.Estimate(context.Background(), month)
	require.NoError(t, err)
	require.True(t, known)
	assert.Less(t, small, bytes, "a month estimates less than a year")
	slow := compile(t, slowBundle(t), domain.LocalOperator, `{"metrics":["slow_total"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`)
	big, known, err := db.Estimate(context.Background(), slow)
	require.NoError(t, err)
	require.True(t, known)
	assert.Greater(t, big, 10*bytes, "the 200000-row base table of the view is estimated larger than the orders (%d)", big)
	t.Logf("order_count: %d bytes for a month, %d for a year; the slow view: %d", small, bytes, big)
}
func TestLedger(t *testing.T) {
	f := needDB(t)
	role := f.role("ledger")
	f.exec(t, "CREATE ROLE "+role+" LOGIN PASSWORD '"+f.pw+"'; GRANT CREATE, USAGE ON SCHEMA public TO "+role)
	t.Cleanup(func() {
		f.exec(t, "DROP TABLE IF EXISTS "+postgres.LedgerTable+"; REVOKE ALL ON SCHEMA public FROM "+role+"; DROP ROLE "+role)
	})
	cfg := f.config()
	cfg.User = role
	ctx := context.Background()
	l, err := postgres.NewLedger(ctx, cfg)
	require.NoError(t, err)
	defer l.Close()
	require.NoError(t, l.Ping(ctx), "the table was created")

	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	const window = time.Minute
	start, bytes, questions, err := l.Spent(ctx, "alice", t0, window)
	require.NoError(t, err)
	assert.True(t, start.Equal(t0))
	assert.Zero(t, bytes+questions)

	// Concurrent debits, as from several replicas, all land.
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() { assert.NoError(t, l.Debit(ctx, "alice", t0, window, 10)) })
	}
	wg.Wait()
	start, bytes, questions, err = l.Spent(ctx, "alice", t0.Add(time.Second), window)
	require.NoError(t, err)
	assert.True(t, start.Equal(t0))
	assert.Equal(t, int64(320), bytes)
	assert.Equal(t, int64(32), questions)

	// A second ledger on the same table (another replica, or a restart)
	// sees the same window.
	again, err := postgres.NewLedger(ctx, cfg)
	require.NoError(t, err)
	defer again.Close()
	_, bytes, _, err = again.Spent(ctx, "alice", t0.Add(2*time.Second), window)
	require.NoError(t, err)
	assert.Equal(t, int64(320), bytes)

	// A clock stepped back keeps the window; its end opens a new one.
	_, bytes, _, err = again.Spent(ctx, "alice", t0.Add(-time.Hour), window)
	require.NoError(t, err)
	assert.Equal(t, int64(320), bytes, "a clock stepped back never refunds")
	require.NoError(t, again.Debit(ctx, "alice", t0.Add(-time.Hour), window, 1))
	require.NoError(t, again.Debit(ctx, "alice", t0.Add(window), window, 5))
	start, bytes, questions, err = again.Spent(ctx, "alice", t0.Add(window+time.Second), window)
	require.NoError(t, err)
	assert.True(t, start.Equal(t0.Add(window)))
	assert.Equal(t, int64(5), bytes)
	assert.Equal(t, int64(1), questions)
}

func TestLedgerUnreachable(t *testing.T) {
	f := needDB(t)
	cfg := f.config()
	cfg.Port = 1 // nobody listens
	cfg.ConnectTimeout = time.Second
	ctx := context.Background()
	l, err := postgres.NewLedger(ctx, cfg)
	require.NoError(t, err, "a ledger down at start is not a start failure")
	defer l.Close()
	assert.ErrorIs(t, l.Ping(ctx), domain.ErrUnavailable)
	assert.ErrorIs(t, l.Debit(ctx, "alice", time.Now(), time.Minute, 1), domain.ErrUnavailable)
}

package clickhouse_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/clickhouse"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/domain"
)

// TestStatementKilledByOthers (issue 28): a statement of sutura that
// someone else stops at the server (an administrator's KILL QUERY) comes
// back as the statement's failure — domain.ErrRejected with ClickHouse's
// code 394, QUERY_WAS_CANCELLED — never as a server that cannot be
// reached, and it is not run again; the source answers on. Run through
// the application, a run_sql statement is then statement_failed and a
// certified question unavailable (docs/architecture.md §6: the statement
// of a certified question is sutura's, not the caller's to fix).
func TestStatementKilledByOthers(t *testing.T) {
	d := loaded(t)
	db := open(t, d.Config(source, nil))
	ctx := context.Background()
	kill := func() {
		t.Helper()
		waitRunning(t, d.Admin, "slow_orders")
		require.NoError(t, d.Admin.Exec(ctx, "KILL QUERY WHERE startsWith(query_id, 'sutura-') AND query LIKE '%slow_orders%' SYNC"))
	}
	tests := []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{"a certified question", func(ctx context.Context) error {
			_, err := db.Execute(ctx, compile(t, slowBundle(t), slowQuestion))
			return err
		}},
		{"a run_sql statement", func(ctx context.Context) error {
			_, err := db.RunSQL(ctx, "SELECT sum(amount) FROM slow_orders", 10)
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			runCtx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			go func() { done <- tc.run(runCtx) }()
			kill()
			err := sqltest.Returned(t, done, 10*time.Second)
			require.Error(t, err)
			assert.NotErrorIs(t, err, domain.ErrUnavailable, "%v", err)
			var e *clickhouse.Error
			if assert.ErrorAs(t, err, &e) {
				assert.ErrorIs(t, e, domain.ErrRejected)
				assert.Equal(t, "394", e.Code, "QUERY_WAS_CANCELLED")
			}
			time.Sleep(200 * time.Millisecond)
			assert.Empty(t, processes(t, d.Admin), "the stopped statement is not run again")
		})
	}
	for range 10 { // more than the pool: every connection serves on
		_, err := db.Execute(ctx, compile(t, demoBundle(t), `{"metrics":["order_count"],`+year2025+`}`))
		require.NoError(t, err, "the source answers on")
	}
}

package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/adapters/clickhouse"
	"sutura.dev/adapters/clickhouse/chtest"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
	"sutura.dev/runtime"
)

// TestClickHouseStatementKilledByOthers (issue 28): through the
// application, a statement that someone else stops at the ClickHouse
// server (an administrator's KILL QUERY) ends as the statement's failure,
// never as the caller's cancellation: a run_sql statement is
// statement_failed (its author may run it again); a certified question is
// unavailable, as every certified statement the data system fails
// (docs/architecture.md §6: it is sutura's statement, not the caller's to
// fix). Each has its audit record of outcome failure, and the source
// answers on.
func TestClickHouseStatementKilledByOthers(t *testing.T) {
	d := chtest.New(t)
	d.Exec(t, "CREATE VIEW "+d.Name+".slow_orders AS SELECT toDate('2025-01-01') + (number % 365) AS order_date, "+
		"toInt64(number % 977) AS amount FROM system.numbers LIMIT 1000000000000")
	b := sqltest.SlowBundle(t, "slow")
	cfg := d.Config("slow", b.Definitions().Models)
	db, err := clickhouse.New(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(db.Close)
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: 4, Timeout: 30 * time.Second})
	require.NoError(t, err)
	audit := &apptest.Audit{}
	s, err := app.New(app.Config{
		Catalog: fixedCatalog{b}, Admission: adm, Audit: audit, RequestTimeout: time.Minute,
		Tools:   app.Tools(app.ToolOptions{RunSQL: true}),
		Sources: map[string]app.Source{"slow": {System: db, Posture: domain.SharedServiceUser}},
	})
	require.NoError(t, err)
	caller := app.Caller{Principal: domain.LocalOperator}
	q, err := domain.ParseQuestion([]byte(sqltest.SlowQuestion))
	require.NoError(t, err)

	// kill waits until the server runs a statement of sutura over the slow
	// view, and stops it as an administrator.
	kill := func() {
		t.Helper()
		ctx := context.Background()
		require.Eventually(t, func() bool {
			var n uint64
			err := d.Admin.QueryRow(ctx, "SELECT count() FROM system.processes WHERE startsWith(query_id, 'sutura-') AND query LIKE '%slow_orders%'").Scan(&n)
			return err == nil && n > 0
		}, 10*time.Second, 10*time.Millisecond, "the statement runs")
		require.NoError(t, d.Admin.Exec(ctx, "KILL QUERY WHERE startsWith(query_id, 'sutura-') AND query LIKE '%slow_orders%' SYNC"))
	}
	tests := []struct {
		name string
		ask  func(context.Context) error
		want app.FailureCode
	}{
		{"run_sql", func(ctx context.Context) error {
			_, err := s.RunSQL(ctx, caller, "SELECT sum(amount) FROM slow_orders")
			return err
		}, app.CodeStatementFailed},
		{"a certified question", func(ctx context.Context) error {
			_, err := s.Answer(ctx, caller, q)
			return err
		}, app.CodeUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(audit.Records())
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- tc.ask(ctx) }()
			kill()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the stopped statement did not return within 10 s")
			}
			var f *app.Failure
			require.True(t, errors.As(err, &f), "%v", err)
			assert.Equal(t, tc.want, f.Code, "%v", err)
			assert.NotErrorIs(t, err, context.Canceled, "not the caller's cancellation")
			recs := audit.Records()[before:]
			require.NotEmpty(t, recs)
			assert.Equal(t, "failure", recs[len(recs)-1].Outcome, "its audit record")
		})
	}
	out, err := s.RunSQL(context.Background(), caller, "SELECT 1")
	require.NoError(t, err, "the source answers on")
	assert.Len(t, out.Rows.Rows, 1)
}

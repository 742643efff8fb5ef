package clickhouse_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/clickhouse"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/domain"
)

// TestRunSQLCannotEndOtherStatements (issue 28, item 4): run_sql cannot
// stop the statements of the same service user — a certified question in
// flight — with KILL QUERY (or KILL MUTATION), however it is written; the
// question runs on. And run_sql's reading of system.processes, which
// fails on this server for a reason of the statement, is a statement
// failure, not a server that cannot be reached.
func TestRunSQLCannotEndOtherStatements(t *testing.T) {
	d := loaded(t)
	db := open(t, d.Config(source, nil))
	ctx := context.Background()
	plan := compile(t, slowBundle(t), slowQuestion)
	done, cancel := sqltest.Background(t, db.Execute, plan)
	defer cancel()
	waitRunning(t, d.Admin, "slow_orders")

	for _, stmt := range []string{
		"KILL QUERY WHERE user = currentUser()",
		"KILL QUERY WHERE 1 SYNC",
		"  /* a comment */ kill query where query like '%slow_orders%' ASYNC",
		"-- a comment\nKILL MUTATION WHERE 1",
	} {
		_, err := db.RunSQL(ctx, stmt, 10)
		assert.Equal(t, domain.SourceRefused, refusalCode(err), "%s: %v", stmt, err)
	}
	time.Sleep(300 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("the question in flight ended: %v", err)
	default:
	}
	assert.NotEmpty(t, processes(t, d.Admin), "the question runs on")
	cancel()
}

// TestRunSQLSystemProcesses: a query of system.processes is answered, or
// fails as the statement's failure (statement_failed), never as a server
// that cannot be reached.
func TestRunSQLSystemProcesses(t *testing.T) {
	d := loaded(t)
	db := open(t, d.Config(source, nil))
	ctx := context.Background()
	for _, stmt := range []string{
		"SELECT count() FROM system.processes",
		"SELECT * FROM system.processes",
		"SELECT query_id, query, user FROM system.processes",
	} {
		_, err := db.RunSQL(ctx, stmt, 100)
		if err != nil {
			assert.NotErrorIs(t, err, domain.ErrUnavailable, "%s: %v", stmt, err)
			var e *clickhouse.Error
			if assert.ErrorAs(t, err, &e, stmt) {
				assert.ErrorIs(t, e, domain.ErrRejected, stmt)
				assert.Contains(t, e.Message, "of type", "the author is told which type")
			}
		}
		t.Logf("%s: %v", stmt, err)
	}
	rs, err := db.RunSQL(ctx, "SELECT 1", 1)
	require.NoError(t, err, "the source serves on")
	assert.Equal(t, [][]string{{"1"}}, rendered(rs))
}

// TestRunSQLTraced: a run_sql statement under a traced call is sent
// ending with the call's traceparent comment (docs/contract.md §16) and
// with a query id of the trace, so system.query_log links it back; a
// trailing semicolon or line comment of the statement runs as before.
func TestRunSQLTraced(t *testing.T) {
	d := loaded(t)
	db := open(t, d.Config(source, nil))
	// A trace of this run only: the server's log outlives the test.
	raw := make([]byte, 16)
	_, err := rand.Read(raw)
	require.NoError(t, err)
	trace := hex.EncodeToString(raw)
	tp := "00-" + trace + "-00f067aa0ba902b7-01"
	ctx := domain.WithTraceParent(context.Background(), tp)
	for _, stmt := range []string{"SELECT 42 AS answer", "SELECT 42 AS answer;", "SELECT 42 AS answer -- the answer"} {
		rs, err := db.RunSQL(ctx, stmt, 1)
		require.NoError(t, err, stmt)
		assert.Equal(t, [][]string{{"42"}}, rendered(rs), stmt)
	}
	wait, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var logged []string
	for len(logged) < 3 && wait.Err() == nil {
		d.Exec(t, "SYSTEM FLUSH LOGS")
		rows, err := d.Admin.Query(wait, "SELECT query FROM system.query_log WHERE type = 2 AND startsWith(query_id, ?) ORDER BY event_time", "sutura-"+trace+"-")
		require.NoError(t, err)
		logged = logged[:0]
		for rows.Next() {
			var q string
			require.NoError(t, rows.Scan(&q))
			logged = append(logged, q)
		}
		require.NoError(t, rows.Close())
		if len(logged) < 3 {
			time.Sleep(100 * time.Millisecond)
		}
	}
	require.Len(t, logged, 3, "system.query_log holds each statement under the trace's query id")
	for _, q := range logged {
		assert.True(t, strings.HasPrefix(q, "SELECT 42 AS answer"), q)
		if strings.Contains(q, "traceparent") {
			assert.True(t, strings.HasSuffix(q, "\n/* traceparent='"+tp+"' */"), q)
		} else {
			t.Logf("ClickHouse %s logs the statement without its trailing comment; the query_id carries the trace", d.Version(t))
		}
	}
}

package clickhouse_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/clickhouse"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/domain"
)

const year2025 = `"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}`

// TestAnswers asks questions of every measure shape and compares them with
// the demo's anchors and with statements written by hand on the
// administrator's connection.
func TestAnswers(t *testing.T) {
	d := loaded(t)
	db := open(t, d.Config(source, demoModels()))
	require.NoError(t, db.Validate(context.Background()))
	b := demoBundle(t)
	ctx := context.Background()

	for _, tc := range []struct{ question, want string }{
		{`{"metrics":["order_count"],` + year2025 + `}`, "4841"},
		{`{"metrics":["net_sales"],` + year2025 + `}`, "24032720"},
	} {
		rs, err := db.Execute(ctx, compile(t, b, tc.question))
		require.NoError(t, err)
		require.Equal(t, [][]string{{"2025-01-01", tc.want}}, rendered(rs), tc.question)
		require.Equal(t, domain.KindDate, rs.Rows[0][0].Kind())
		require.Equal(t, domain.KindInt, rs.Rows[0][1].Kind())
	}

	// Every measure shape by channel and month, against SQL written by hand.
	rs, err := db.Execute(ctx, compile(t, b, `{"metrics":["order_count","average_order_value","active_customers","return_rate"],
		"grain":"month","range":{"start":"2025-01-01","end":"2025-07-01"},"dimensions":["channel"]}`))
	require.NoError(t, err)
	rows, err := d.Admin.Query(ctx, "SELECT channel, toString(toStartOfMonth(order_date)) AS m,"+
		" toString(countIf(order_id IS NOT NULL AND status != 'cancelled')),"+
		" toString(avgIf(net_amount_cents, is_paid = 1)),"+
		" toString(uniqExactIf(customer_id, is_paid = 1)),"+
		" toString(countIf(status = 'completed' AND is_returned = 1) / countIf(status = 'completed' AND is_paid = 1))"+
		" FROM "+d.Name+".orders WHERE order_date >= '2025-01-01' AND order_date < '2025-07-01'"+
		" AND (status != 'cancelled' OR is_paid = 1 OR status = 'completed') GROUP BY channel, m ORDER BY channel, m")
	require.NoError(t, err)
	var want [][]string
	for rows.Next() {
		r := make([]string, 6)
		require.NoError(t, rows.Scan(&r[0], &r[1], &r[2], &r[3], &r[4], &r[5]))
		want = append(want, r)
	}
	require.NoError(t, rows.Err())
	require.Len(t, want, 12)
	require.Equal(t, want, rendered(rs))
	require.Equal(t, domain.KindFloat, rs.Rows[0][3].Kind())
}

// TestCost: the realized cost is the server's own count of what it read.
func TestCost(t *testing.T) {
	d := loaded(t)
	db := open(t, d.Config(source, demoModels()))
	rs, cost, err := db.ExecuteWithCost(context.Background(), compile(t, demoBundle(t), `{"metrics":["order_count"],`+year2025+`}`))
	require.NoError(t, err)
	require.Len(t, rs.Rows, 1)
	// orders has 12 000 rows and no index the range could use.
	assert.Equal(t, int64(12000), cost.RowsScanned)
	assert.Greater(t, cost.BytesRead, int64(12000))
	t.Logf("read %d rows, %d bytes", cost.RowsScanned, cost.BytesRead)
}

// TestBoundValues: values with quotes and backslashes are bound, on a
// server with query parameters and on one without, and match exactly.
func TestBoundValues(t *testing.T) {
	d := loaded(t)
	hostile := []string{`o'ne`, `back\slash`, `it\'s`, `{p1:String}`, `?`}
	for i, v := range hostile {
		d.Exec(t, "INSERT INTO "+d.Name+".orders (order_id, order_date, channel, status, is_paid, net_amount_cents) SELECT ?, toDate('2030-01-02'), ?, 'completed', 1, ?",
			int64(900000+i), v, int64(i+1))
	}
	b := demoBundle(t)
	defs := b.Definitions()
	for i := range defs.Metrics {
		for j, d := range defs.Metrics[i].Dimensions {
			if d.Name == "channel" {
				defs.Metrics[i].Dimensions[j].Values = append([]string(nil), hostile...)
			}
		}
	}
	hb, err := domain.NewBundle("hostile", *defs, domain.Knowledge{})
	require.NoError(t, err)
	db := open(t, d.Config(source, demoModels()))
	for i, v := range hostile {
		q := `{"metrics":["net_sales"],"grain":"year","range":{"start":"2030-01-01","end":"2031-01-01"},"dimensions":["channel"],` +
			`"filters":[{"op":"eq","dimension":"channel","value":` + jsonString(v) + `}]}`
		rs, err := db.Execute(context.Background(), compile(t, hb, q))
		require.NoError(t, err, v)
		require.Equal(t, [][]string{{v, "2030-01-01", itoa(i + 1)}}, rendered(rs), v)
	}
}

// TestCancelStopsTheStatementAtTheServer cancels a slow question: Execute
// returns the context's error promptly, and nothing of it is left in
// system.processes when it has returned.
func TestCancelStopsTheStatementAtTheServer(t *testing.T) {
	d := loaded(t)
	db := open(t, d.Config(source, nil))
	plan := compile(t, slowBundle(t), slowQuestion)
	done, cancel := sqltest.Background(t, db.Execute, plan)
	waitRunning(t, d.Admin, "slow_orders")
	cancelled := time.Now()
	cancel()
	require.ErrorIs(t, sqltest.Returned(t, done, 5*time.Second), context.Canceled)
	require.Empty(t, processes(t, d.Admin), "nothing keeps running at the server")
	t.Logf("Execute returned %v after the cancellation", time.Since(cancelled))

	// The pool goes on serving.
	rs, err := db.Execute(context.Background(), compile(t, demoBundle(t), `{"metrics":["order_count"],`+year2025+`}`))
	require.NoError(t, err)
	require.Equal(t, [][]string{{"2025-01-01", "4841"}}, rendered(rs))
}

// TestDeadlineStopsTheStatementAtTheServer runs the slow question with a
// 700 ms budget: it is refused as deadline_exceeded promptly, and nothing
// is left in system.processes (the driver alone leaves it running on
// ClickHouse 18.16).
func TestDeadlineStopsTheStatementAtTheServer(t *testing.T) {
	d := loaded(t)
	db := open(t, d.Config(source, nil))
	plan := compile(t, slowBundle(t), slowQuestion)
	sqltest.RefusesAtDeadline(t, db.Execute, plan, 700*time.Millisecond, 3300*time.Millisecond)
	require.Empty(t, processes(t, d.Admin), "nothing keeps running at the server")

	// A context without a deadline gets the configured default.
	cfg := d.Config(source, nil)
	cfg.DefaultTimeout = 500 * time.Millisecond
	short := open(t, cfg)
	_, err := short.Execute(context.WithoutCancel(context.Background()), plan)
	require.Equal(t, domain.DeadlineExceeded, refusalCode(err), "error: %v", err)
	require.Empty(t, processes(t, d.Admin))
}

// TestServerTimeLimit shows that the server itself holds the deadline:
// max_execution_time is the rest of the budget, rounded up to a second.
func TestServerTimeLimit(t *testing.T) {
	d := loaded(t)
	db := open(t, d.Config(source, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rs, err := db.RunSQL(ctx, "SELECT name, value FROM system.settings WHERE name IN ('readonly', 'max_execution_time') ORDER BY name", 10)
	require.NoError(t, err)
	require.Equal(t, [][]string{{"max_execution_time", "20"}, {"readonly", "1"}}, rendered(rs))
}

// TestMultipleJoinsOnOldServers: a server before 20.1 cannot run a
// statement with two joins; the question is refused before it is sent,
// naming the version. A one-join dimension is answered.
func TestMultipleJoinsOnOldServers(t *testing.T) {
	d := loaded(t)
	db := open(t, d.Config(source, demoModels()))
	srv, err := db.Server(context.Background())
	require.NoError(t, err)
	b := demoBundle(t)
	rs, err := db.Execute(context.Background(), compile(t, b, `{"metrics":["order_count"],`+year2025+`,"dimensions":["customer_segment"]}`))
	require.NoError(t, err)
	var want [][]string
	rows, err := d.Admin.Query(context.Background(), "SELECT segment, count() FROM (SELECT customer_id FROM "+d.Name+".orders WHERE order_date >= '2025-01-01' AND order_date < '2026-01-01'"+
		" AND status != 'cancelled') ANY LEFT JOIN (SELECT customer_id, segment FROM "+d.Name+".customers) USING customer_id GROUP BY segment ORDER BY segment")
	require.NoError(t, err)
	for rows.Next() {
		var seg string
		var n uint64
		require.NoError(t, rows.Scan(&seg, &n))
		want = append(want, []string{seg, "2025-01-01", itoa(int(n))})
	}
	require.NoError(t, rows.Err())
	require.Len(t, want, 3)
	require.Equal(t, want, rendered(rs))
	rs, err = db.Execute(context.Background(), compile(t, b, `{"metrics":["order_count"],`+year2025+`,"dimensions":["area"]}`))
	if srv.MultipleJoins() {
		require.NoError(t, err)
		require.Len(t, rs.Rows, 5)
		return
	}
	require.Equal(t, domain.FederationNotExecutable, refusalCode(err))
	require.Contains(t, err.Error(), srv.Version)
}

// TestZeroDenominator: a ratio declared to fail fails with
// domain.ErrZeroDenominator when its denominator is zero; one declared
// yields_null is null there.
func TestZeroDenominator(t *testing.T) {
	d := loaded(t)
	d.Exec(t, "INSERT INTO "+d.Name+".orders (order_id, order_date, channel, status, is_paid, is_returned, collected_cents) SELECT 1, toDate('2030-05-05'), 'store', 'completed', 0, 0, 0")
	db := open(t, d.Config(source, demoModels()))
	day := `"grain":"day","range":{"start":"2030-05-05","end":"2030-05-06"}`
	_, err := db.Execute(context.Background(), compile(t, demoBundle(t), `{"metrics":["collected_per_paid_order"],`+day+`}`))
	require.ErrorIs(t, err, domain.ErrZeroDenominator)
	rs, err := db.Execute(context.Background(), compile(t, demoBundle(t), `{"metrics":["return_rate"],`+day+`}`))
	require.NoError(t, err)
	require.Equal(t, [][]string{{"2030-05-05", "null"}}, rendered(rs))
}

// TestFaultsAreFixedSentences: a statement the server fails is an *Error
// whose text names the source and the code, never the server's message.
func TestFaultsAreFixedSentences(t *testing.T) {
	d := loaded(t)
	db := open(t, d.Config(source, nil))
	d.Exec(t, "DROP TABLE "+d.Name+".orders")
	_, err := db.Execute(context.Background(), compile(t, demoBundle(t), `{"metrics":["order_count"],`+year2025+`}`))
	var e *clickhouse.Error
	require.True(t, errors.As(err, &e), "%v", err)
	require.Equal(t, "clickhouse source demo: the statement failed (code 60)", err.Error())
	require.NotContains(t, err.Error(), "orders")
	require.False(t, errors.Is(err, domain.ErrUnavailable))
	require.ErrorIs(t, e, domain.ErrRejected)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func itoa(i int) string { return strconv.Itoa(i) }

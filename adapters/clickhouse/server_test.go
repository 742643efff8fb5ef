package clickhouse_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/clickhouse"
	"sutura.dev/adapters/clickhouse/chtest"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/domain"
)

// TestRunSQLIsReadOnly runs statements as the administrator, who could
// write: readonly = 1 refuses every write and every change of a setting,
// one statement runs per call, and the row cap stops a long result at the
// server.
func TestRunSQLIsReadOnly(t *testing.T) {
	d := loaded(t)
	db := open(t, d.Config(source, nil))
	ctx := context.Background()
	rs, err := db.RunSQL(ctx, "SELECT region_id, region_name FROM regions ORDER BY region_id", 0)
	require.NoError(t, err)
	require.Equal(t, []domain.Column{{Name: "region_id"}, {Name: "region_name"}}, rs.Columns)
	require.Equal(t, [][]string{{"1", "North"}, {"2", "East"}, {"3", "South"}, {"4", "West"}}, rendered(rs))

	for _, stmt := range []string{
		"INSERT INTO regions SELECT 5, 'Nowhere'",
		"CREATE TABLE sneaky (i Int8) ENGINE = Memory",
		"DROP TABLE regions",
		"ALTER TABLE orders DELETE WHERE 1",
		"SET readonly = 0",
		"SELECT 1 SETTINGS readonly = 0",
		"SELECT 1 SETTINGS max_execution_time = 0",
	} {
		_, err := db.RunSQL(ctx, stmt, 10)
		require.Equal(t, domain.SourceRefused, refusalCode(err), "%s: %v", stmt, err)
	}
	// Two statements are one syntax error: the native protocol runs one.
	_, err = db.RunSQL(ctx, "SELECT 1; INSERT INTO regions SELECT 6, 'Elsewhere'", 10)
	var e *clickhouse.Error
	require.True(t, errors.As(err, &e), "%v", err)
	require.ErrorIs(t, e, domain.ErrRejected)
	require.NotContains(t, err.Error(), "INSERT")
	rs, err = db.RunSQL(ctx, "SELECT count() FROM regions", 1)
	require.NoError(t, err)
	require.Equal(t, [][]string{{"4"}}, rendered(rs), "nothing was written")

	// The row cap: exactly rowCap rows is an answer, one more is refused,
	// and an endless result is stopped at the server.
	rs, err = db.RunSQL(ctx, "SELECT number FROM system.numbers LIMIT 100", 100)
	require.NoError(t, err)
	require.Len(t, rs.Rows, 100)
	start := time.Now()
	_, err = db.RunSQL(ctx, "SELECT number FROM system.numbers", 100)
	require.Equal(t, domain.ResultTooLarge, refusalCode(err))
	require.Less(t, time.Since(start), 5*time.Second)
	require.Empty(t, processes(t, d.Admin))

	// A syntax error (62) is the author's, and a blank statement is none.
	sqltest.RejectsBadStatements(t, db.RunSQL, "62")
}

// TestValidate checks tables, columns and their kinds, and what the
// service user may read, at start.
func TestValidate(t *testing.T) {
	d := loaded(t)
	ctx := context.Background()
	good := demoModels()
	require.NoError(t, open(t, d.Config(source, good)).Validate(ctx))

	withModel := func(m domain.Model) []domain.Model { return append(demoModels(), m) }
	for _, tc := range []struct {
		name   string
		models []domain.Model
		want   string
	}{
		{"no table", withModel(domain.Model{Name: "gone", Source: source, Table: "gone"}), "model gone: table gone does not exist"},
		{"no column", withModel(domain.Model{Name: "r", Source: source, Table: "regions", Columns: cols("region_id", "integer", "population", "integer")}),
			"model r: table regions has no column population"},
		{"wrong kind", withModel(domain.Model{Name: "r", Source: source, Table: "regions", Columns: cols("region_name", "date")}),
			"model r: column region_name is declared date but is Nullable(String) in the database"},
		{"other database", withModel(domain.Model{Name: "r", Source: source, Table: "system.one", Columns: cols("dummy", "integer")}), ""},
	} {
		err := open(t, d.Config(source, tc.models)).Validate(ctx)
		if tc.want == "" {
			require.NoError(t, err, tc.name)
			continue
		}
		require.Error(t, err, tc.name)
		require.Equal(t, tc.want, err.Error(), tc.name)
	}

	// A user who may not use the database: Validate names the model, and a
	// question is refused as source_refused.
	// It signs in to a database it may use, and names the tables with
	// theirs.
	qualified := demoModels()
	for i := range qualified {
		qualified[i].Table = d.Name + "." + qualified[i].Table
	}
	cfg := d.Config(source, qualified)
	cfg.User, cfg.Database = "sutura_nobody", "default"
	nobody := open(t, cfg)
	require.EqualError(t, nobody.Validate(ctx), "model customers: table "+d.Name+".customers cannot be read by the identity questions run as")
	b := demoBundle(t)
	defs := *b.Definitions()
	defs.Models = qualified
	qb, err := domain.NewBundle("qualified", defs, domain.Knowledge{})
	require.NoError(t, err)
	_, err = nobody.Execute(ctx, compile(t, qb, `{"metrics":["order_count"],`+year2025+`}`))
	require.Equal(t, domain.SourceRefused, refusalCode(err), "%v", err)
}

// TestImpersonationRefusedWithoutExecuteAs: a server without EXECUTE AS
// (18.16 here) cannot carry the caller; start-up refuses the source naming
// the posture key, and a caller's question is never run as the service
// user instead.
func TestImpersonationRefusedWithoutExecuteAs(t *testing.T) {
	d := loaded(t)
	cfg := d.Config(source, demoModels())
	cfg.Posture = domain.ImpersonationAtSource
	cfg.Impersonate = map[string]string{"alice": "default"}
	cfg.VerificationIdentity = "default"
	db := open(t, cfg)
	srv, err := db.Server(context.Background())
	require.NoError(t, err)
	if srv.ExecuteAs() {
		t.Skipf("NOT RUN: ClickHouse %s has EXECUTE AS; this test is for servers without it", srv.Version)
	}
	err = db.Validate(context.Background())
	require.Error(t, err)
	require.Contains(t, err.Error(), "clickhouse source demo: posture is impersonation-at-source, which needs EXECUTE AS")
	_, err = db.ExecuteAs(context.Background(), domain.Principal{Subject: "alice"}, compile(t, demoBundle(t), `{"metrics":["order_count"],`+year2025+`}`))
	require.Error(t, err)
	require.Nil(t, refusalCodeOrNil(err), "never answered as the service user")
}

func refusalCodeOrNil(err error) *domain.Code {
	if c := refusalCode(err); c != "" {
		return &c
	}
	return nil
}

// TestReadonlyProfile: a service user whose profile says readonly = 1
// refuses the settings every statement carries; start-up says what to
// change.
func TestReadonlyProfile(t *testing.T) {
	d := loaded(t)
	cfg := d.Config(source, demoModels())
	cfg.User = "sutura_readonly"
	err := open(t, cfg).Validate(context.Background())
	if err == nil {
		t.Log("this server lets a readonly = 1 profile take the per-statement settings")
		return
	}
	require.Contains(t, err.Error(), "give it readonly = 2")
}

// TestServerDownAndBack stops a server of the test's own while a question
// runs and while the pool holds idle connections, then starts it again:
// the running question and those asked while it is down fail as
// unreachable, with no driver text, and the first question after it is
// back is answered (the pool reconnects).
func TestServerDownAndBack(t *testing.T) {
	chtest.Tier.Value(t) // runs where the clickhouse tier runs
	vars := exports(chScript(t, "start"))
	dir := vars["SUTURA_CH_DIR"]
	t.Cleanup(func() { chScript(t, "stop", dir) })
	t.Setenv("SUTURA_CH_URL", vars["SUTURA_CH_URL"])
	d := loaded(t)
	cfg := d.Config(source, demoModels())
	cfg.MaxConns = 4
	db := open(t, cfg)
	ctx := context.Background()
	count := compile(t, demoBundle(t), `{"metrics":["order_count"],`+year2025+`}`)
	want := [][]string{{"2025-01-01", "4841"}}
	for range 4 {
		rs, err := db.Execute(ctx, count)
		require.NoError(t, err)
		require.Equal(t, want, rendered(rs))
	}
	slow := compile(t, slowBundle(t), slowQuestion)
	running := make(chan error, 1)
	go func() {
		_, err := db.Execute(ctx, slow)
		running <- err
	}()
	waitRunning(t, d.Admin, "slow_orders")

	chScript(t, "down", dir)
	var errs []error
	select {
	case err := <-running:
		errs = append(errs, err)
	case <-time.After(15 * time.Second):
		t.Fatal("the running question did not end when the server stopped")
	}
	for range 2 {
		start := time.Now()
		_, err := db.Execute(ctx, count)
		require.Less(t, time.Since(start), 12*time.Second)
		errs = append(errs, err)
	}
	_, err := db.RunSQL(ctx, "SELECT 1", 1)
	errs = append(errs, err, db.Ping(ctx), db.Validate(ctx))
	for i, err := range errs {
		require.Error(t, err, "call %d", i)
		require.ErrorIs(t, err, domain.ErrUnavailable, "call %d: %v", i, err)
		require.Equal(t, "clickhouse source demo: the server cannot be reached", err.Error(), "call %d", i)
	}

	chScript(t, "up", dir)
	rs, err := db.Execute(ctx, count)
	require.NoError(t, err, "the first question after the restart")
	require.Equal(t, want, rendered(rs))
	require.NoError(t, db.Ping(ctx))
	require.NoError(t, db.Validate(ctx))
}

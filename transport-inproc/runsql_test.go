package inproc

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
)

const sqlStatement = "select '" + canary + "' as x"

func sqlArgs(statement string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"statement": statement})
	return b
}

func withSQL(cfg envConfig) envConfig {
	if cfg.conn.Tools == nil {
		cfg.conn.Tools = app.Tools(app.ToolOptions{RunSQL: true})
	}
	return cfg
}

func TestRunSQLIsServedWhenDeclared(t *testing.T) {
	sql := &apptest.SQL{Result: &domain.RowSet{Columns: []domain.Column{{Name: "city"}, {Name: "n"}},
		Rows: [][]domain.Cell{{domain.Text("Lyon"), domain.Int(42)}, {domain.Null(), domain.Float(0.5)}}}}
	e := newEnv(t, sql, withSQL(envConfig{}))
	assert.Equal(t, []string{"describe_catalog", "ask_metric", "run_sql"}, e.conn.ToolNames())
	assert.True(t, e.conn.ToolIsReadOnly("run_sql"))
	got, cost, err := e.conn.InvokeWithCost(t.Context(), "run_sql", sqlArgs(sqlStatement))
	require.NoError(t, err)
	assert.JSONEq(t, `{"outcome":"answer","columns":[{"name":"city"},{"name":"n"}],"rows":[["Lyon","42"],[null,"0.5"]]}`, string(got))
	assert.NotContains(t, string(got), "provenance")
	assert.Equal(t, 2, cost.RowsReturned)
	recs := e.audit.Records()
	require.Len(t, recs, 2)
	assert.Equal(t, "started", recs[0].Outcome, "the statement is audited before it runs")
	assert.Equal(t, domain.RunSQL, recs[1].Capability)
	assert.Equal(t, sqlStatement, recs[1].Statement)

	var n int
	for rec, err := range e.conn.InvokeStream(t.Context(), "run_sql", sqlArgs("select 1")) {
		require.NoError(t, err)
		n++
		assert.Equal(t, RecordContent, rec.Kind)
		assert.JSONEq(t, string(got), string(rec.Content))
		assert.Nil(t, rec.Provenance)
	}
	assert.Equal(t, 1, n)
}

func TestRunSQLRefusalsAndFailures(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sql     *apptest.SQL
		timeout time.Duration
		refused domain.Code
		failure error
	}{
		{"row cap", &apptest.SQL{Generate: domain.MaxRowCap + 1}, 0, domain.ResultTooLarge, nil},
		{"write attempt", &apptest.SQL{Err: &domain.RefusalError{Reason: domain.Refuse(domain.SourceRefused, "read-only")}}, 0, domain.SourceRefused, nil},
		{"deadline", &apptest.SQL{Block: true}, 2 * time.Second, domain.DeadlineExceeded, nil},
		{"statement failed", &apptest.SQL{Err: &apptest.StatementError{Text: canary}}, 0, "", app.ErrStatementFailed},
		{"database down", &apptest.SQL{Err: errors.New("dial: " + canary)}, 0, "", app.ErrUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.sql, withSQL(envConfig{requestTimeout: tc.timeout}))
			got, err := e.conn.Invoke(t.Context(), "run_sql", sqlArgs(sqlStatement))
			if tc.failure != nil {
				var fe *FailureError
				require.ErrorAs(t, err, &fe)
				require.ErrorIs(t, err, tc.failure)
				assert.NotContains(t, err.Error(), canary)
			} else {
				require.NoError(t, err)
				var body struct {
					Outcome string
					Reason  struct{ Code string }
				}
				require.NoError(t, json.Unmarshal(got, &body))
				assert.Equal(t, "refusal", body.Outcome)
				assert.Equal(t, string(tc.refused), body.Reason.Code)
				assert.NotContains(t, string(got), canary)
			}
			assert.Equal(t, 0, e.adm.InUse())
			require.Len(t, e.audit.Records(), 2, "a start record and the outcome")
			assert.Equal(t, sqlStatement, e.audit.Records()[1].Statement)
		})
	}
}

func TestRunSQLAtCapacity(t *testing.T) {
	sql := &apptest.SQL{Block: true}
	e := newEnv(t, sql, withSQL(envConfig{max: 1}))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { _, err := e.conn.Invoke(ctx, "run_sql", sqlArgs("select pg_sleep(60)")); done <- err }()
	<-sql.Started()
	_, err := e.conn.Invoke(t.Context(), "run_sql", sqlArgs("select 1"))
	require.ErrorIs(t, err, app.ErrAtCapacity)
	assert.Equal(t, app.TextAtCapacity, err.Error())
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	eventually(t, func() bool { return e.adm.InUse() == 0 }, "the slot comes back")
}

func TestRunSQLArguments(t *testing.T) {
	sql := &apptest.SQL{}
	e := newEnv(t, sql, withSQL(envConfig{}))
	for args, field := range map[string]string{
		`{"statement":"select 1","sql":"` + canary + `"}`: "sql",
		`{"statement":""}`: "statement",
		`{}`:               "statement",
		`{"statement":2}`:  "statement",
	} {
		_, err := e.conn.Invoke(t.Context(), "run_sql", json.RawMessage(args))
		var ae *ArgumentError
		require.ErrorAs(t, err, &ae, args)
		assert.Equal(t, domain.RunSQL, ae.Tool)
		assert.Equal(t, field, ae.Field)
		assert.NotContains(t, err.Error(), canary)
	}
	assert.Empty(t, sql.Statements())
	assert.Empty(t, e.audit.Records())
}

func TestRunSQLDisabledAndScopes(t *testing.T) {
	sql := &apptest.SQL{}
	off := newEnv(t, sql, envConfig{})
	_, err := off.conn.Invoke(t.Context(), "run_sql", sqlArgs(sqlStatement))
	var ue *UnknownToolError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, "run_sql", ue.Tool)

	cfg := withSQL(envConfig{})
	cfg.conn.EnforceScopes = true
	cfg.conn.Caller = func(context.Context) app.Caller {
		return app.Caller{Principal: domain.Principal{Subject: "agent", Scopes: []string{"sutura:metrics.ask"}}}
	}
	e := newEnv(t, sql, cfg)
	_, err = e.conn.Invoke(t.Context(), "run_sql", sqlArgs(sqlStatement))
	var ng *NotGrantedError
	require.ErrorAs(t, err, &ng)
	assert.Equal(t, domain.Scope("sutura:sql.run"), ng.Scope)
	assert.Empty(t, sql.Statements())
}

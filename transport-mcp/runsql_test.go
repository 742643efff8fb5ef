package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
	"sutura.dev/runtime"
)

// sqlStatement is a statement holding the canary: it may be audited, never
// echoed in a result's error.
const sqlStatement = "select '" + canary + "' as x"

// newSQLEnv is newEnv over a data system that runs SQL, with run_sql
// enabled unless opts.Tools says otherwise.
func newSQLEnv(t *testing.T, sql *apptest.SQL, cfg envConfig) *env {
	t.Helper()
	if cfg.max == 0 {
		cfg.max = 4
	}
	if cfg.requestTimeout == 0 {
		cfg.requestTimeout = 30 * time.Second
	}
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: cfg.max, Timeout: time.Second})
	require.NoError(t, err)
	audit := &apptest.Audit{}
	opts := cfg.opts
	if opts.Tools == nil {
		opts.Tools = app.Tools(app.ToolOptions{RunSQL: true})
	}
	surface, err := app.New(app.Config{Catalog: apptest.Catalog{Pinned: apptest.Bundle(t, "v1")}, Sources: apptest.Sources(sql),
		Admission: adm, Audit: audit, RequestTimeout: cfg.requestTimeout, Tools: opts.Tools})
	require.NoError(t, err)
	server, err := New(surface, opts)
	require.NoError(t, err)
	return &env{sys: sql.System, adm: adm, audit: audit, surface: surface, server: server}
}

func sqlRows() *domain.RowSet {
	return &domain.RowSet{Columns: []domain.Column{{Name: "city"}, {Name: "n"}},
		Rows: [][]domain.Cell{{domain.Text("Lyon\tnord"), domain.Int(42)}, {domain.Null(), domain.Float(0.5)}}}
}

func TestRunSQLAnswers(t *testing.T) {
	transports(t, func(t *testing.T, connect func(*testing.T, *env) *mcp.ClientSession) {
		sql := &apptest.SQL{Result: sqlRows()}
		e := newSQLEnv(t, sql, envConfig{})
		cs := connect(t, e)
		list, err := cs.ListTools(context.Background(), nil)
		require.NoError(t, err)
		require.Len(t, list.Tools, 3)
		assert.Equal(t, "run_sql", list.Tools[2].Name)
		require.True(t, list.Tools[2].Annotations.ReadOnlyHint)

		res := call(t, cs, "run_sql", map[string]any{"statement": sqlStatement})
		require.False(t, res.IsError)
		assert.Equal(t, map[string]any{
			"outcome": "answer",
			"columns": []any{map[string]any{"name": "city"}, map[string]any{"name": "n"}},
			"rows":    []any{[]any{"Lyon\tnord", "42"}, []any{nil, "0.5"}},
		}, structured(t, res), "no provenance")
		assert.Equal(t, "city\tn\nLyon\\tnord\t42\nnull\t0.5\n", text(res), "tabular text without provenance lines")
		assert.Equal(t, []string{sqlStatement}, sql.Statements())
		recs := e.audit.Records()
		require.Len(t, recs, 2, "a start record before the statement runs, and its outcome")
		assert.Equal(t, "started", recs[0].Outcome)
		assert.Equal(t, domain.RunSQL, recs[1].Capability)
		assert.Equal(t, sqlStatement, recs[1].Statement)
		assert.Equal(t, "answer", recs[1].Outcome)
	})
}

func TestRunSQLRefusalsAndFailures(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sql     *apptest.SQL
		timeout time.Duration
		refused domain.Code
		text    string
	}{
		{"row cap", &apptest.SQL{Generate: domain.MaxRowCap + 1}, 0, domain.ResultTooLarge, ""},
		{"write attempt", &apptest.SQL{Err: &domain.RefusalError{Reason: domain.Refuse(domain.SourceRefused, "run_sql is read-only: the statement tried to change data or the session")}}, 0, domain.SourceRefused, ""},
		{"deadline", &apptest.SQL{Block: true}, 2 * time.Second, domain.DeadlineExceeded, ""},
		{"statement failed", &apptest.SQL{Err: &apptest.StatementError{Text: "column " + canary + " does not exist"}}, 0, "", TextStatementFailed},
		{"database down", &apptest.SQL{Err: errors.New("dial: " + canary)}, 0, "", TextUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newSQLEnv(t, tc.sql, envConfig{requestTimeout: tc.timeout})
			res := call(t, e.connect(t), "run_sql", map[string]any{"statement": sqlStatement})
			assert.NotContains(t, string(mustJSON(t, res)), canary, "the statement is never echoed")
			if tc.refused != "" {
				require.False(t, res.IsError, "a refusal is an outcome")
				m := structured(t, res)
				assert.Equal(t, "refusal", m["outcome"])
				assert.Equal(t, string(tc.refused), m["reason"].(map[string]any)["code"])
				assert.Contains(t, text(res), "refused ("+string(tc.refused)+")")
			} else {
				require.True(t, res.IsError)
				assert.Equal(t, tc.text, text(res))
				assert.Nil(t, res.StructuredContent)
			}
			assert.Equal(t, 0, e.adm.InUse())
			recs := e.audit.Records()
			require.Len(t, recs, 2)
			assert.Equal(t, "started", recs[0].Outcome)
			assert.Equal(t, sqlStatement, recs[1].Statement, "audited with its statement")
		})
	}
}

func TestRunSQLAtCapacity(t *testing.T) {
	sql := &apptest.SQL{Block: true}
	e := newSQLEnv(t, sql, envConfig{max: 1})
	cs := e.connect(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_sql", Arguments: map[string]any{"statement": "select pg_sleep(60)"}})
	}()
	<-sql.Started()
	res := call(t, cs, "run_sql", map[string]any{"statement": "select 1"})
	require.True(t, res.IsError)
	assert.Equal(t, TextAtCapacity, text(res))
	sql.Release()
	eventually(t, func() bool { return e.adm.InUse() == 0 }, "the slot comes back")
}

func TestRunSQLArgumentsAreParsedStrictly(t *testing.T) {
	sql := &apptest.SQL{}
	e := newSQLEnv(t, sql, envConfig{})
	cs := e.connect(t)
	for args, field := range map[string]string{
		`{"statement":"select 1","sql":"` + canary + `"}`: "sql",
		`{"` + canary + ` x":1,"statement":"select 1"}`:   "(a field whose name is not an identifier)",
		`{}`:                               "statement",
		`{"statement":""}`:                 "statement",
		`{"statement":"   "}`:              "statement",
		`{"statement":["` + canary + `"]}`: "statement",
	} {
		res := call(t, cs, "run_sql", json.RawMessage(args))
		require.True(t, res.IsError, args)
		assert.Contains(t, text(res), field, args)
		assert.NotContains(t, string(mustJSON(t, res)), canary)
	}
	assert.Empty(t, sql.Statements(), "nothing reached the data system")
	assert.Empty(t, e.audit.Records())
}

func TestRunSQLDisabledIsAnUnknownTool(t *testing.T) {
	sql := &apptest.SQL{Result: sqlRows()}
	e := newSQLEnv(t, sql, envConfig{opts: Options{Tools: app.Tools(app.ToolOptions{})}})
	cs := e.connect(t)
	list, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	assert.Len(t, list.Tools, 2)
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_sql", Arguments: map[string]any{"statement": sqlStatement}})
	var werr *jsonrpc.Error
	require.ErrorAs(t, err, &werr)
	assert.EqualValues(t, jsonrpc.CodeInvalidParams, werr.Code)
	assert.Contains(t, werr.Message, "run_sql")
	assert.NotContains(t, werr.Message, canary)
	assert.Empty(t, sql.Statements())
}

func TestRunSQLScope(t *testing.T) {
	for _, tc := range []struct {
		scopes  []string
		granted bool
	}{
		{[]string{"sutura:metrics.ask", "sutura:catalog.read"}, false},
		{[]string{"sutura:sql.run"}, true},
	} {
		sql := &apptest.SQL{Result: sqlRows()}
		e := newSQLEnv(t, sql, envConfig{opts: Options{EnforceScopes: true, Caller: func(context.Context) app.Caller {
			return app.Caller{Principal: domain.Principal{Subject: "agent", Scopes: tc.scopes}}
		}}})
		cs := e.connect(t)
		list, err := cs.ListTools(context.Background(), nil)
		require.NoError(t, err)
		listed := false
		for _, tool := range list.Tools {
			listed = listed || tool.Name == "run_sql"
		}
		assert.Equal(t, tc.granted, listed)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_sql", Arguments: map[string]any{"statement": sqlStatement}})
		if tc.granted {
			require.NoError(t, err)
			assert.False(t, res.IsError)
			continue
		}
		var werr *jsonrpc.Error
		require.ErrorAs(t, err, &werr)
		assert.EqualValues(t, jsonrpc.CodeInvalidParams, werr.Code)
		assert.Contains(t, werr.Message, "sutura:sql.run")
		assert.Empty(t, sql.Statements())
	}
}

package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/app/wire"
	"sutura.dev/domain"
)

const scopeSQL = "sutura:sql.run"

// sqlStatement holds the canary: it is audited, never echoed.
const sqlStatement = "select '" + canary + "' as x"

func sqlBody(statement string) string {
	b, _ := json.Marshal(map[string]string{"statement": statement})
	return string(b)
}

func sqlEnabled(ec envConfig) envConfig {
	ec.cfg.Tools = app.Tools(app.ToolOptions{RunSQL: true})
	return ec
}

func (e *env) runSQL(t *testing.T, body string, header map[string]string) reply {
	t.Helper()
	return e.do(t, request{path: "/v1/sql/run", body: body, header: header})
}

func TestRunSQLAnswersWithoutProvenance(t *testing.T) {
	sql := &apptest.SQL{Result: &domain.RowSet{Columns: []domain.Column{{Name: "city"}, {Name: "n"}},
		Rows: [][]domain.Cell{{domain.Text("Lyon"), domain.Int(42)}, {domain.Null(), domain.Float(0.5)}}}}
	e := newEnv(t, newFake(), sqlEnabled(envConfig{sql: sql}))
	r := e.runSQL(t, sqlBody(sqlStatement), nil)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.JSONEq(t, `{"outcome":"answer","columns":[{"name":"city"},{"name":"n"}],"rows":[["Lyon","42"],[null,"0.5"]]}`, string(r.body))
	assert.NotContains(t, string(r.body), "provenance")
	assert.Equal(t, []string{sqlStatement}, sql.Statements())
	recs := e.audit.Records()
	require.Len(t, recs, 2, "a start record before the statement runs, and its outcome")
	assert.Equal(t, "started", recs[0].Outcome)
	assert.Equal(t, domain.RunSQL, recs[1].Capability)
	assert.Equal(t, sqlStatement, recs[1].Statement, "audited with its statement")
	assert.Equal(t, "answer", recs[1].Outcome)
	assert.NotContains(t, e.logs.String(), canary, "the statement is never logged")
}

func TestRunSQLRefusalsAndFailures(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sql     *apptest.SQL
		timeout time.Duration
		refused domain.Code
		failed  FailureCode
	}{
		{"row cap", &apptest.SQL{Generate: domain.MaxRowCap + 1}, 0, domain.ResultTooLarge, ""},
		{"write attempt", &apptest.SQL{Err: &domain.RefusalError{Reason: domain.Refuse(domain.SourceRefused, "run_sql is read-only: the statement tried to change data or the session")}}, 0, domain.SourceRefused, ""},
		{"deadline", &apptest.SQL{Block: true}, 2 * time.Second, domain.DeadlineExceeded, ""},
		{"statement failed", &apptest.SQL{Err: &apptest.StatementError{Text: "relation " + canary + " does not exist"}}, 0, "", StatementFailed},
		{"database down", &apptest.SQL{Err: errors.New("dial: connection refused")}, 0, "", Unavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, newFake(), sqlEnabled(envConfig{sql: tc.sql, requestTimeout: tc.timeout}))
			r := e.runSQL(t, sqlBody(sqlStatement), nil)
			if tc.refused != "" {
				requireRefusal(t, r, tc.refused)
			} else {
				m := requireFailure(t, r, tc.failed)
				if tc.failed == StatementFailed {
					assert.Equal(t, app.TextStatementFailed, m["detail"])
				}
			}
			assert.Equal(t, 0, e.adm.InUse())
			recs := e.audit.Records()
			require.Len(t, recs, 2)
			assert.Equal(t, sqlStatement, recs[1].Statement)
			if tc.failed != "" {
				assert.Equal(t, string(tc.failed), recs[1].Code, "the code the caller got is the code audited")
			}
			assert.NotContains(t, e.logs.String(), canary, "the statement is never logged")
		})
	}
}

func TestRunSQLAtCapacity(t *testing.T) {
	sql := &apptest.SQL{Block: true}
	e := newEnv(t, newFake(), sqlEnabled(envConfig{sql: sql, max: 1}))
	done := make(chan struct{})
	go func() { defer close(done); e.runSQL(t, sqlBody("select pg_sleep(60)"), nil) }()
	<-sql.Started()
	r := e.runSQL(t, sqlBody("select 1"), nil)
	requireFailure(t, r, AtCapacity)
	assert.Equal(t, "1", r.header.Get("Retry-After"))
	sql.Release()
	<-done
	eventually(t, func() bool { return e.adm.InUse() == 0 }, "the slot comes back")
}

func TestRunSQLBodyIsParsedStrictly(t *testing.T) {
	sql := &apptest.SQL{}
	e := newEnv(t, newFake(), sqlEnabled(envConfig{sql: sql}))
	for body, field := range map[string]string{
		`{"statement":"select 1","sql":"` + canary + `"}`: "sql",
		`{"statement":""}`:                 "statement",
		`{}`:                               "statement",
		`{"statement":1}`:                  "statement",
		`["` + canary + `"]`:               "",
		`{"statement":"select 1"}{"a":1}`:  "",
		`{"statement":["` + canary + `"]}`: "statement",
	} {
		m := requireFailure(t, e.runSQL(t, body, nil), NotAQuestion)
		assert.Contains(t, m["detail"], "the body is not a statement")
		assert.Contains(t, m["detail"], field)
	}
	r := e.do(t, request{path: "/v1/sql/run", body: sqlBody("select 1"), header: map[string]string{"Content-Type": "text/plain"}})
	requireFailure(t, r, UnsupportedMediaType)
	assert.Empty(t, sql.Statements(), "nothing reached the data system")
	assert.Empty(t, e.audit.Records())
}

func TestRunSQLDisabledIsNotEnabled(t *testing.T) {
	sql := &apptest.SQL{}
	e := newEnv(t, newFake(), envConfig{sql: sql})
	requireFailure(t, e.runSQL(t, sqlBody(sqlStatement), nil), ToolNotEnabled)
	assert.Empty(t, sql.Statements())
	assert.Empty(t, e.audit.Records())
}

func TestRunSQLScope(t *testing.T) {
	idp := newIdentityProvider(t)
	sql := &apptest.SQL{}
	ec := sqlEnabled(envConfig{sql: sql})
	ec.cfg.Inbound = idp.inbound()
	e := newEnv(t, newFake(), ec)
	m := requireFailure(t, e.runSQL(t, sqlBody(sqlStatement), idp.bearer(t, idp.claims("alice", scopeCatalog, scopeAsk))), InsufficientScope)
	assert.Contains(t, m["detail"], scopeSQL)
	assert.Empty(t, sql.Statements())
	r := e.runSQL(t, sqlBody("select 1"), idp.bearer(t, idp.claims("alice", scopeSQL)))
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	recs := e.audit.Records()
	require.Len(t, recs, 2)
	assert.Equal(t, "select 1", recs[1].Statement)
	assert.Contains(t, recs[1].Principal, "alice")
	requireFailure(t, e.do(t, request{path: "/v1/query", body: qAnswer, header: idp.bearer(t, idp.claims("alice", scopeSQL))}), InsufficientScope)
}

// TestOpenAPIWithRunSQL: a deployment with run_sql enabled describes
// POST /v1/sql/run with the schemas of its tool declaration; the committed
// snapshot is the default list's and does not.
func TestOpenAPIWithRunSQL(t *testing.T) {
	tools := app.Tools(app.ToolOptions{RunSQL: true})
	o := fullOptions()
	o.tools = tools
	raw := generated(t, o)
	doc := decodeDoc(t, raw)
	ops := doc.capabilityOps()
	require.Len(t, ops, 3)
	op, ok := ops[string(domain.RunSQL)]
	require.True(t, ok)
	assert.Equal(t, scopeSQL, op.Scope)
	for _, req := range op.Security {
		assert.Equal(t, []string{scopeSQL}, req[schemeBearer])
	}
	assert.Contains(t, doc.Paths["/v1/sql/run"], "post")
	for _, status := range []string{"200", "400", "403", "408", "413", "422", "503"} {
		assert.Contains(t, op.Responses, status)
	}
	manifest, err := wire.NewManifest(tools)
	require.NoError(t, err)
	d, ok := manifest.Tool(domain.RunSQL)
	require.True(t, ok)
	assert.Equal(t, d.Title, op.Summary)
	assert.Equal(t, d.Description, op.Description)
	in, err := json.Marshal(d.InputSchema)
	require.NoError(t, err)
	out, err := json.Marshal(d.OutputSchema.OneOf[0])
	require.NoError(t, err)
	assert.JSONEq(t, string(in), string(doc.Comps.Schemas[schemaSQLStatement]))
	assert.JSONEq(t, string(out), string(doc.Comps.Schemas[schemaSQLResult]))

	// The served document is this one, and real bodies fit it.
	sql := &apptest.SQL{Generate: 3}
	served := newEnv(t, newFake(), sqlEnabled(envConfig{sql: sql}))
	sdoc := decodeDoc(t, served.do(t, request{path: "/openapi.json"}).body)
	assert.Contains(t, sdoc.Paths, "/v1/sql/run")
	validate := func(name string, body []byte) {
		t.Helper()
		var s jsonschema.Schema
		require.NoError(t, json.Unmarshal(sdoc.Comps.Schemas[name], &s))
		resolved, err := s.Resolve(nil)
		require.NoError(t, err)
		var v any
		require.NoError(t, json.Unmarshal(body, &v))
		assert.NoError(t, resolved.Validate(v), "%s: %s", name, body)
	}
	validate(schemaSQLResult, served.runSQL(t, sqlBody("select n"), nil).body)
	validate(schemaSQLStatement, []byte(sqlBody("select 1")))
	sql.Generate = domain.MaxRowCap + 1
	validate(schemaRefusal, served.runSQL(t, sqlBody("select n"), nil).body)
}

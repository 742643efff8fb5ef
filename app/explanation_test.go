package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/app/trace"
	"sutura.dev/domain"
)

// recordingTracer is a trace.Tracer that numbers its spans and records
// each one's name, parent and remote context.
type recordingTracer struct {
	mu    sync.Mutex
	spans []*recordedSpan
}

type recordedSpan struct {
	name, parent, traceID, spanID, status string
	remote                                trace.Remote
	ended                                 bool
}

type spanKey struct{}

func (r *recordingTracer) Start(ctx context.Context, name string, remote trace.Remote, _ ...trace.Attr) (context.Context, trace.Span) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sp := &recordedSpan{name: name, remote: remote, spanID: fmt.Sprintf("%016x", len(r.spans)+1)}
	if parent, ok := ctx.Value(spanKey{}).(*recordedSpan); ok {
		sp.parent, sp.traceID = parent.name, parent.traceID
	} else if domain.ValidTraceParent(remote.Parent) {
		sp.traceID = remote.Parent[3:35]
	} else {
		sp.traceID = "0af7651916cd43dd8448eb211c80319c"
	}
	r.spans = append(r.spans, sp)
	return context.WithValue(ctx, spanKey{}, sp), sp
}

func (r *recordingTracer) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, s := range r.spans {
		out = append(out, s.name+"<"+s.parent)
	}
	return out
}

func (s *recordedSpan) End(status string)   { s.status, s.ended = status, true }
func (s *recordedSpan) TraceID() string     { return s.traceID }
func (s *recordedSpan) TraceParent() string { return "00-" + s.traceID + "-" + s.spanID + "-01" }

// telling is a data system that tells its statement and identity, and
// records the traceparent each execution's context carried.
type telling struct {
	*apptest.System
	text   string
	mu     sync.Mutex
	parent []string
}

func (t *telling) Execute(ctx context.Context, plan *domain.Plan) (*domain.RowSet, error) {
	t.mu.Lock()
	t.parent = append(t.parent, domain.TraceParent(ctx))
	t.mu.Unlock()
	return t.System.Execute(ctx, plan)
}

func (t *telling) Statement(ctx context.Context, _ *domain.Plan) (domain.Statement, error) {
	return domain.Statement{Dialect: "postgres", Text: t.text + " /* traceparent='" + domain.TraceParent(ctx) + "' */", Params: []string{"2025-01-01"}}, nil
}

func (t *telling) Identity(p domain.Principal, impersonated bool) string {
	if impersonated {
		return "role_" + p.Subject
	}
	return "sutura_reader"
}

const explainedQ = `{"metrics":["revenue"],"grain":"year","range":{"start":"2025-01-01","end":"2027-01-01"},"filters":[{"op":"eq","dimension":"city","value":"Lyon"}]}`

func TestEveryAnswerExplainsItself(t *testing.T) {
	sys := &telling{System: anchored(), text: "SELECT sum(amount) FROM sales"}
	tr := &recordingTracer{}
	s, audit, _ := newSurface(t, sys, 2, 5*time.Second, func(c *app.Config) { c.Tracer = tr })
	spans, err := app.ReadSpans(context.Background(), s.Bundle(), apptest.Sources(&spanned{System: anchored()}))
	require.NoError(t, err)
	s.SetSpans(s.Bundle(), spans)
	caller := app.Caller{Principal: domain.Principal{Subject: "agent", Scopes: []string{"sutura:metrics.ask"}}, Scoped: true}
	caller.Trace = trace.Remote{Parent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
	caller.Transport = "http"
	res := s.Call(context.Background(), caller, domain.AskMetric, json.RawMessage(explainedQ))
	require.Nil(t, res.Failure)
	require.NotNil(t, res.Answer)
	e := res.Answer.Explanation
	require.NotNil(t, e)
	require.Len(t, e.Definitions, 1)
	assert.Equal(t, "the sum of amount, over the rows of sales", e.Definitions[0].Measure)
	assert.Equal(t, []domain.AppliedFilter{{Dimension: "city", Op: "eq", Values: []string{"Lyon"}}}, e.Filters)
	require.Len(t, e.Legs, 1)
	assert.Equal(t, apptest.SourceName, e.Legs[0].Source)
	assert.Equal(t, "sutura_reader", e.Legs[0].Identity)
	assert.Equal(t, domain.SharedServiceUser, e.Legs[0].Posture)
	assert.Equal(t, []domain.DataThrough{{Model: "sales", Source: apptest.SourceName, Through: "2026-06-30"}}, e.DataThrough)
	assert.Equal(t, []string{"the data of sales ends on 2026-06-30; periods after it are empty because there is no data yet"}, e.Notes)
	assert.Nil(t, e.Statements, "a scoped caller without sutura:sql.read reads no statement")

	assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", e.TraceID, "the caller's trace continues")
	recs := audit.Records()
	require.Len(t, recs, 1)
	assert.Equal(t, e.TraceID, recs[0].TraceID, "the audit record carries the trace id")
	assert.Equal(t, []string{"sutura.http ask_metric<", "sutura.pipeline<sutura.http ask_metric", "sutura.leg<sutura.pipeline",
		"sutura.data_system files<sutura.leg"}, tr.names())
	require.Len(t, sys.parent, 1)
	assert.True(t, domain.ValidTraceParent(sys.parent[0]), "the data system call carries its span's traceparent")
	assert.Contains(t, sys.parent[0], e.TraceID)
}

func TestStatementsNeedTheScope(t *testing.T) {
	sys := &telling{System: anchored(), text: "SELECT sum(amount) FROM sales"}
	s, _, _ := newSurface(t, sys, 2, 5*time.Second, func(c *app.Config) { c.Tracer = &recordingTracer{} })
	scoped := func(scopes ...string) app.Caller {
		return app.Caller{Principal: domain.Principal{Subject: "agent", Scopes: scopes}, Scoped: true}
	}
	operator := app.Caller{Principal: domain.LocalOperator, Scoped: true}
	operator.Principal.Scopes = []string{"sutura:metrics.ask"}
	for name, tc := range map[string]struct {
		caller app.Caller
		reads  bool
	}{
		"scoped, without the scope": {scoped("sutura:metrics.ask"), false},
		"scoped, with the scope":    {scoped("sutura:metrics.ask", domain.ScopeSQLRead), true},
		"not scoped":                {app.Caller{Principal: domain.Principal{Subject: "local"}}, true},
		"single-user operator":      {operator, true},
	} {
		t.Run(name, func(t *testing.T) {
			res := s.Call(context.Background(), tc.caller, domain.AskMetric, json.RawMessage(explainedQ))
			require.Nil(t, res.Failure)
			e := res.Answer.Explanation
			if !tc.reads {
				assert.Nil(t, e.Statements)
				body, err := res.Outcome().MarshalJSON()
				require.NoError(t, err)
				assert.NotContains(t, string(body), "statements")
				assert.NotContains(t, string(body), "FROM sales")
				return
			}
			require.Len(t, e.Statements, 1)
			st := e.Statements[0]
			assert.Equal(t, apptest.SourceName, st.Source)
			assert.Equal(t, "postgres", st.Dialect)
			assert.Equal(t, []string{"2025-01-01"}, st.Params)
			assert.Contains(t, st.Text, "SELECT sum(amount) FROM sales /* traceparent='00-"+e.TraceID+"-")
		})
	}
}

func TestTheBoundCountsTheExplanation(t *testing.T) {
	// The rows are small; the statement the explanation carries is not.
	sys := &telling{System: anchored(), text: strings.Repeat("x", domain.MaxResultBytes)}
	s, _, _ := newSurface(t, sys, 2, 5*time.Second)
	res := s.Call(context.Background(), app.Caller{Principal: domain.LocalOperator}, domain.AskMetric, json.RawMessage(explainedQ))
	require.Nil(t, res.Failure)
	require.NotNil(t, res.Refusal, "an explanation never grows an answer past the bound")
	assert.Equal(t, domain.ResultTooLarge, res.Refusal.Code())

	res = s.Call(context.Background(), app.Caller{Principal: domain.Principal{Subject: "agent", Scopes: []string{"sutura:metrics.ask"}}, Scoped: true},
		domain.AskMetric, json.RawMessage(explainedQ))
	require.NotNil(t, res.Answer, "without the statements it fits")
}

func TestAMalformedTraceparentStartsANewTrace(t *testing.T) {
	tr := &recordingTracer{}
	s, audit, _ := newSurface(t, anchored(), 2, 5*time.Second, func(c *app.Config) { c.Tracer = tr })
	caller := anon
	caller.Trace = trace.Remote{Parent: "00-ZZcanaryZZ-00f067aa0ba902b7-01", State: "ZZstate"}
	res := s.Call(context.Background(), caller, domain.AskMetric, json.RawMessage(explainedQ))
	require.NotNil(t, res.Answer, "never an error")
	body, err := res.Outcome().MarshalJSON()
	require.NoError(t, err)
	assert.NotContains(t, string(body), "ZZ", "never echoed")
	assert.Equal(t, "0af7651916cd43dd8448eb211c80319c", res.Answer.Explanation.TraceID)
	assert.Equal(t, res.Answer.Explanation.TraceID, audit.Records()[0].TraceID)
}

// throughTelling is a data system that tells data_through with a query,
// counting the queries.
type throughTelling struct {
	*apptest.System
	asked int
}

func (s *throughTelling) DataThrough(ctx context.Context, model, column string) (domain.Date, bool, error) {
	s.asked++
	if _, ok := ctx.Deadline(); !ok {
		return 0, false, fmt.Errorf("unbounded")
	}
	return domain.DateOf(2025, 3, 31), model == "sales" && column == "sold_on", nil
}

func TestDataThroughFromADatabase(t *testing.T) {
	sys := &throughTelling{System: anchored()}
	s, _, _ := newSurface(t, sys, 2, 5*time.Second)
	require.NoError(t, s.Check(context.Background()))
	asked := sys.asked
	assert.Equal(t, 1, asked, "one bounded query per model and time column, at start")
	for range 3 {
		res := s.Call(context.Background(), anon, domain.AskMetric, json.RawMessage(explainedQ))
		require.NotNil(t, res.Answer)
		e := res.Answer.Explanation
		assert.Equal(t, []domain.DataThrough{{Model: "sales", Source: apptest.SourceName, Through: "2025-03-31"}}, e.DataThrough)
		assert.Len(t, e.Notes, 1, "the range ends after the data")
	}
	assert.Equal(t, asked, sys.asked, "never on the question path")

	other, err := domain.NewBundle("v2", func() domain.Definitions { d := apptest.Definitions(); d.Metrics[0].Description = "x"; return d }(), apptest.Knowledge())
	require.NoError(t, err)
	require.NoError(t, s.ReadThrough(context.Background(), other, apptest.Sources(sys)))
	res := s.Call(context.Background(), anon, domain.AskMetric, json.RawMessage(explainedQ))
	assert.Empty(t, res.Answer.Explanation.DataThrough, "what was read for another bundle is not shown")
}

// tracedSQL is a SQL runner that keeps the traceparent each statement was
// run under.
type tracedSQL struct {
	*apptest.SQL
	mu     sync.Mutex
	parent []string
}

func (s *tracedSQL) RunSQL(ctx context.Context, statement string, rowCap int) (*domain.RowSet, error) {
	s.mu.Lock()
	s.parent = append(s.parent, domain.TraceParent(ctx))
	s.mu.Unlock()
	return s.SQL.RunSQL(ctx, statement, rowCap)
}

// TestRunSQLCarriesTheTrace: a run_sql statement runs under the call's
// trace (docs/contract.md §16), so the adapter can end it with the
// traceparent comment; the audit record carries the same trace id.
func TestRunSQLCarriesTheTrace(t *testing.T) {
	sys := &tracedSQL{SQL: &apptest.SQL{Result: sqlResult()}}
	s, audit, _ := newSurface(t, sys, 2, 5*time.Second, withSQL, func(c *app.Config) { c.Tracer = &recordingTracer{} })
	caller := anon
	caller.Trace = trace.Remote{Parent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
	_, err := s.RunSQL(context.Background(), caller, "SELECT 1")
	require.NoError(t, err)
	require.Len(t, sys.parent, 1)
	assert.True(t, domain.ValidTraceParent(sys.parent[0]), sys.parent[0])
	assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", sys.parent[0][3:35], "the caller's trace")
	recs := audit.Records()
	require.NotEmpty(t, recs)
	assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", recs[len(recs)-1].TraceID)
}

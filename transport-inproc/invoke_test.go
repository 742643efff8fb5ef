package inproc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/app/wire"
	"sutura.dev/domain"
)

var operator = app.Caller{Principal: domain.LocalOperator, CorrelationID: "c-1"}

func fixedCaller(c app.Caller) func(context.Context) app.Caller {
	return func(context.Context) app.Caller { return c }
}

// TestInvokeIsTheSharedRendering: Invoke returns, byte for byte, what
// package wire renders for the surface's outcome of the same question —
// the function the MCP surface renders its structured content with (its
// own test checks its side). The audit record is the surface's, as it is
// over MCP.
func TestInvokeIsTheSharedRendering(t *testing.T) {
	for name, args := range map[string]string{"answer": qAnswer, "refusal": qRefusal} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, newFake(), envConfig{conn: Config{Caller: fixedCaller(operator)}})
			got, err := e.conn.Invoke(t.Context(), "ask_metric", json.RawMessage(args))
			require.NoError(t, err, "an answer and a refusal are results")

			q, err := domain.ParseQuestion([]byte(args))
			require.NoError(t, err)
			out, err := e.surface.Answer(t.Context(), operator, q)
			require.NoError(t, err)
			want, err := wire.OutcomeContent(out)
			require.NoError(t, err)
			assert.Equal(t, apptest.Steady(want), apptest.Steady(got))

			recs := e.audit.Records()
			require.Len(t, recs, 2)
			viaConn, direct := recs[0], recs[1]
			for _, r := range []*domain.AuditRecord{&viaConn, &direct} {
				r.Time, r.DurationMS = time.Time{}, 0
			}
			assert.Equal(t, direct, viaConn, "the same audit record as a direct call")
			assert.Equal(t, out.Kind(), viaConn.Outcome)
		})
	}
	t.Run("describe_catalog", func(t *testing.T) {
		e := newEnv(t, newFake(), envConfig{conn: Config{Caller: fixedCaller(app.Caller{Principal: domain.Principal{Subject: "agent"}})}})
		got, err := e.conn.Invoke(t.Context(), "describe_catalog", nil)
		require.NoError(t, err)
		want, err := wire.CatalogContent(e.surface.DescribeCatalog(app.Caller{Principal: domain.Principal{Subject: "agent"}}))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got))
		assert.NotContains(t, string(got), "secret_revenue", "caller-scoped")
		assert.Empty(t, e.audit.Records(), "describe_catalog writes no audit record")
	})
}

// TestDescribeCatalogArguments: search, metrics by name and the
// metric_unknown refusal (docs/contract.md §14), the same bytes as every
// transport.
func TestDescribeCatalogArguments(t *testing.T) {
	agent := app.Caller{Principal: domain.Principal{Subject: "agent"}}
	e := newEnv(t, newFake(), envConfig{conn: Config{Caller: fixedCaller(agent)}})
	got, err := e.conn.Invoke(t.Context(), "describe_catalog", json.RawMessage(`{"search":"revenue"}`))
	require.NoError(t, err)
	var v app.CatalogView
	require.NoError(t, json.Unmarshal(got, &v))
	require.Len(t, v.Summaries, 1)
	assert.Equal(t, "revenue", v.Summaries[0].Name)
	require.NotNil(t, v.Total)
	assert.Equal(t, 1, *v.Total, "secret_revenue is not counted")
	for _, name := range []string{"secret_revenue", "no_such"} {
		got, err = e.conn.Invoke(t.Context(), "describe_catalog", json.RawMessage(`{"metrics":["`+name+`"]}`))
		require.NoError(t, err, "a refusal is a result")
		assert.Contains(t, string(got), `"code":"metric_unknown"`)
	}
}

func TestAnswer(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	got, err := e.conn.Invoke(t.Context(), "ask_metric", json.RawMessage(qAnswer))
	require.NoError(t, err)
	var body struct {
		Outcome    string            `json:"outcome"`
		Columns    []domain.Column   `json:"columns"`
		Rows       [][]*string       `json:"rows"`
		Provenance domain.Provenance `json:"provenance"`
	}
	require.NoError(t, json.Unmarshal(got, &body))
	assert.Equal(t, "answer", body.Outcome)
	assert.Len(t, body.Rows, 2)
	assert.Equal(t, "v1", body.Provenance.DefinitionVersion)
	assert.Equal(t, e.surface.Bundle().Digest(), body.Provenance.DefinitionDigest)
	assert.Equal(t, 0, e.adm.InUse())
	recs := e.audit.Records()
	require.Len(t, recs, 1)
	assert.Equal(t, []string{"local-operator"}, recs[0].Principal)
	assert.NotEmpty(t, recs[0].CorrelationID, "a fresh correlation id per call")
}

func TestRefusalIsAResult(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	got, err := e.conn.Invoke(t.Context(), "ask_metric", json.RawMessage(qRefusal))
	require.NoError(t, err)
	var body struct {
		Outcome string `json:"outcome"`
		Reason  struct{ Code, Detail string }
	}
	require.NoError(t, json.Unmarshal(got, &body))
	assert.Equal(t, "refusal", body.Outcome)
	assert.Equal(t, "dimension_value_not_allowed", body.Reason.Code)
	assert.NotContains(t, string(got), canary)
}

func TestMalformedArgumentsNameTheFieldNeverTheValue(t *testing.T) {
	base := `"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"}`
	cases := []struct{ tool, args, field string }{
		{"ask_metric", `{` + base + `,"sql":"select '` + canary + `'"}`, "sql"},
		{"ask_metric", `{` + base + `,"table":"` + canary + `"}`, "table"},
		{"ask_metric", `{` + base + `,"where":"` + canary + `"}`, "where"},
		{"ask_metric", `{` + base + `,"rows":["` + canary + `"]}`, "rows"},
		{"ask_metric", `{"metrics":["revenue"],"grain":"` + canary + `","range":{"start":"2025-01-01","end":"2025-03-01"}}`, "grain"},
		{"ask_metric", `{"metrics":["revenue"],"grain":"month","range":{"start":"` + canary + `","end":"2025-03-01"}}`, "range.start"},
		{"ask_metric", `{"metrics":["` + canary + `"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"}}`, "metrics[0]"},
		{"ask_metric", `{` + base + `,"filters":[{"op":"eq","dimension":"city","value":"` + canary + `\t"}]}`, "filters[0].value"},
		{"ask_metric", `{` + base + `,"top":{"n":"` + canary + `","by":"metric"}}`, "top.n"},
		{"ask_metric", `{"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"}}`, "metrics"},
		{"ask_metric", `["` + canary + `"]`, ""},
		{"ask_metric", `{"` + canary + ` x":1}`, "(a field whose name is not an identifier)"},
		{"describe_catalog", `{"verbose":"` + canary + `"}`, "verbose"},
		{"describe_catalog", `{"search":"` + canary + `\u0000"}`, "search"},
		{"describe_catalog", `{"cursor":"` + canary + `"}`, "cursor"},
		{"describe_catalog", `{"metrics":["` + canary + ` x"]}`, "metrics[0]"},
	}
	e := newEnv(t, newFake(), envConfig{})
	for _, tc := range cases {
		t.Run(tc.tool+" "+tc.field, func(t *testing.T) {
			got, err := e.conn.Invoke(t.Context(), tc.tool, json.RawMessage(tc.args))
			assert.Nil(t, got)
			var ae *ArgumentError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tc.field, ae.Field)
			assert.Equal(t, domain.Capability(tc.tool), ae.Tool)
			assert.Contains(t, err.Error(), "the arguments are not a question: ")
			assert.Contains(t, err.Error(), tc.field)
			var fe *domain.FieldError
			assert.ErrorAs(t, err, &fe, "the domain's field error is reachable")
			assert.NotContains(t, fmt.Sprintf("%v %+v %#v", err, err, ae), canary, "the value is never echoed")
		})
	}
	assert.Empty(t, e.audit.Records(), "a malformed call reaches neither the surface nor the audit")
}

func TestUnknownTool(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	_, err := e.conn.Invoke(t.Context(), "run_sql", json.RawMessage(`{"sql":"select 1"}`))
	var ue *UnknownToolError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, "run_sql", ue.Tool)
	_, err = e.conn.Invoke(t.Context(), "drop "+canary, nil)
	require.ErrorAs(t, err, &ue)
	assert.NotContains(t, err.Error(), canary, "a name that is not an identifier is not echoed")
}

func TestUngrantedTool(t *testing.T) {
	reader := app.Caller{Principal: domain.Principal{Subject: "reader", Scopes: []string{"sutura:catalog.read"}}}
	e := newEnv(t, newFake(), envConfig{conn: Config{EnforceScopes: true, Caller: fixedCaller(reader)}})
	_, err := e.conn.Invoke(t.Context(), "ask_metric", json.RawMessage(qAnswer))
	var ne *NotGrantedError
	require.ErrorAs(t, err, &ne)
	assert.Equal(t, domain.AskMetric, ne.Tool)
	assert.Equal(t, domain.Scope("sutura:metrics.ask"), ne.Scope)
	assert.Contains(t, err.Error(), "sutura:metrics.ask")
	_, err = e.conn.Invoke(t.Context(), "describe_catalog", nil)
	require.NoError(t, err)
}

func TestServiceFailureHidesTheDriverText(t *testing.T) {
	sys := newFake()
	sys.Err = errors.New("pq: connection to 10.1.2.3 refused for password " + canary)
	var log bytes.Buffer
	e := newEnv(t, sys, envConfig{logger: slog.New(slog.NewTextHandler(&log, nil)), conn: Config{Caller: fixedCaller(operator)}})
	_, err := e.conn.Invoke(t.Context(), "ask_metric", json.RawMessage(qAnswer))
	var fe *FailureError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, string(app.CodeUnavailable), fe.Code)
	assert.ErrorIs(t, err, app.ErrUnavailable)
	assert.Equal(t, app.TextUnavailable, err.Error())
	assert.NotContains(t, fmt.Sprintf("%v %+v %#v", err, err, fe), canary)
	assert.Equal(t, 0, e.adm.InUse())
	assert.Contains(t, log.String(), `msg="call failed" capability=ask_metric`, "the operator's log has the failure")
	assert.Contains(t, log.String(), "correlation_id=c-1")
	assert.NotContains(t, log.String(), "2025-01-01", "never the arguments")
}

func TestZeroDenominatorIsAFailure(t *testing.T) {
	sys := newFake()
	sys.Err = fmt.Errorf("metric revenue: %w", domain.ErrZeroDenominator)
	e := newEnv(t, sys, envConfig{})
	_, err := e.conn.Invoke(t.Context(), "ask_metric", json.RawMessage(qAnswer))
	var fe *FailureError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, string(app.CodeZeroDenominator), fe.Code)
	assert.ErrorIs(t, err, domain.ErrZeroDenominator)
}

// TestAtCapacity: with every slot of the shared bound taken, a call waits
// the admission window and comes back at capacity; describe_catalog takes
// no slot.
func TestAtCapacity(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{max: 1, admissionTimeout: time.Second})
	release, err := e.adm.Acquire(t.Context())
	require.NoError(t, err)
	defer release()
	start := time.Now()
	_, err = e.conn.Invoke(t.Context(), "ask_metric", json.RawMessage(qSlow))
	var fe *FailureError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, string(app.CodeAtCapacity), fe.Code)
	assert.ErrorIs(t, err, app.ErrAtCapacity)
	assert.Equal(t, app.TextAtCapacity, err.Error())
	assert.GreaterOrEqual(t, time.Since(start), 900*time.Millisecond, "at capacity only after the admission window")
	_, err = e.conn.Invoke(t.Context(), "describe_catalog", nil)
	require.NoError(t, err, "describe_catalog takes no slot")
	assert.Equal(t, 1, e.adm.InUse(), "only the slot held by the test")
}

// TestReplyDeadline: the request timeout bounds the whole wait, admission
// included.
func TestReplyDeadline(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{max: 1, admissionTimeout: 5 * time.Second, requestTimeout: 2 * time.Second})
	release, err := e.adm.Acquire(t.Context())
	require.NoError(t, err)
	defer release()
	start := time.Now()
	_, err = e.conn.Invoke(t.Context(), "ask_metric", json.RawMessage(qSlow))
	assert.ErrorIs(t, err, app.ErrTimeout)
	assert.Equal(t, app.TextTimeout, err.Error())
	assert.Less(t, time.Since(start), 3*time.Second)

	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, err = e.conn.Invoke(ctx, "ask_metric", json.RawMessage(qSlow))
	var fe *FailureError
	require.ErrorAs(t, err, &fe, "the kernel's own deadline is the reply deadline")
	assert.Equal(t, string(app.CodeTimeout), fe.Code)
}

// TestExecutionBudget: execution that outlives its budget is stopped at
// the data system, and the answer is the refusal deadline_exceeded.
func TestExecutionBudget(t *testing.T) {
	sys := newFake()
	sys.Block = true
	e := newEnv(t, sys, envConfig{max: 1, requestTimeout: 2 * time.Second})
	got, err := e.conn.Invoke(t.Context(), "ask_metric", json.RawMessage(qSlow))
	require.NoError(t, err)
	assert.Contains(t, string(got), `"code":"deadline_exceeded"`)
	eventually(t, func() bool { return e.adm.InUse() == 0 }, "the slot is back")
	ended := sys.Ended()
	require.Len(t, ended, 1)
	assert.ErrorIs(t, ended[0], context.DeadlineExceeded)
}

// TestCancelledInvoke: a kernel that cancels its call gets ctx's error;
// the data system sees the cancellation, the slot comes back and the call
// is audited as cancelled.
func TestCancelledInvoke(t *testing.T) {
	sys := newFake()
	sys.Block = true
	e := newEnv(t, sys, envConfig{max: 1})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := e.conn.Invoke(ctx, "ask_metric", json.RawMessage(qSlow))
		done <- err
	}()
	select {
	case <-sys.Started():
	case <-time.After(5 * time.Second):
		t.Fatal("the question did not start")
	}
	require.Equal(t, 1, e.adm.InUse())
	cancel()
	err := <-done
	require.ErrorIs(t, err, context.Canceled)
	var fe *FailureError
	assert.False(t, errors.As(err, &fe), "a cancelled call is not a failure of the service")
	assert.Equal(t, 0, e.adm.InUse(), "the slot is back once the work stopped")
	ended := sys.Ended()
	require.Len(t, ended, 1)
	assert.ErrorIs(t, ended[0], context.Canceled, "the data system saw the cancellation")
	recs := e.audit.Records()
	require.Len(t, recs, 1)
	assert.Equal(t, "cancelled", recs[0].Code)

	_, err = e.conn.Invoke(ctx, "ask_metric", json.RawMessage(qSlow))
	require.ErrorIs(t, err, context.Canceled, "a call on an ended context does not start")
	assert.Len(t, e.audit.Records(), 1)
}

func TestInvokeWithCost(t *testing.T) {
	t.Run("measured", func(t *testing.T) {
		sys := metered(newFake())
		sys.Generate = 25
		e := newEnv(t, sys, envConfig{})
		content, cost, err := e.conn.InvokeWithCost(t.Context(), "ask_metric", json.RawMessage(qAnswer))
		require.NoError(t, err)
		plain, err := e.conn.Invoke(t.Context(), "ask_metric", json.RawMessage(qAnswer))
		require.NoError(t, err)
		assert.Equal(t, apptest.Steady(plain), apptest.Steady(content), "the same content as Invoke")
		assert.Equal(t, int64(100), cost.RowsScanned, "as the data system measured it")
		assert.Equal(t, int64(6400), cost.BytesRead)
		assert.Equal(t, 25, cost.RowsReturned)
		assert.Equal(t, []string{"files"}, cost.Sources)
		assert.Positive(t, cost.Elapsed)
		assert.True(t, cost.Measured)
	})
	t.Run("a data system that cannot measure", func(t *testing.T) {
		e := newEnv(t, newFake(), envConfig{})
		_, cost, err := e.conn.InvokeWithCost(t.Context(), "ask_metric", json.RawMessage(qAnswer))
		require.NoError(t, err)
		assert.False(t, cost.Measured)
		assert.Zero(t, cost.RowsScanned, "never estimated")
		assert.Equal(t, 2, cost.RowsReturned)
		assert.Equal(t, []string{"files"}, cost.Sources)
	})
	t.Run("refused before any data system", func(t *testing.T) {
		e := newEnv(t, metered(newFake()), envConfig{})
		_, cost, err := e.conn.InvokeWithCost(t.Context(), "ask_metric", json.RawMessage(qRefusal))
		require.NoError(t, err)
		assert.Equal(t, domain.Cost{Sources: []string{}, Measured: true}, cost)
	})
	t.Run("refused by the data system", func(t *testing.T) {
		sys := metered(newFake())
		sys.Err = &domain.RefusalError{Reason: domain.Refuse(domain.ResourcesExhausted, "the working set is full")}
		e := newEnv(t, sys, envConfig{})
		content, cost, err := e.conn.InvokeWithCost(t.Context(), "ask_metric", json.RawMessage(qAnswer))
		require.NoError(t, err)
		assert.Contains(t, string(content), "resources_exhausted")
		assert.Equal(t, int64(1), cost.RowsScanned, "what was spent until it stopped")
		assert.Equal(t, []string{"files"}, cost.Sources)
		assert.Zero(t, cost.RowsReturned)
	})
	t.Run("describe_catalog", func(t *testing.T) {
		e := newEnv(t, metered(newFake()), envConfig{})
		_, cost, err := e.conn.InvokeWithCost(t.Context(), "describe_catalog", json.RawMessage(`{}`))
		require.NoError(t, err)
		assert.Equal(t, domain.Cost{Sources: []string{}, Measured: true}, cost)
	})
	t.Run("failure", func(t *testing.T) {
		sys := metered(newFake())
		sys.Err = errors.New("down")
		e := newEnv(t, sys, envConfig{})
		content, cost, err := e.conn.InvokeWithCost(t.Context(), "ask_metric", json.RawMessage(qAnswer))
		require.ErrorIs(t, err, app.ErrUnavailable)
		assert.Nil(t, content)
		assert.Zero(t, cost)
	})
}

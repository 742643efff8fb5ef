package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
)

func TestHealthIsExactlyOK(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	r := e.do(t, request{path: "/health"})
	assert.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, `{"status":"ok"}`, string(r.body))
	assert.Equal(t, "application/json", r.header.Get("Content-Type"))
}

func TestReadyWaitsForTheReadinessFunc(t *testing.T) {
	var ready atomic.Bool
	e := newEnv(t, newFake(), envConfig{cfg: Config{Ready: ready.Load}})
	requireFailure(t, e.do(t, request{path: "/ready"}), Unavailable)
	ready.Store(true)
	r := e.do(t, request{path: "/ready"})
	assert.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, `{"status":"ready"}`, string(r.body))
}

func TestCatalogIsTheCallersView(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	r := e.do(t, request{path: "/v1/catalog"})
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	m := r.json(t)
	assert.Equal(t, "v1", m["definition_version"])
	assert.Len(t, m["metrics"], 2, "the local operator sees every metric")

	anon := newEnv(t, newFake(), envConfig{anonymous: true})
	m = anon.do(t, request{path: "/v1/catalog"}).json(t)
	assert.Len(t, m["metrics"], 1, "the anonymous principal sees open metrics only")
}

func TestQueryAnswers(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	r := e.ask(t, qAnswer, nil)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	m := r.json(t)
	assert.Equal(t, "answer", m["outcome"])
	assert.Equal(t, []any{[]any{"2025-01-01", "42"}}, m["rows"])
	prov := m["provenance"].(map[string]any)
	assert.Equal(t, "v1", prov["definition_version"])
	recs := e.audit.Records()
	require.Len(t, recs, 1)
	assert.Equal(t, "answer", recs[0].Outcome)
	assert.Equal(t, []string{"local-operator"}, recs[0].Principal)
}

// TestEveryRefusalCodeHasItsStatus provokes every code of the contract:
// the fake data system refuses with it at execution time, and the HTTP
// status and body follow the code.
func TestEveryRefusalCodeHasItsStatus(t *testing.T) {
	for _, code := range domain.Codes() {
		t.Run(string(code), func(t *testing.T) {
			sys := newFake()
			reason := domain.Refuse(code, "refused for metric %s", "revenue")
			if code == domain.BudgetExhausted {
				reason = reason.WithRetryAfter(89500 * time.Millisecond)
			}
			sys.Err = &domain.RefusalError{Reason: reason}
			e := newEnv(t, sys, envConfig{})
			r := e.ask(t, qAnswer, nil)
			requireRefusal(t, r, code)
			assert.GreaterOrEqual(t, r.status, 400, "a refusal is never 2xx")
			if code == domain.BudgetExhausted {
				assert.Equal(t, "90", r.header.Get("Retry-After"), "the seconds until the window renews, rounded up")
			} else {
				assert.Empty(t, r.header.Get("Retry-After"))
			}
		})
	}
}

// TestCompiledRefusals takes the real path for the refusals the compiler
// and the surface produce.
func TestCompiledRefusals(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	for _, tc := range []struct {
		question string
		code     domain.Code
	}{
		{`{"metrics":["nope"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"}}`, domain.MetricUnknown},
		{`{"metrics":["revenue"],"grain":"day","range":{"start":"2025-01-01","end":"2025-03-01"}}`, domain.GrainNotSupported},
		{`{"metrics":["revenue","revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"}}`, domain.DuplicateMetricName},
		{`{"metrics":["revenue"],"grain":"month","range":{"start":"2000-01-01","end":"2025-03-01"}}`, domain.TimeRangeTooLong},
		{`{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"},"dimensions":["nope"]}`, domain.DimensionNotPermitted},
		{`{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"},"filters":[{"op":"eq","dimension":"note","value":"x"}]}`, domain.DimensionNotFilterable},
		{qBadValue, domain.DimensionValueNotAllowed},
	} {
		t.Run(string(tc.code), func(t *testing.T) { requireRefusal(t, e.ask(t, tc.question, nil), tc.code) })
	}
	t.Run("source_unavailable", func(t *testing.T) {
		e := newEnv(t, newFake(), envConfig{noSource: true})
		requireRefusal(t, e.ask(t, qAnswer, nil), domain.SourceUnavailable)
	})
}

func TestNotAQuestionNamesTheFieldNeverTheValue(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	for _, tc := range []struct{ body, names string }{
		{`{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"},"sql":"` + canary + `"}`, "sql is not a field of a question"},
		{`{"metrics":["revenue"],"grain":"` + canary + `","range":{"start":"2025-01-01","end":"2025-03-01"}}`, "grain"},
		{`{"metrics":["revenue"],"grain":"month","range":{"start":"` + canary + `","end":"2025-03-01"}}`, "range.start"},
		{`{"metrics":[`, "JSON"},
	} {
		m := requireFailure(t, e.ask(t, tc.body, nil), NotAQuestion)
		assert.Contains(t, m["detail"], tc.names)
	}
	r := e.do(t, request{path: "/v1/query", body: qAnswer, header: map[string]string{"Content-Type": "text/plain"}})
	m := requireFailure(t, r, UnsupportedMediaType)
	assert.Contains(t, m["detail"], "Content-Type")
	assert.Empty(t, e.audit.Records(), "nothing that is not a question reaches the surface")
}

// TestEveryFailureCodeHasItsStatus provokes every failure code and checks
// its status and body.
func TestEveryFailureCodeHasItsStatus(t *testing.T) {
	seen := map[FailureCode]bool{}
	check := func(t *testing.T, r reply, code FailureCode) {
		t.Helper()
		requireFailure(t, r, code)
		seen[code] = true
	}
	t.Run("unauthorized", func(t *testing.T) {
		e := newEnv(t, newFake(), envConfig{cfg: Config{AccessToken: []byte("s3cret")}})
		r := e.do(t, request{path: "/v1/catalog"})
		check(t, r, Unauthorized)
		assert.True(t, strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer "))
	})
	t.Run("insufficient_scope", func(t *testing.T) {
		idp := newIdentityProvider(t)
		e := idp.env(t, envConfig{})
		r := e.ask(t, qAnswer, idp.bearer(t, idp.claims("alice", "sutura:catalog.read")))
		m := requireFailure(t, r, InsufficientScope)
		assert.Contains(t, m["detail"], "sutura:metrics.ask", "the failure names the scope")
		assert.Contains(t, r.header.Get("WWW-Authenticate"), `scope="sutura:metrics.ask"`)
		seen[InsufficientScope] = true
	})
	t.Run("tool_not_enabled", func(t *testing.T) {
		e := newEnv(t, newFake(), envConfig{})
		check(t, e.do(t, request{path: "/v1/sql/run", body: `{"sql":"select 1"}`}), ToolNotEnabled)
	})
	t.Run("host_not_allowed", func(t *testing.T) {
		e := newEnv(t, newFake(), envConfig{})
		check(t, e.do(t, request{path: "/v1/catalog", host: "evil.example"}), HostNotAllowed)
	})
	t.Run("not_a_question", func(t *testing.T) {
		e := newEnv(t, newFake(), envConfig{})
		check(t, e.ask(t, `{"sql":"`+canary+`"}`, nil), NotAQuestion)
	})
	t.Run("too_large", func(t *testing.T) {
		e := newEnv(t, newFake(), envConfig{cfg: Config{MaxBodyBytes: 64}})
		check(t, e.ask(t, qAnswer, nil), TooLarge)
	})
	t.Run("unsupported_media_type", func(t *testing.T) {
		e := newEnv(t, newFake(), envConfig{})
		check(t, e.do(t, request{path: "/v1/query", body: qAnswer, header: map[string]string{"Content-Type": "text/plain"}}), UnsupportedMediaType)
	})
	t.Run("rate_limited", func(t *testing.T) {
		e := newEnv(t, newFake(), envConfig{cfg: Config{RateLimit: RateLimit{PerSecond: 0.01, Burst: 1}}})
		require.Equal(t, http.StatusOK, e.do(t, request{path: "/v1/catalog"}).status)
		r := e.do(t, request{path: "/v1/catalog"})
		check(t, r, RateLimited)
		assert.NotEmpty(t, r.header.Get("Retry-After"))
	})
	t.Run("timeout", func(t *testing.T) {
		// The slot is held, so the question waits in admission until the
		// request deadline passes: its wait is cancelled and it is 408.
		e := newEnv(t, newFake(), envConfig{max: 1, admissionTimeout: 5 * time.Second, requestTimeout: 300 * time.Millisecond})
		release, err := e.adm.Acquire(t.Context())
		require.NoError(t, err)
		defer release()
		start := time.Now()
		check(t, e.ask(t, qAnswer, nil), Timeout)
		assert.Less(t, time.Since(start), 3*time.Second)
		recs := e.audit.Records()
		require.Len(t, recs, 1)
		assert.Equal(t, "timeout", recs[0].Code)
	})
	t.Run("internal", func(t *testing.T) {
		e := newEnv(t, newFake(), envConfig{})
		e.audit.Fail(errors.New("disk full"))
		check(t, e.ask(t, qAnswer, nil), Internal)
	})
	t.Run("unavailable", func(t *testing.T) {
		sys := newFake()
		sys.Err = errors.New("driver: connection refused to " + canary)
		e := newEnv(t, sys, envConfig{})
		m := requireFailure(t, e.ask(t, qAnswer, nil), Unavailable)
		assert.NotContains(t, m["detail"], "driver", "no driver text reaches the caller")
		assert.Contains(t, e.logs.String(), "connection refused", "the operator's log has it")
		seen[Unavailable] = true
	})
	t.Run("identity_unavailable", func(t *testing.T) {
		idp := newIdentityProvider(t)
		idp.failing.Store(true)
		e := idp.env(t, envConfig{})
		check(t, e.do(t, request{path: "/v1/catalog", header: idp.bearer(t, idp.claims("alice", "sutura:catalog.read"))}), IdentityUnavailable)
	})
	t.Run("at_capacity", func(t *testing.T) {
		sys := newFake()
		sys.Block = true
		e := newEnv(t, sys, envConfig{max: 1, admissionTimeout: time.Second})
		done := make(chan reply, 1)
		go func() { done <- e.ask(t, qAnswer, nil) }()
		<-sys.Started()
		r := e.ask(t, qAnswer, nil)
		check(t, r, AtCapacity)
		assert.Equal(t, "1", r.header.Get("Retry-After"))
		sys.Release()
		assert.Equal(t, http.StatusOK, (<-done).status)
	})
	t.Run("statement_failed", func(t *testing.T) {
		e := newEnv(t, newFake(), envConfig{sql: &apptest.SQL{Err: &apptest.StatementError{Text: canary}},
			cfg: Config{Tools: app.Tools(app.ToolOptions{RunSQL: true})}})
		check(t, e.do(t, request{path: "/v1/sql/run", body: `{"statement":"selec 1"}`}), StatementFailed)
	})
	t.Run("zero_denominator", func(t *testing.T) {
		sys := newFake()
		sys.Err = fmt.Errorf("metric revenue: %w", domain.ErrZeroDenominator)
		e := newEnv(t, sys, envConfig{})
		check(t, e.ask(t, qAnswer, nil), ZeroDenominator)
	})
	t.Run("not_found", func(t *testing.T) {
		e := newEnv(t, newFake(), envConfig{})
		check(t, e.do(t, request{path: "/v2/nothing"}), NotFound)
		check(t, e.do(t, request{path: "/mcp", body: "{}"}), NotFound) // not mounted
	})
	t.Run("method_not_allowed", func(t *testing.T) {
		e := newEnv(t, newFake(), envConfig{})
		r := e.do(t, request{method: http.MethodGet, path: "/v1/query"})
		check(t, r, MethodNotAllowed)
		assert.Equal(t, "POST", r.header.Get("Allow"))
	})
	for _, code := range FailureCodes() {
		assert.True(t, seen[code], "failure code %s is not provoked", code)
	}
}

func TestAClientThatGoesAwayCancelsTheWork(t *testing.T) {
	sys := newFake()
	sys.Block = true
	e := newEnv(t, sys, envConfig{max: 1})
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+"/v1/query", strings.NewReader(qAnswer))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Timeout: 200 * time.Millisecond}
	_, err = client.Do(req)
	require.Error(t, err)
	eventually(t, func() bool { return len(sys.Ended()) == 1 }, "the data system saw the cancellation")
	eventually(t, func() bool { return e.adm.InUse() == 0 }, "the slot is back")
	// The slot is given back when the work stops and the record is
	// written after it, while the handler winds down without its client.
	eventually(t, func() bool { return len(e.audit.Records()) == 1 }, "the call is audited")
	recs := e.audit.Records()
	require.Len(t, recs, 1)
	assert.Equal(t, "cancelled", recs[0].Code)
}

func TestNewRefusesWhatItCannotServe(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	surface := e.server.cfg.Surface
	for name, cfg := range map[string]Config{
		"no surface":             {},
		"a tool it cannot serve": {Surface: surface, Tools: []app.Tool{{ID: "drop_tables"}}},
		"single-user and jwt":    {Surface: surface, SingleUser: true, Inbound: &InboundConfig{}},
		"equal tokens":           {Surface: surface, AccessToken: []byte("a"), MetricsToken: []byte("a")},
		"empty token":            {Surface: surface, AccessToken: []byte{}},
		"host with a path":       {Surface: surface, AllowedHosts: []string{"a.example/x"}},
		"another tool list":      {Surface: surface, Tools: app.Tools(app.ToolOptions{RunSQL: true})},
		"inbound without issuer": {Surface: surface, Inbound: &InboundConfig{Audience: "a", JWKSURL: "https://x", Algorithms: []string{RS256}}},
		"inbound both key sets":  {Surface: surface, Inbound: &InboundConfig{Issuer: "i", Audience: "a", JWKSURL: "https://x", JWKSFile: "f", Algorithms: []string{RS256}}},
		"inbound HS256":          {Surface: surface, Inbound: &InboundConfig{Issuer: "i", Audience: "a", JWKSURL: "https://x", Algorithms: []string{"HS256"}}},
		"inbound none":           {Surface: surface, Inbound: &InboundConfig{Issuer: "i", Audience: "a", JWKSURL: "https://x", Algorithms: []string{"none"}}},
		"inbound URL with user":  {Surface: surface, Inbound: &InboundConfig{Issuer: "i", Audience: "a", JWKSURL: "https://u:p@x", Algorithms: []string{RS256}}},
		"inbound missing file":   {Surface: surface, Inbound: &InboundConfig{Issuer: "i", Audience: "a", JWKSFile: t.TempDir() + "/none.json", Algorithms: []string{RS256}}},
	} {
		_, err := New(cfg)
		assert.Error(t, err, name)
	}
}

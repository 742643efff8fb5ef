package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
	"sutura.dev/runtime"
)

// canary is a value planted in requests; it must never come back.
const canary = "ZZ-canary-9f3a"

// demoBundle is the demo bundle of apptest or, with withoutSecret, the same
// without its metric restricted to the audience "finance".
func demoBundle(t testing.TB, withoutSecret bool) *domain.Bundle {
	t.Helper()
	if !withoutSecret {
		return apptest.Bundle(t, "v1")
	}
	defs := apptest.Definitions()
	defs.Metrics = slices.DeleteFunc(defs.Metrics, func(m domain.Metric) bool { return !m.Audience.Open() })
	require.Len(t, defs.Metrics, 1)
	b, err := domain.NewBundle("v1", defs, apptest.Knowledge())
	require.NoError(t, err)
	return b
}

// newFake is a data system that answers a question without dimensions
// with one row; any other shape gets no rows.
func newFake() *apptest.System {
	return &apptest.System{Rows: [][]domain.Cell{{domain.DateCell(domain.DateOf(2025, 1, 1)), domain.Int(42)}}}
}

// envConfig shapes one test's process.
type envConfig struct {
	max              int
	admissionTimeout time.Duration
	requestTimeout   time.Duration
	withoutSecret    bool
	noSource         bool         // the model's source is not open
	anonymous        bool         // neither single-user nor inbound identity
	sql              *apptest.SQL // the model's source, instead of sys, and it runs SQL
	cfg              Config
	// quiet discards the server's log and audit records instead of keeping
	// them: a fuzz target sends millions of requests.
	quiet bool
	// bundle, when set, is the pinned catalogue instead of the demo's.
	bundle *domain.Bundle
}

type env struct {
	sys     *apptest.System
	adm     *runtime.Admission
	audit   *apptest.Audit
	metrics *Metrics
	server  *Server
	srv     *httptest.Server
	logs    *syncBuffer
}

// discardAudit is an audit sink that keeps nothing.
type discardAudit struct{}

func (discardAudit) Write(context.Context, domain.AuditRecord) error { return nil }

// syncBuffer is a log destination tests read.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newEnv builds the surface and the server over a real loopback socket.
// Unless cfg sets inbound identity or anonymous is set, the server is
// single-user.
func newEnv(t testing.TB, sys *apptest.System, ec envConfig) *env {
	t.Helper()
	if ec.max == 0 {
		ec.max = 4
	}
	if ec.admissionTimeout == 0 {
		ec.admissionTimeout = time.Second
	}
	if ec.requestTimeout == 0 {
		ec.requestTimeout = 10 * time.Second
	}
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: ec.max, Timeout: ec.admissionTimeout})
	require.NoError(t, err)
	metrics, err := NewMetrics(MetricsConfig{Version: "test", Admission: adm})
	require.NoError(t, err)
	audit := &apptest.Audit{}
	sources := apptest.Sources(sys)
	if ec.sql != nil {
		ec.sql.System = sys
		sources = apptest.Sources(ec.sql)
	}
	if ec.noSource {
		sources = nil
	}
	var sink app.AuditSink = audit
	if ec.quiet {
		sink = discardAudit{}
	}
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if ec.quiet {
		logger = slog.New(slog.DiscardHandler)
	}
	pinned := ec.bundle
	if pinned == nil {
		pinned = demoBundle(t, ec.withoutSecret)
	}
	surface, err := app.New(app.Config{Catalog: apptest.Catalog{Pinned: pinned}, Sources: sources,
		Admission: adm, Audit: metrics.Audit(sink), RequestTimeout: ec.requestTimeout, Tools: ec.cfg.Tools, Logger: logger})
	require.NoError(t, err)
	cfg := ec.cfg
	cfg.Surface = surface
	cfg.Metrics = metrics
	if cfg.Inbound == nil && !ec.anonymous {
		cfg.SingleUser = true
	}
	if cfg.Tools == nil {
		cfg.Tools = surface.Tools()
	}
	cfg.Logger = logger
	server, err := New(cfg)
	require.NoError(t, err)
	srv := httptest.NewServer(server.Handler())
	t.Cleanup(srv.Close)
	return &env{sys: sys, adm: adm, audit: audit, metrics: metrics, server: server, srv: srv, logs: logs}
}

// request is one HTTP request of a test.
type request struct {
	method, path, body string
	header             map[string]string
	host               string
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

func (r reply) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.body, &m), string(r.body))
	return m
}

func (e *env) do(t *testing.T, rq request) reply {
	t.Helper()
	if rq.method == "" {
		rq.method = http.MethodGet
		if rq.body != "" {
			rq.method = http.MethodPost
		}
	}
	var body io.Reader
	if rq.body != "" {
		body = strings.NewReader(rq.body)
	}
	req, err := http.NewRequest(rq.method, e.srv.URL+rq.path, body)
	require.NoError(t, err)
	if rq.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range rq.header {
		req.Header.Set(k, v)
	}
	if rq.host != "" {
		req.Host = rq.host
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

// ask posts a question.
func (e *env) ask(t *testing.T, question string, header map[string]string) reply {
	t.Helper()
	return e.do(t, request{path: "/v1/query", body: question, header: header})
}

// requireFailure checks a failure reply: its status and body
// {code, status, detail}, and that no canary came back.
func requireFailure(t *testing.T, r reply, code FailureCode) map[string]any {
	t.Helper()
	require.Equal(t, code.Status(), r.status, string(r.body))
	m := r.json(t)
	require.Equal(t, string(code), m["code"], string(r.body))
	require.EqualValues(t, code.Status(), m["status"])
	require.NotEmpty(t, m["detail"])
	require.Len(t, m, 3, "a failure body is exactly {code, status, detail}")
	require.NotContains(t, string(r.body), canary)
	return m
}

// requireRefusal checks a refusal reply.
func requireRefusal(t *testing.T, r reply, code domain.Code) {
	t.Helper()
	require.Equal(t, code.Status(), r.status, string(r.body))
	m := r.json(t)
	require.Equal(t, "refusal", m["outcome"])
	reason, ok := m["reason"].(map[string]any)
	require.True(t, ok, string(r.body))
	require.Equal(t, string(code), reason["code"])
	require.EqualValues(t, code.Status(), reason["status"])
	require.NotEmpty(t, reason["detail"])
	if _, ok := reason["retry_after_seconds"]; ok {
		require.Equal(t, domain.BudgetExhausted, code, "only budget_exhausted says when to ask again")
		require.Len(t, reason, 4)
	} else {
		require.Len(t, reason, 3)
	}
	require.NotContains(t, string(r.body), canary)
}

// The questions the tests send.
const (
	qAnswer   = `{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"}}`
	qSecret   = `{"metrics":["secret_revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"}}`
	qBadValue = `{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"},"filters":[{"op":"eq","dimension":"city","value":"` + canary + `"}]}`
)

// eventually waits up to two seconds for cond.
func eventually(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	require.Eventually(t, cond, 2*time.Second, 5*time.Millisecond, msg)
}

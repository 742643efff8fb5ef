package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/domain"
	"sutura.dev/runtime"
)

// canary is a value planted in requests; it must never come back.
const canary = "ZZ-canary-9f3a"

// demoBundle is a small catalogue built by hand: one model, an open metric
// with a filterable and a group-by-only dimension, and, unless withoutSecret,
// a metric restricted to the audience "finance".
func demoBundle(t *testing.T, withoutSecret bool) *domain.Bundle {
	t.Helper()
	defs := domain.Definitions{
		Models: []domain.Model{{Name: "sales", Source: "files", Table: "sales", Columns: []domain.ModelColumn{
			{Name: "sold_on", Type: domain.TypeDate}, {Name: "amount", Type: domain.TypeInteger},
			{Name: "city", Type: domain.TypeText}, {Name: "note", Type: domain.TypeText}}}},
		Metrics: []domain.Metric{{
			Name: "revenue", Model: "sales", TimeColumn: "sold_on", Grains: []domain.Grain{domain.Month, domain.Year},
			Description: "Revenue in euros.",
			Measure:     &domain.Measure{Simple: &domain.Term{Aggregate: domain.Sum, Column: "amount"}},
			Dimensions: []domain.Dimension{
				{Name: "city", Column: "city", Filterable: true, Values: []string{"Lyon", "Paris"}},
				{Name: "note", Column: "note"},
			},
		}},
	}
	if !withoutSecret {
		defs.Metrics = append(defs.Metrics, domain.Metric{
			Name: "secret_revenue", Model: "sales", TimeColumn: "sold_on", Grains: []domain.Grain{domain.Month},
			Measure:  &domain.Measure{Simple: &domain.Term{Aggregate: domain.Sum, Column: "amount"}},
			Audience: domain.Audience{Restricted: []string{"finance"}},
		})
	}
	k := domain.Knowledge{
		Glossary:   []domain.Glossary{{Term: "turnover", Means: domain.Meaning{Metric: "revenue"}}},
		NotDefined: []domain.NotDefined{{Phrase: "profit"}},
	}
	b, err := domain.NewBundle("v1", defs, k)
	require.NoError(t, err)
	return b
}

// fakeSystem is a data system written by hand: it answers with fixed rows,
// fails with err, refuses with refusal, or blocks until released or until
// its context ends.
type fakeSystem struct {
	rows    [][]domain.Cell
	err     error
	block   bool
	release chan struct{}
	started chan struct{}

	mu    sync.Mutex
	ended []error // the context's error when each blocked execution ended
}

func newFake() *fakeSystem {
	return &fakeSystem{release: make(chan struct{}), started: make(chan struct{}, 64),
		rows: [][]domain.Cell{{domain.DateCell(domain.DateOf(2025, 1, 1)), domain.Int(42)}}}
}

func (f *fakeSystem) Execute(ctx context.Context, plan *domain.Plan) (*domain.RowSet, error) {
	f.started <- struct{}{}
	if f.block {
		select {
		case <-ctx.Done():
			f.mu.Lock()
			f.ended = append(f.ended, ctx.Err())
			f.mu.Unlock()
			return nil, ctx.Err()
		case <-f.release:
		}
	}
	if f.err != nil {
		return nil, f.err
	}
	rows := f.rows
	if len(plan.Columns) != len(rows[0]) {
		rows = nil
	}
	return &domain.RowSet{Columns: plan.Columns, Rows: rows}, nil
}

func (f *fakeSystem) endedWith() []error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]error(nil), f.ended...)
}

type memAudit struct {
	mu   sync.Mutex
	recs []domain.AuditRecord
	fail bool
}

func (m *memAudit) Write(_ context.Context, r domain.AuditRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail {
		return errors.New("disk full")
	}
	m.recs = append(m.recs, r)
	return nil
}

func (m *memAudit) records() []domain.AuditRecord {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]domain.AuditRecord(nil), m.recs...)
}

type fixedCatalog struct{ b *domain.Bundle }

func (c fixedCatalog) Bundle() *domain.Bundle { return c.b }

// envConfig shapes one test's process.
type envConfig struct {
	max              int
	admissionTimeout time.Duration
	requestTimeout   time.Duration
	withoutSecret    bool
	noSource         bool // the model's source is not open
	anonymous        bool // neither single-user nor inbound identity
	cfg              Config
}

type env struct {
	sys     *fakeSystem
	adm     *runtime.Admission
	audit   *memAudit
	metrics *Metrics
	server  *Server
	srv     *httptest.Server
	logs    *syncBuffer
}

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
func newEnv(t *testing.T, sys *fakeSystem, ec envConfig) *env {
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
	audit := &memAudit{}
	sources := map[string]app.Source{"files": {System: sys, Posture: domain.SharedServiceUser}}
	if ec.noSource {
		sources = nil
	}
	surface, err := app.New(app.Config{Catalog: fixedCatalog{demoBundle(t, ec.withoutSecret)}, Sources: sources,
		Admission: adm, Audit: metrics.Audit(audit), RequestTimeout: ec.requestTimeout})
	require.NoError(t, err)
	cfg := ec.cfg
	cfg.Surface = surface
	cfg.Metrics = metrics
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = ec.requestTimeout
	}
	if cfg.Inbound == nil && !ec.anonymous {
		cfg.SingleUser = true
	}
	logs := &syncBuffer{}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
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
	require.Len(t, reason, 3)
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

package parity_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
	engine "sutura.dev/exec-arrow"
	"sutura.dev/runtime"
	httpapi "sutura.dev/transport-http"
	inproc "sutura.dev/transport-inproc"
	mcpserver "sutura.dev/transport-mcp"
)

// setup shapes the process one call is asked of.
type setup struct {
	// sys is the data system; nil is one that answers with two rows.
	sys app.DataSystem
	// sql enables run_sql on sys (which must then run SQL).
	sql bool
	// scopes, when set, are the caller's (from an inbound identity):
	// the surface then grants only the tools they name.
	scopes []string
	// max, admissionTimeout and requestTimeout are the bounds; zero is 2,
	// a second and ten seconds.
	max              int
	admissionTimeout time.Duration
	requestTimeout   time.Duration
	// hold takes the only slot before the call, so the call waits.
	hold bool
	// auditFails makes every audit write fail.
	auditFails bool
	// federated serves apptest's federated bundle: sys holds sales,
	// stores (nil: two rows) holds the stores, the regions answer two
	// rows; the engine's combine joins them unless noCombiner is set.
	federated  bool
	stores     app.DataSystem
	noCombiner bool
	governance app.Governance
}

// env is one surface and every transport over it.
type env struct {
	adm     *runtime.Admission
	audit   *apptest.Audit
	surface *app.Surface
	mcp     *mcpserver.Server
	mcpHTTP *httptest.Server
	http    *httptest.Server
	conn    *inproc.Connection
	token   string // the bearer of a scoped caller, for HTTP
}

const subject = "alice"

func newEnv(t *testing.T, s setup) *env {
	t.Helper()
	if s.sys == nil {
		s.sys = &apptest.System{Generate: 2}
	}
	if s.max == 0 {
		s.max = 2
	}
	if s.admissionTimeout == 0 {
		s.admissionTimeout = time.Second
	}
	if s.requestTimeout == 0 {
		s.requestTimeout = 10 * time.Second
	}
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: s.max, Timeout: s.admissionTimeout})
	require.NoError(t, err)
	audit := &apptest.Audit{}
	if s.auditFails {
		audit.Fail(errors.New("disk full"))
	}
	bundle, sources := apptest.Bundle(t, "v1"), apptest.Sources(s.sys)
	var combiner app.Combiner
	if s.federated {
		if s.stores == nil {
			s.stores = &apptest.System{Generate: 2}
		}
		bundle, sources = apptest.FederatedBundle(t, "v1"), apptest.FederatedSources(s.sys, s.stores, &apptest.System{Generate: 2})
		if !s.noCombiner {
			c, err := engine.NewCombiner(t.Context(), engine.CombinerConfig{})
			require.NoError(t, err)
			combiner = c
		}
	}
	cat, err := app.NewSwappableCatalog(bundle)
	require.NoError(t, err)
	tools := app.Tools(app.ToolOptions{RunSQL: s.sql})
	surface, err := app.New(app.Config{Catalog: cat, Sources: sources, Admission: adm, Audit: audit,
		Tools: tools, RequestTimeout: s.requestTimeout, Combiner: combiner, Governance: s.governance,
		Now: func() time.Time { return time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC) }})
	require.NoError(t, err)
	e := &env{adm: adm, audit: audit, surface: surface}

	var caller func(context.Context) app.Caller
	hcfg := httpapi.Config{Surface: surface, Tools: tools, SingleUser: true}
	if s.scopes != nil {
		principal := domain.Principal{Subject: subject, Scopes: s.scopes}
		caller = func(context.Context) app.Caller { return app.Caller{Principal: principal} }
		hcfg.SingleUser = false
		hcfg.Inbound, e.token = identity(t, s.scopes)
	}
	e.mcp, err = mcpserver.New(surface, mcpserver.Options{Caller: caller, EnforceScopes: caller != nil})
	require.NoError(t, err)
	e.mcpHTTP = httptest.NewServer(e.mcp.Handler())
	t.Cleanup(e.mcpHTTP.Close)
	hs, err := httpapi.New(hcfg)
	require.NoError(t, err)
	e.http = httptest.NewServer(hs.Handler())
	t.Cleanup(e.http.Close)
	e.conn, err = inproc.New(inproc.Config{Surface: surface, Admission: adm, Caller: caller, EnforceScopes: caller != nil})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.conn.Close() })
	if s.hold {
		release, err := adm.Acquire(t.Context())
		require.NoError(t, err)
		t.Cleanup(release)
	}
	return e
}

// identity is an inbound identity whose key set is a file, and the
// bearer of a token for subject with scopes.
func identity(t *testing.T, scopes []string) (*httpapi.InboundConfig, string) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	b64 := base64.RawURLEncoding.EncodeToString
	jwks, err := json.Marshal(map[string]any{"keys": []map[string]any{{"kty": "OKP", "crv": "Ed25519", "kid": "k1", "x": b64(pub)}}})
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "jwks.json")
	require.NoError(t, os.WriteFile(file, jwks, 0o600))
	header, err := json.Marshal(map[string]any{"alg": "EdDSA", "kid": "k1", "typ": "JWT"})
	require.NoError(t, err)
	now := time.Now().Unix()
	claims, err := json.Marshal(map[string]any{"iss": "https://idp.test", "aud": "sutura", "sub": subject,
		"iat": now, "exp": now + 600, "scope": strings.Join(scopes, " ")})
	require.NoError(t, err)
	input := b64(header) + "." + b64(claims)
	token := input + "." + b64(ed25519.Sign(priv, []byte(input)))
	return &httpapi.InboundConfig{Issuer: "https://idp.test", Audience: "sutura", JWKSFile: file,
		Algorithms: []string{httpapi.EdDSA}}, token
}

// observed is what a caller saw of one call: the failure code, or the
// outcome's content as canonical JSON (a refusal without the HTTP status
// its reason carries there).
type observed struct {
	code    string
	content string
}

// transport asks one call through one transport.
type transport struct {
	name string
	call func(t *testing.T, e *env, tool, args string) observed
}

var transports = []transport{
	{"mcp in-memory", func(t *testing.T, e *env, tool, args string) observed {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := e.mcp.MCP().Connect(t.Context(), st, nil)
		require.NoError(t, err)
		defer ss.Close()
		cs, err := client().Connect(t.Context(), ct, nil)
		require.NoError(t, err)
		defer cs.Close()
		return callMCP(t, cs, tool, args)
	}},
	{"mcp streamable http", func(t *testing.T, e *env, tool, args string) observed {
		hc := &http.Client{Transport: bearerTransport{e.token}}
		cs, err := client().Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: e.mcpHTTP.URL, HTTPClient: hc}, nil)
		require.NoError(t, err)
		defer cs.Close()
		return callMCP(t, cs, tool, args)
	}},
	{"http /v1", callHTTP},
	{"in-process", func(t *testing.T, e *env, tool, args string) observed {
		got, err := e.conn.Invoke(t.Context(), tool, json.RawMessage(args))
		if err == nil {
			return observed{content: canonical(t, got)}
		}
		var (
			unknown    *inproc.UnknownToolError
			notGranted *inproc.NotGrantedError
			argument   *inproc.ArgumentError
			failure    *inproc.FailureError
		)
		switch {
		case errors.As(err, &unknown):
			return observed{code: string(app.CodeToolNotEnabled)}
		case errors.As(err, &notGranted):
			return observed{code: string(app.CodeInsufficientScope)}
		case errors.As(err, &argument):
			return observed{code: string(app.CodeNotAQuestion)}
		case errors.As(err, &failure):
			return observed{code: failure.Code}
		}
		t.Fatalf("in-process: an error of no type of the package: %v", err)
		return observed{}
	}},
}

func client() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "parity", Version: "1"}, nil)
}

// bearerTransport adds the bearer of a scoped caller.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// callMCP maps an MCP tool call to what was observed: -32602 is a tool
// the caller may not call (not granted, or not offered); a tool error is
// the failure whose sentence it carries.
func callMCP(t *testing.T, cs *mcp.ClientSession, tool, args string) observed {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	var rpc *jsonrpc.Error
	switch {
	case errors.As(err, &rpc) && rpc.Code == jsonrpc.CodeInvalidParams && strings.Contains(rpc.Message, "not granted"):
		return observed{code: string(app.CodeInsufficientScope)}
	case errors.As(err, &rpc) && rpc.Code == jsonrpc.CodeInvalidParams:
		return observed{code: string(app.CodeToolNotEnabled)}
	case err != nil:
		t.Fatalf("mcp: %v", err)
	}
	if res.IsError {
		text := res.Content[0].(*mcp.TextContent).Text
		if strings.HasPrefix(text, "the arguments are not a question") {
			return observed{code: string(app.CodeNotAQuestion)}
		}
		for _, c := range app.FailureCodes() {
			if c.Text() == text {
				return observed{code: string(c)}
			}
		}
		t.Fatalf("mcp: a tool error with no failure's sentence: %q", text)
	}
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	return observed{content: canonical(t, b)}
}

// routes are the HTTP routes of the capabilities.
var routes = map[string]string{"describe_catalog": "GET /v1/catalog", "ask_metric": "POST /v1/query", "run_sql": "POST /v1/sql/run"}

func callHTTP(t *testing.T, e *env, tool, args string) observed {
	t.Helper()
	method, path, _ := strings.Cut(routes[tool], " ")
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader(args)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, e.http.URL+path, body)
	require.NoError(t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if e.token != "" {
		req.Header.Set("Authorization", "Bearer "+e.token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m), string(b))
	switch {
	case resp.StatusCode == http.StatusOK:
		return observed{content: canonical(t, b)}
	case m["outcome"] == "refusal":
		reason := m["reason"].(map[string]any)
		require.EqualValues(t, resp.StatusCode, reason["status"])
		delete(reason, "status")
		c, err := json.Marshal(m)
		require.NoError(t, err)
		return observed{content: string(c)}
	}
	require.EqualValues(t, resp.StatusCode, m["status"], string(b))
	code, _ := m["code"].(string)
	require.Equal(t, app.FailureCode(code).Status(), resp.StatusCode, "the status is the table's")
	return observed{code: code}
}

// canonical re-encodes JSON with sorted keys.
func canonical(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	require.NoError(t, d.Decode(&v), string(b))
	steady(v)
	c, err := json.Marshal(v)
	require.NoError(t, err)
	return string(c)
}

// steady drops from an answer's content what differs by nature between
// two calls (docs/contract.md §16): the trace id and each leg's elapsed
// time, scanned figures and cache state.
func steady(v any) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	e, ok := m["explanation"].(map[string]any)
	if !ok {
		return
	}
	delete(e, "trace_id")
	legs, _ := e["legs"].([]any)
	for _, l := range legs {
		if lm, ok := l.(map[string]any); ok {
			for _, k := range []string{"elapsed_ms", "rows_scanned", "bytes_scanned", "cache"} {
				delete(lm, k)
			}
		}
	}
}

// records are the audit records of the call, without what differs by
// nature between two calls (time, correlation id, duration, trace id).
func (e *env) records() []domain.AuditRecord {
	recs := e.audit.Records()
	for i := range recs {
		recs[i].Time, recs[i].CorrelationID, recs[i].DurationMS, recs[i].TraceID = time.Time{}, "", 0, ""
	}
	return recs
}

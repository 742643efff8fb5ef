package mcpserver

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
	"sutura.dev/runtime"
)

// canary is a value planted in arguments; it must never come back.
const canary = "ZZ-canary-9f3a"

// newFake is a data system that answers a question grouped by city with
// two rows, one holding a tab and a null; any other shape gets no rows.
func newFake() *apptest.System {
	return &apptest.System{Rows: [][]domain.Cell{
		{domain.Text("Lyon"), domain.DateCell(domain.DateOf(2025, 1, 1)), domain.Int(42)},
		{domain.Text("Paris\tnord"), domain.DateCell(domain.DateOf(2025, 1, 1)), domain.Null()},
	}}
}

// envConfig shapes one test's process: its bounds and server options.
type envConfig struct {
	max              int
	admissionTimeout time.Duration
	requestTimeout   time.Duration
	opts             Options
	// catalog, when set, is the catalogue instead of the demo bundle's.
	catalog app.Catalog
	spend   app.Spend
}

type env struct {
	sys     *apptest.System
	adm     *runtime.Admission
	audit   *apptest.Audit
	surface *app.Surface
	server  *Server
}

func newEnv(t *testing.T, sys *apptest.System, cfg envConfig) *env {
	t.Helper()
	if cfg.max == 0 {
		cfg.max = 4
	}
	if cfg.admissionTimeout == 0 {
		cfg.admissionTimeout = time.Second
	}
	if cfg.requestTimeout == 0 {
		cfg.requestTimeout = 30 * time.Second
	}
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: cfg.max, Timeout: cfg.admissionTimeout})
	require.NoError(t, err)
	audit := &apptest.Audit{}
	var catalog app.Catalog = apptest.Catalog{Pinned: apptest.Bundle(t, "v1")}
	if cfg.catalog != nil {
		catalog = cfg.catalog
	}
	b := catalog.Bundle()
	surface, err := app.New(app.Config{Catalog: catalog, Sources: apptest.Sources(sys),
		Admission: adm, Audit: audit, RequestTimeout: cfg.requestTimeout, Tools: cfg.opts.Tools, Spend: cfg.spend})
	require.NoError(t, err)
	opts := cfg.opts
	if opts.Instructions == "" {
		opts.Instructions = app.RenderPrompt(app.DescribeBundle(b, domain.Principal{}), app.PromptOptions{Prose: app.ProseQuoted})
	}
	server, err := New(surface, opts)
	require.NoError(t, err)
	t.Cleanup(server.Close)
	return &env{sys: sys, adm: adm, audit: audit, surface: surface, server: server}
}

func newClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "sutura-test", Version: "1"}, nil)
}

// connect opens a session with the SDK's client over in-memory transports.
func (e *env) connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := e.server.Connect(ctx, st, nil)
	require.NoError(t, err)
	cs, err := newClient().Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Close() })
	return cs
}

// connectHTTP opens a session with the SDK's client over Streamable HTTP on
// a real loopback socket, asking for protocol version (empty: the newest).
func (e *env) connectHTTP(t *testing.T, version string) *mcp.ClientSession {
	t.Helper()
	srv := httptest.NewServer(e.server.Handler())
	t.Cleanup(srv.Close)
	cs, err := newClient().Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// transports runs f once per transport the SDK's client drives.
func transports(t *testing.T, f func(t *testing.T, connect func(*testing.T, *env) *mcp.ClientSession)) {
	t.Run("in-memory", func(t *testing.T) { f(t, func(t *testing.T, e *env) *mcp.ClientSession { return e.connect(t) }) })
	t.Run("streamable-http", func(t *testing.T) {
		f(t, func(t *testing.T, e *env) *mcp.ClientSession { return e.connectHTTP(t, "") })
	})
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err)
	return res
}

// text joins the result's text blocks.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// structured decodes the result's structuredContent.
func structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

// The questions the tests send.
var (
	qAnswer  = json.RawMessage(`{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"},"dimensions":["city"]}`)
	qRefusal = json.RawMessage(`{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"},"filters":[{"op":"eq","dimension":"city","value":"` + canary + `"}]}`)
	qSlow    = json.RawMessage(`{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"}}`)
)

// eventually waits up to a second for cond.
func eventually(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	require.Eventually(t, cond, time.Second, 5*time.Millisecond, msg)
}

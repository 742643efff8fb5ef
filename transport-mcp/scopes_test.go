package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/domain"
)

// The principals of the scope tests: the CFO holds both tool scopes and the
// finance audience (the restricted metric); the reader holds only the
// catalogue's scope; the asker only ask_metric's; the stranger no scope.
var (
	cfo      = domain.Principal{Subject: "cfo", Scopes: []string{"sutura:catalog.read", "sutura:metrics.ask"}, Audiences: []string{"finance"}}
	reader   = domain.Principal{Subject: "reader", Scopes: []string{"sutura:catalog.read"}}
	asker    = domain.Principal{Subject: "asker", Scopes: []string{"sutura:metrics.ask"}}
	stranger = domain.Principal{Subject: "stranger"}
	// principals are looked up by the test's gate from its request header.
	principals = map[string]domain.Principal{"cfo": cfo, "reader": reader, "asker": asker, "stranger": stranger}
)

type testCallerKey struct{}

// withTestCaller puts a caller into ctx the way transport-http's gates do.
func withTestCaller(ctx context.Context, p domain.Principal) context.Context {
	return context.WithValue(ctx, testCallerKey{}, app.Caller{Principal: p, CorrelationID: "corr-" + p.Subject})
}

// testCallerFrom is the Options.Caller of the scope tests: the caller in
// ctx, or (like transport-http's CallerFrom) an anonymous principal with no
// scope and no audience.
func testCallerFrom(ctx context.Context) app.Caller {
	if c, ok := ctx.Value(testCallerKey{}).(app.Caller); ok {
		return c
	}
	return app.Caller{Principal: domain.Principal{Subject: "anonymous"}}
}

// gate is the test's stand-in for the HTTP gates: the caller of each
// request is the principal its X-Test-Caller header names (none: anonymous).
func gate(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if p, ok := principals[r.Header.Get("X-Test-Caller")]; ok {
			ctx = withTestCaller(ctx, p)
		}
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// headerTransport adds one header to every request of an SDK client.
type headerTransport struct{ name, value string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

// listed returns the names tools/list gives cs, sorted.
func listed(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// scopedEnv serves with scopes enforced and the caller taken from the
// context of each message.
func scopedEnv(t *testing.T) *env {
	t.Helper()
	return newEnv(t, newFake(), envConfig{opts: Options{EnforceScopes: true, Caller: testCallerFrom}})
}

// wantListed is what each principal's tools/list holds.
var wantListed = []struct {
	p    domain.Principal
	want []string
}{
	{cfo, []string{"ask_metric", "describe_catalog"}},
	{reader, []string{"describe_catalog"}},
	{asker, []string{"ask_metric"}},
	{stranger, nil},
}

// TestToolsListShowsOnlyGrantedTools: with EnforceScopes, each transport
// lists a caller only the tools its scopes grant, and a tool left out of
// the list is refused with -32602 naming its scope.
func TestToolsListShowsOnlyGrantedTools(t *testing.T) {
	connects := map[string]func(*testing.T, *env, context.Context) *mcp.ClientSession{
		"in-memory": func(t *testing.T, e *env, ctx context.Context) *mcp.ClientSession {
			ct, st := mcp.NewInMemoryTransports()
			ss, err := e.server.MCP().Connect(ctx, st, nil)
			require.NoError(t, err)
			cs, err := newClient().Connect(context.Background(), ct, nil)
			require.NoError(t, err)
			t.Cleanup(func() { _ = cs.Close(); _ = ss.Close() })
			return cs
		},
		"stdio": func(t *testing.T, e *env, ctx context.Context) *mcp.ClientSession {
			ctx, cancel := context.WithCancel(ctx)
			t.Cleanup(cancel)
			in, out, _ := stdio(t, ctx, e, 0)
			cs, err := newClient().Connect(context.Background(), &mcp.IOTransport{Reader: io.NopCloser(out), Writer: in}, nil)
			require.NoError(t, err)
			t.Cleanup(func() { _ = cs.Close() })
			return cs
		},
		"streamable-http": func(t *testing.T, e *env, ctx context.Context) *mcp.ClientSession {
			p := testCallerFrom(ctx).Principal
			srv := httptest.NewServer(gate(e.server.Handler()))
			t.Cleanup(srv.Close)
			cs, err := newClient().Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL,
				HTTPClient: &http.Client{Transport: headerTransport{"X-Test-Caller", p.Subject}}}, nil)
			require.NoError(t, err)
			t.Cleanup(func() { _ = cs.Close() })
			return cs
		},
	}
	for name, connect := range connects {
		t.Run(name, func(t *testing.T) {
			e := scopedEnv(t)
			for _, tc := range wantListed {
				cs := connect(t, e, withTestCaller(context.Background(), tc.p))
				assert.Equal(t, tc.want, listed(t, cs), tc.p.Subject)
				for _, tool := range e.server.Tools() {
					if slices.Contains(tc.want, string(tool.ID)) {
						continue
					}
					_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: string(tool.ID), Arguments: map[string]any{}})
					var werr *jsonrpc.Error
					require.ErrorAs(t, err, &werr, "%s calls %s", tc.p.Subject, tool.ID)
					assert.EqualValues(t, jsonrpc.CodeInvalidParams, werr.Code)
					assert.Contains(t, werr.Message, string(tool.ID))
					assert.Contains(t, werr.Message, string(tool.Scope), "names the scope that would grant it")
				}
			}
			assert.Empty(t, e.audit.Records(), "a refused tool reaches neither the surface nor the audit")
		})
	}
}

// TestToolsListWithoutEnforcementListsEverything: with EnforceScopes off,
// every tool is listed whatever the caller holds.
func TestToolsListWithoutEnforcementListsEverything(t *testing.T) {
	transports(t, func(t *testing.T, connect func(*testing.T, *env) *mcp.ClientSession) {
		e := newEnv(t, newFake(), envConfig{opts: Options{Caller: func(context.Context) app.Caller {
			return app.Caller{Principal: stranger}
		}}})
		cs := connect(t, e)
		assert.Equal(t, []string{"ask_metric", "describe_catalog"}, listed(t, cs))
		res, err := cs.ListTools(context.Background(), nil)
		require.NoError(t, err)
		assert.Equal(t, "public", res.CacheScope, "the same list for everyone")
	})
}

// TestTwoCallersOverStreamableHTTPSeeTheirOwnTools: two SDK clients on the
// same /mcp, the caller chosen per request by the gate, each on every
// protocol version: their tools/list differ, the list is marked private,
// and each is answered as itself.
func TestTwoCallersOverStreamableHTTPSeeTheirOwnTools(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			e := scopedEnv(t)
			srv := httptest.NewServer(gate(e.server.Handler()))
			defer srv.Close()
			connect := func(who string) *mcp.ClientSession {
				cs, err := newClient().Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL,
					HTTPClient: &http.Client{Transport: headerTransport{"X-Test-Caller", who}}},
					&mcp.ClientSessionOptions{ProtocolVersion: version})
				require.NoError(t, err)
				t.Cleanup(func() { _ = cs.Close() })
				return cs
			}
			boss, clerk := connect("cfo"), connect("reader")
			assert.Equal(t, []string{"ask_metric", "describe_catalog"}, listed(t, boss))
			assert.Equal(t, []string{"describe_catalog"}, listed(t, clerk))
			res, err := clerk.ListTools(context.Background(), nil)
			require.NoError(t, err)
			assert.Equal(t, "private", res.CacheScope, "a list that varies by caller is not shared")

			assert.Equal(t, []string{"revenue", "secret_revenue"}, catalogMetrics(t, call(t, boss, "describe_catalog", nil)))
			assert.Equal(t, []string{"revenue"}, catalogMetrics(t, call(t, clerk, "describe_catalog", nil)))
			_, err = clerk.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask_metric", Arguments: qAnswer})
			var werr *jsonrpc.Error
			require.ErrorAs(t, err, &werr)
			assert.Contains(t, werr.Message, "sutura:metrics.ask")
			res2 := call(t, boss, "ask_metric", qAnswer)
			assert.Equal(t, "answer", structured(t, res2)["outcome"])
			recs := e.audit.Records()
			require.Len(t, recs, 1)
			assert.Equal(t, []string{"cfo"}, recs[0].Principal)
			assert.Equal(t, "corr-cfo", recs[0].CorrelationID)
		})
	}
}

// TestMadeUpSessionIDBindsNothing: raw requests that carry an
// Mcp-Session-Id, one shared by two callers or a random one, are each
// answered as the caller of that request: the stateless handler keeps no
// session the header could select, and sets none.
func TestMadeUpSessionIDBindsNothing(t *testing.T) {
	e := scopedEnv(t)
	srv := httptest.NewServer(gate(e.server.Handler()))
	defer srv.Close()
	shared := "shared-" + rand.Text()
	for _, version := range protocolVersions {
		for i, sid := range []string{shared, rand.Text()} {
			rpc := func(who, method string, params map[string]any) (result json.RawMessage, rpcErr *rpcError) {
				t.Helper()
				header := map[string]string{"Mcp-Protocol-Version": version, "Mcp-Session-Id": sid, "X-Test-Caller": who}
				if version >= "2026-07-28" { // stateless by design: what a client is rides on every request
					params = maps.Clone(params)
					params["_meta"] = map[string]any{mcp.MetaKeyProtocolVersion: version, mcp.MetaKeyClientCapabilities: map[string]any{}}
					header["Mcp-Method"] = method
					if name, ok := params["name"].(string); ok {
						header["Mcp-Name"] = name
					}
				}
				p, err := json.Marshal(params)
				require.NoError(t, err)
				resp, body := post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+string(p)+`}`, header)
				assert.Empty(t, resp.Header.Get("Mcp-Session-Id"), "stateless: no session is minted")
				var msg struct {
					Result json.RawMessage `json:"result"`
					Error  *struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
					} `json:"error"`
				}
				require.NoError(t, json.Unmarshal(body, &msg), string(body))
				if msg.Error != nil {
					// From 2026-07-28 the SDK also gives -32602 the HTTP
					// status 400; before, every JSON-RPC answer is a 200.
					want := http.StatusOK
					if version >= "2026-07-28" && msg.Error.Code == -32602 {
						want = http.StatusBadRequest
					}
					assert.Equal(t, want, resp.StatusCode, string(body))
					return nil, &rpcError{Error: *msg.Error}
				}
				require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
				return msg.Result, nil
			}
			toolsOf := func(who string) []string {
				res, rpcErr := rpc(who, "tools/list", map[string]any{})
				require.Nil(t, rpcErr)
				var list mcp.ListToolsResult
				require.NoError(t, json.Unmarshal(res, &list))
				var names []string
				for _, tool := range list.Tools {
					names = append(names, tool.Name)
				}
				slices.Sort(names)
				return names
			}
			metricsOf := func(who string) []string {
				res, rpcErr := rpc(who, "tools/call", map[string]any{"name": "describe_catalog", "arguments": map[string]any{}})
				require.Nil(t, rpcErr)
				var out mcp.CallToolResult
				require.NoError(t, json.Unmarshal(res, &out))
				return catalogMetrics(t, &out)
			}
			// Interleaved, each after the other on the same header.
			for range 2 {
				assert.Equal(t, []string{"ask_metric", "describe_catalog"}, toolsOf("cfo"), "%s %d", version, i)
				assert.Equal(t, []string{"describe_catalog"}, toolsOf("reader"), "%s %d", version, i)
				assert.Equal(t, []string{"revenue", "secret_revenue"}, metricsOf("cfo"))
				assert.Equal(t, []string{"revenue"}, metricsOf("reader"))
				assert.Nil(t, toolsOf(""), "no caller, no tool")
			}
			// The reader may not ask even after the CFO asked on its header;
			// the CFO's question is recorded as the CFO's.
			before := len(e.audit.Records())
			_, rpcErr := rpc("cfo", "tools/call", map[string]any{"name": "ask_metric", "arguments": qAnswer})
			require.Nil(t, rpcErr)
			_, rpcErr = rpc("reader", "tools/call", map[string]any{"name": "ask_metric", "arguments": qAnswer})
			require.NotNil(t, rpcErr, "the reader is not granted ask_metric")
			assert.Equal(t, -32602, rpcErr.Error.Code)
			assert.Contains(t, rpcErr.Error.Message, "sutura:metrics.ask")
			_, rpcErr = rpc("asker", "tools/call", map[string]any{"name": "ask_metric",
				"arguments": json.RawMessage(`{"metrics":["secret_revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"}}`)})
			require.Nil(t, rpcErr)
			recs := e.audit.Records()[before:]
			require.Len(t, recs, 2)
			assert.Equal(t, []string{"cfo"}, recs[0].Principal)
			assert.Equal(t, []string{"asker"}, recs[1].Principal)
			assert.Equal(t, "refusal", recs[1].Outcome)
			assert.Equal(t, "metric_unknown", recs[1].Code,
				"the asker, outside finance, cannot reach the metric the CFO sees")
		}
	}
}

// catalogMetrics returns the names of the metrics a describe_catalog result
// lists, sorted.
func catalogMetrics(t *testing.T, res *mcp.CallToolResult) []string {
	t.Helper()
	require.False(t, res.IsError, text(res))
	var body struct {
		Metrics []struct {
			Name string `json:"name"`
		} `json:"metrics"`
	}
	require.NoError(t, json.Unmarshal(mustJSON(t, res.StructuredContent), &body))
	var names []string
	for _, m := range body.Metrics {
		names = append(names, m.Name)
	}
	slices.Sort(names)
	return names
}

package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// protocolVersions are the versions the SDK offers over Streamable HTTP
// that sutura pins: stateless 2026-07-28 (server/discover) and the two
// initialize-based versions before it.
var protocolVersions = []string{"2026-07-28", "2025-11-25", "2025-06-18"}

func TestStreamableHTTPProtocolVersions(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, newFake(), envConfig{max: 1})
			cs := e.connectHTTP(t, version)
			assert.Equal(t, version, cs.InitializeResult().ProtocolVersion)
			assert.NotEmpty(t, cs.InitializeResult().Instructions)

			tools, err := cs.ListTools(context.Background(), nil)
			require.NoError(t, err)
			assert.Len(t, tools.Tools, 2)

			res := call(t, cs, "describe_catalog", nil)
			assert.False(t, res.IsError)
			res = call(t, cs, "ask_metric", qAnswer)
			assert.Equal(t, "answer", structured(t, res)["outcome"])
			res = call(t, cs, "ask_metric", qRefusal)
			assert.Equal(t, "refusal", structured(t, res)["outcome"])

			// A client that goes away cancels the work on every version,
			// not only where the SDK ties the handler to the request.
			sys := newFake()
			sys.Block = true
			e = newEnv(t, sys, envConfig{max: 1})
			cs = e.connectHTTP(t, version)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask_metric", Arguments: qSlow})
				done <- err
			}()
			select {
			case <-sys.Started():
			case <-time.After(5 * time.Second):
				t.Fatal("the question did not start")
			}
			cancel()
			assert.ErrorIs(t, <-done, context.Canceled)
			eventually(t, func() bool { return e.adm.InUse() == 0 }, "the slot is back within 1 s")
			eventually(t, func() bool {
				ended := sys.Ended()
				return len(ended) == 1 && errors.Is(ended[0], context.Canceled)
			}, "the data system saw the cancellation")
		})
	}
}

// post sends one raw JSON-RPC message to the handler.
func post(t *testing.T, url, body string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, b
}

// TestStreamableHTTPIsStatelessWithJSONResponses: a tools/call needs no
// session, is answered as application/json, and sets no session id.
func TestStreamableHTTPIsStatelessWithJSONResponses(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	srv := httptest.NewServer(e.server.Handler())
	defer srv.Close()
	resp, body := post(t, srv.URL, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask_metric","arguments":`+string(qAnswer)+`}}`,
		map[string]string{"Mcp-Protocol-Version": "2025-06-18"})
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.Empty(t, resp.Header.Get("Mcp-Session-Id"))
	var msg struct {
		ID     int `json:"id"`
		Result struct {
			StructuredContent map[string]any `json:"structuredContent"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(body, &msg))
	assert.Equal(t, 7, msg.ID)
	assert.Equal(t, "answer", msg.Result.StructuredContent["outcome"])

	get, err := http.Get(srv.URL)
	require.NoError(t, err)
	get.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, get.StatusCode, "stateless: no standalone stream")
}

func TestStreamableHTTPBoundsTheBody(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{opts: Options{MaxBodyBytes: 1024}})
	srv := httptest.NewServer(e.server.Handler())
	defer srv.Close()
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"pad":"` + string(bytes.Repeat([]byte("x"), 4096)) + `"}}}`
	resp, _ := post(t, srv.URL, big, nil)
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
}

// TestStreamableHTTPLeavesTheHostToTheGates: the handler answers whatever
// Host a loopback request names. The Host is the one decision of the gates
// /mcp is mounted behind (transport-http's allowlist, which
// server.allowed_hosts extends): a second check here would refuse the
// hosts an operator allowed, and quote them.
func TestStreamableHTTPLeavesTheHostToTheGates(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	srv := httptest.NewServer(e.server.Handler())
	defer srv.Close()
	req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	require.NoError(t, err)
	req.Host = "metrics.example.com"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	r, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	assert.Equal(t, http.StatusOK, r.StatusCode, string(body))
	assert.NotContains(t, string(body), "metrics.example.com")
}

// TestMalformedParamsAreNotEchoed: the SDK quotes params that do not fit a
// method's shape; both transports scrub that message.
func TestMalformedParamsAreNotEchoed(t *testing.T) {
	bad := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":5,"arguments":{"x":"` + canary + `"}}}`
	e := newEnv(t, newFake(), envConfig{})
	srv := httptest.NewServer(e.server.Handler())
	defer srv.Close()
	for _, version := range protocolVersions {
		resp, body := post(t, srv.URL, bad, map[string]string{"Mcp-Protocol-Version": version})
		assert.NotContains(t, string(body), canary, version)
		assert.Contains(t, string(body), "-32602", version)
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
		if version != "2026-07-28" { // which wants its _meta first
			assert.Contains(t, string(body), textInvalidParams, version)
		}
	}

	in, out, _ := stdio(t, context.Background(), e, 0)
	go func() {
		_, _ = in.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"))
		_, _ = in.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
		_, _ = in.Write([]byte(bad + "\n"))
	}()
	_, err := out.ReadBytes('\n') // the initialize result
	require.NoError(t, err)
	got := readError(t, out)
	assert.Equal(t, -32602, got.Error.Code)
	assert.Equal(t, textInvalidParams, got.Error.Message)
}

func TestScrub(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// Results and requests pass unchanged, whatever they hold.
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"unmarshaling \"error\""}]}}`, ""},
		{`{"jsonrpc":"2.0","id":"abc","result":{}}`, ""},
		// Errors keep code and id, and get the fixed message of the code.
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: \"` + canary + `\""}}`,
			`{"error":{"code":-32601,"message":"` + textMethodNotFound + `"},"id":1,"jsonrpc":"2.0"}`},
		{`{"jsonrpc":"2.0","id":"x","error":{"code":-32602,"message":"unmarshaling \"` + canary + `\" into a *mcp.CallToolParams"}}`,
			`{"error":{"code":-32602,"message":"` + textInvalidParams + `"},"id":"x","jsonrpc":"2.0"}`},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"unknown tool \"` + canary + `\""}}`,
			`{"error":{"code":-32602,"message":"` + textUnknownTool + `"},"id":1,"jsonrpc":"2.0"}`},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"unknown tool \"run_sql\""}}`,
			`{"error":{"code":-32602,"message":"unknown tool run_sql: this deployment does not offer it"},"id":1,"jsonrpc":"2.0"}`},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32700,"message":"invalid message version tag \"` + canary + `\""}}`,
			`{"error":{"code":-32700,"message":"` + textParseError + `"},"id":1,"jsonrpc":"2.0"}`},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"` + canary + `"}}`,
			`{"error":{"code":-32603,"message":"` + textInternalError + `"},"id":1,"jsonrpc":"2.0"}`},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32004,"message":"header \"` + canary + `\"","data":{"requested":"` + canary + `"}}}`,
			`{"error":{"code":-32004,"message":"` + textRefused + `"},"id":1,"jsonrpc":"2.0"}`},
		// sutura's own errors keep their message, without the mark.
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"tool ask_metric is not granted","data":{"sutura":"own-message"}}}`,
			`{"error":{"code":-32602,"message":"tool ask_metric is not granted"},"id":1,"jsonrpc":"2.0"}`},
		// Arrays are scrubbed element by element; what is not JSON-RPC is
		// never written back.
		{`[{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"` + canary + `"}}]`,
			`[{"error":{"code":-32600,"message":"` + textInvalidRequest + `"},"id":1,"jsonrpc":"2.0"}]`},
		{`{"error": ` + canary, `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}`},
	} {
		want := tc.want
		if want == "" {
			want = tc.in
		}
		assert.Equal(t, want, string(scrub([]byte(tc.in))))
	}
}

package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// provocations are messages whose every caller-supplied string is the
// canary, each answered with an error by the SDK or by sutura. Their ids
// are numbers: JSON-RPC requires the id to come back.
var provocations = []string{
	`{"jsonrpc":"2.0","id":1,"method":"` + canary + `"}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + canary + `","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":5,"arguments":{"x":"` + canary + `"}}}`,
	`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ask_metric","arguments":"` + canary + `"}}`,
	`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ask_metric","arguments":{"metrics":["` + canary + `"],"grain":"month","range":{"start":"2025-01-01","end":"2025-02-01"}}}}`,
	`{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"` + canary + `"}}`,
	`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"file:///` + canary + `"}}`,
	`{"jsonrpc":"2.0","id":8,"method":"logging/setLevel","params":{"level":"` + canary + `"}}`,
	`{"jsonrpc":"2.0","id":9,"method":"completion/complete","params":{"ref":{"type":"` + canary + `"},"argument":{"name":"` + canary + `","value":"` + canary + `"}}}`,
	`{"jsonrpc":"2.0","id":10,"method":"tools/list","params":["` + canary + `"]}`,
	`{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{"cursor":"` + canary + `"}}`,
	`{"jsonrpc":"2.0","id":12,"method":"initialize","params":{"protocolVersion":"` + canary + `","capabilities":{},"clientInfo":{"name":"` + canary + `","version":"1"}}}`,
	`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"describe_catalog","arguments":{"` + canary + `":1}}}`,
	`{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"ask_metric","arguments":{},"_meta":{"progressToken":{"x":"` + canary + `"}}}}`,
}

// framingProvocations are lines the framing itself must answer.
var framingProvocations = []string{
	`{"jsonrpc":"` + canary + `","id":20,"method":"ping"}`,
	`[{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"ask_metric","arguments":{"x":"` + canary + `"}}}]`,
	`{"jsonrpc":"2.0","id":22,"method":"ping"` + canary,
	`"` + canary + `"`,
	`{"jsonrpc":"2.0","id":{"x":"` + canary + `"},"method":"ping"}`,
}

const initializeLine = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// requireClean fails when a response quotes the canary anywhere but in its
// id, or is not JSON.
func requireClean(t *testing.T, response []byte, context string) {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(response, &m), "%s: not one JSON-RPC message: %q", context, response)
	delete(m, "id")
	rest, err := json.Marshal(m)
	require.NoError(t, err)
	assert.NotContains(t, string(rest), canary, context)
	assert.NotContains(t, string(rest), "ZZ-canary", context)
}

// TestNoResponseQuotesTheCaller: over stdio, Streamable HTTP and the
// in-memory transport, no error (the SDK's or sutura's) quotes a method,
// tool name, value or tag the caller sent.
func TestNoResponseQuotesTheCaller(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})

	t.Run("stdio", func(t *testing.T) {
		in, out, _ := stdio(t, context.Background(), e, 0)
		lines := append([]string{initializeLine, `{"jsonrpc":"2.0","method":"notifications/initialized"}`}, provocations...)
		lines = append(lines, framingProvocations...)
		go func() {
			for _, l := range lines {
				_, _ = io.WriteString(in, l+"\n")
			}
		}()
		// One response per line but the notification.
		for i := range len(lines) - 1 {
			line, err := out.ReadBytes('\n')
			require.NoError(t, err, "response %d", i)
			requireClean(t, line, "stdio: "+string(line))
		}
	})

	t.Run("streamable-http", func(t *testing.T) {
		srv := httptest.NewServer(e.server.Handler())
		defer srv.Close()
		for _, version := range []string{"", "2025-06-18", "2025-11-25", "2026-07-28", canary} {
			for _, msg := range append(append([]string{}, provocations...), framingProvocations...) {
				resp, body := post(t, srv.URL, msg, map[string]string{"Mcp-Protocol-Version": version})
				assert.GreaterOrEqual(t, resp.StatusCode, 200, msg)
				if resp.StatusCode == http.StatusAccepted {
					continue
				}
				requireClean(t, body, version+": "+msg)
				assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			}
		}
		// Headers are caller strings too.
		for _, h := range []map[string]string{
			{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": canary},
			{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": canary},
			{"Last-Event-ID": canary},
			{"Accept": canary},
			{"Mcp-Session-Id": canary},
		} {
			resp, body := post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"describe_catalog","arguments":{}}}`, h)
			assert.NotContains(t, string(body), canary, "%v", h)
			if resp.StatusCode != http.StatusOK {
				requireClean(t, body, string(body))
			}
		}
		for _, method := range []string{http.MethodGet, http.MethodDelete, http.MethodPut} {
			req, err := http.NewRequest(method, srv.URL+"/?x="+canary, strings.NewReader(canary))
			require.NoError(t, err)
			req.Header.Set("Mcp-Session-Id", canary)
			req.Header.Set("Accept", "text/event-stream")
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			requireClean(t, body, method)
		}
	})

	t.Run("in-memory", func(t *testing.T) {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := e.server.Connect(context.Background(), st, nil)
		require.NoError(t, err)
		defer ss.Close()
		conn, err := ct.Connect(context.Background())
		require.NoError(t, err)
		defer conn.Close()
		for _, msg := range append([]string{initializeLine}, provocations...) {
			m, err := jsonrpc.DecodeMessage([]byte(msg))
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			require.NoError(t, conn.Write(ctx, m))
			got, err := conn.Read(ctx)
			cancel()
			require.NoError(t, err, msg)
			data, err := jsonrpc.EncodeMessage(got)
			require.NoError(t, err)
			requireClean(t, data, "in-memory: "+msg)
		}
	})
}

// TestBatchesAreRefusedOnHTTP: a JSON-RPC batch over Streamable HTTP is one
// JSON-RPC error that quotes nothing, whatever the protocol version, and
// none of its calls runs.
func TestBatchesAreRefusedOnHTTP(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	srv := httptest.NewServer(e.server.Handler())
	defer srv.Close()
	call := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"ask_metric","arguments":` + string(qAnswer) + `}}`
	var calls []string
	for i := range 50 {
		calls = append(calls, strings.Replace(call, "%d", string(rune('0'+i%10)), 1))
	}
	batch := " \n[" + strings.Join(calls, ",") + `,{"jsonrpc":"2.0","id":99,"method":"` + canary + `"}]`
	for _, version := range []string{"", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", canary} {
		resp, body := post(t, srv.URL, batch, map[string]string{"Mcp-Protocol-Version": version})
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, version)
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
		var got rpcError
		require.NoError(t, json.Unmarshal(body, &got), string(body))
		assert.Equal(t, -32600, got.Error.Code)
		assert.Nil(t, got.ID)
		assert.Equal(t, textBatch, got.Error.Message)
		assert.NotContains(t, string(body), canary)
	}
	assert.Empty(t, e.audit.Records(), "no call of a batch ran")
}

// TestEventStreamsAreScrubbed: the SDK answers over an event stream when
// the JSON response mode does not apply; each event's message is scrubbed.
func TestEventStreamsAreScrubbed(t *testing.T) {
	h := frameHTTP(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "event: message\nid: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,\"message\":\""+canary+"\"}}\n\n")
		_, _ = io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,")
		w.(http.Flusher).Flush()
		_, _ = io.WriteString(w, "\"result\":{}}\n\nevent: message\ndata: {\"unfinished\"")
	}), 1<<10, func(ctx context.Context) context.Context { return ctx })
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{}`)))
	sc := bufio.NewScanner(rec.Body)
	var events []string
	for sc.Scan() {
		events = append(events, sc.Text())
	}
	assert.Equal(t, []string{
		"event: message", "id: 1", `data: {"error":{"code":-32601,"message":"` + textMethodNotFound + `"},"id":1,"jsonrpc":"2.0"}`, "",
		"event: message", `data: {"jsonrpc":"2.0","id":2,"result":{}}`, "",
	}, events)
}

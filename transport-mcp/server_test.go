package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/domain"
)

// normal round-trips v through JSON, so that schemas compare as data.
func normal(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

func TestToolsListServesTheDeclaredTools(t *testing.T) {
	transports(t, func(t *testing.T, connect func(*testing.T, *env) *mcp.ClientSession) {
		e := newEnv(t, newFake(), envConfig{})
		cs := connect(t, e)
		res, err := cs.ListTools(context.Background(), nil)
		require.NoError(t, err)
		manifest, err := NewManifest(app.Tools(app.ToolOptions{}))
		require.NoError(t, err)
		require.Len(t, res.Tools, len(manifest.Tools), "every declared tool, no more and no less")
		served := map[string]*mcp.Tool{}
		for _, tool := range res.Tools {
			served[tool.Name] = tool
		}
		for _, d := range manifest.Tools {
			tool := served[string(d.ID)]
			require.NotNil(t, tool, "%s is served", d.ID)
			assert.Equal(t, d.Description, tool.Description)
			assert.Equal(t, d.Title, tool.Title)
			assert.Equal(t, normal(t, d.InputSchema), normal(t, tool.InputSchema), "%s input schema", d.ID)
			assert.Equal(t, normal(t, d.OutputSchema), normal(t, tool.OutputSchema), "%s output schema", d.ID)
			require.NotNil(t, tool.Annotations)
			assert.True(t, tool.Annotations.ReadOnlyHint)
			assert.True(t, tool.Annotations.IdempotentHint)
			require.NotNil(t, tool.Annotations.DestructiveHint)
			assert.False(t, *tool.Annotations.DestructiveHint)
			require.NotNil(t, tool.Annotations.OpenWorldHint)
			assert.False(t, *tool.Annotations.OpenWorldHint)
		}
		assert.Contains(t, cs.InitializeResult().Instructions, "List the catalogue first")
		assert.Equal(t, "sutura", cs.InitializeResult().ServerInfo.Name)
	})
}

func TestNewRefusesToolsItCannotServe(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	_, err := New(e.surface, Options{Tools: []app.Tool{{ID: "drop_tables", Scope: "sutura:tables.drop"}}})
	require.ErrorContains(t, err, "drop_tables")
}

func TestAnswer(t *testing.T) {
	transports(t, func(t *testing.T, connect func(*testing.T, *env) *mcp.ClientSession) {
		e := newEnv(t, newFake(), envConfig{})
		res := call(t, connect(t, e), "ask_metric", qAnswer)
		require.False(t, res.IsError, text(res))
		body := structured(t, res)
		assert.Equal(t, "answer", body["outcome"])
		assert.Equal(t, []any{[]any{"Lyon", "2025-01-01", "42"}, []any{"Paris\tnord", "2025-01-01", nil}}, body["rows"])
		prov := body["provenance"].(map[string]any)
		digest := e.surface.Bundle().Digest()
		assert.Equal(t, "v1", prov["definition_version"])
		assert.Equal(t, digest, prov["definition_digest"])
		want := "city\tperiod\trevenue\n" +
			"Lyon\t2025-01-01\t42\n" +
			"Paris\\tnord\t2025-01-01\tnull\n" +
			"\ndefinition_version: v1\n" +
			"definition_digest: " + digest + "\n" +
			"metric_digest revenue: " + e.surface.Bundle().MetricDigest("revenue") + "\n" +
			"executed_as files: shared-service-user\n" +
			"\ndefinition revenue: the sum of amount, over the rows of sales; time column sold_on (digest " + e.surface.Bundle().MetricDigest("revenue") + ")\n" +
			"leg files: shared-service-user as the sutura process itself; "
		assert.True(t, strings.HasPrefix(text(res), want), text(res))
		assert.Contains(t, body, "explanation", "the structured content carries the explanation too")
		assert.Equal(t, 0, e.adm.InUse())
	})
}

func TestEscapeCell(t *testing.T) {
	assert.Equal(t, `a\tb\nc\rd\\e`, escapeCell("a\tb\nc\rd\\e"))
}

func TestRefusal(t *testing.T) {
	transports(t, func(t *testing.T, connect func(*testing.T, *env) *mcp.ClientSession) {
		e := newEnv(t, newFake(), envConfig{})
		res := call(t, connect(t, e), "ask_metric", qRefusal)
		assert.False(t, res.IsError, "a refusal is an answer, not an error")
		body := structured(t, res)
		assert.Equal(t, "refusal", body["outcome"])
		reason := body["reason"].(map[string]any)
		assert.Equal(t, "dimension_value_not_allowed", reason["code"])
		assert.Equal(t, "refused (dimension_value_not_allowed): "+reason["detail"].(string), text(res))
		assert.NotContains(t, string(mustJSON(t, res)), canary)
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func TestMalformedArgumentsNameTheFieldNeverTheValue(t *testing.T) {
	base := `"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"}`
	cases := []struct {
		tool, args, field string
	}{
		{"ask_metric", `{` + base + `,"sql":"select '` + canary + `'"}`, "sql"},
		{"ask_metric", `{` + base + `,"table":"` + canary + `"}`, "table"},
		{"ask_metric", `{` + base + `,"where":"` + canary + `"}`, "where"},
		{"ask_metric", `{` + base + `,"predicate":"` + canary + `"}`, "predicate"},
		{"ask_metric", `{` + base + `,"rows":["` + canary + `"]}`, "rows"},
		{"ask_metric", `{"metrics":["revenue"],"grain":"` + canary + `","range":{"start":"2025-01-01","end":"2025-03-01"}}`, "grain"},
		{"ask_metric", `{"metrics":["revenue"],"grain":"month","range":{"start":"` + canary + `","end":"2025-03-01"}}`, "range.start"},
		{"ask_metric", `{"metrics":["` + canary + `"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"}}`, "metrics[0]"},
		{"ask_metric", `{` + base + `,"filters":[{"op":"eq","dimension":"city","value":"` + canary + `\t"}]}`, "filters[0].value"},
		{"ask_metric", `{` + base + `,"top":{"n":"` + canary + `","by":"metric"}}`, "top.n"},
		{"ask_metric", `{"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"}}`, "metrics"},
		{"describe_catalog", `{"verbose":"` + canary + `"}`, "verbose"},
	}
	transports(t, func(t *testing.T, connect func(*testing.T, *env) *mcp.ClientSession) {
		e := newEnv(t, newFake(), envConfig{})
		cs := connect(t, e)
		for _, tc := range cases {
			t.Run(tc.field, func(t *testing.T) {
				res := call(t, cs, tc.tool, json.RawMessage(tc.args))
				require.True(t, res.IsError, "arguments that are not a question are a tool error")
				assert.Contains(t, text(res), tc.field)
				assert.NotContains(t, string(mustJSON(t, res)), canary, "the value is never echoed")
				assert.Nil(t, res.StructuredContent)
			})
		}
		assert.Empty(t, e.audit.Records(), "a malformed question reaches neither the surface nor the audit")
	})
}

func TestUnknownToolIsInvalidParams(t *testing.T) {
	transports(t, func(t *testing.T, connect func(*testing.T, *env) *mcp.ClientSession) {
		e := newEnv(t, newFake(), envConfig{})
		_, err := connect(t, e).CallTool(context.Background(), &mcp.CallToolParams{Name: "run_sql", Arguments: map[string]any{"sql": "select 1"}})
		var werr *jsonrpc.Error
		require.ErrorAs(t, err, &werr)
		assert.EqualValues(t, jsonrpc.CodeInvalidParams, werr.Code)
		assert.Contains(t, werr.Message, "run_sql")
	})
}

func TestUngrantedToolIsInvalidParams(t *testing.T) {
	transports(t, func(t *testing.T, connect func(*testing.T, *env) *mcp.ClientSession) {
		e := newEnv(t, newFake(), envConfig{opts: Options{EnforceScopes: true, Caller: func(context.Context) app.Caller {
			return app.Caller{Principal: domain.Principal{Subject: "reader", Scopes: []string{"sutura:catalog.read"}}}
		}}})
		cs := connect(t, e)
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask_metric", Arguments: qAnswer})
		var werr *jsonrpc.Error
		require.ErrorAs(t, err, &werr)
		assert.EqualValues(t, jsonrpc.CodeInvalidParams, werr.Code)
		assert.Contains(t, werr.Message, "ask_metric")
		assert.Contains(t, werr.Message, "sutura:metrics.ask", "names the scope that would grant it")
		res := call(t, cs, "describe_catalog", map[string]any{})
		assert.False(t, res.IsError)
	})
}

func TestDescribeCatalogIsCallerScoped(t *testing.T) {
	transports(t, func(t *testing.T, connect func(*testing.T, *env) *mcp.ClientSession) {
		e := newEnv(t, newFake(), envConfig{opts: Options{Caller: func(context.Context) app.Caller {
			return app.Caller{Principal: domain.Principal{Subject: "agent"}}
		}}})
		res := call(t, connect(t, e), "describe_catalog", nil)
		require.False(t, res.IsError, text(res))
		body := structured(t, res)
		metrics := body["metrics"].([]any)
		require.Len(t, metrics, 1, "the restricted metric is not visible")
		assert.Equal(t, "revenue", metrics[0].(map[string]any)["name"])
		assert.Equal(t, e.surface.Bundle().Digest(), body["definition_digest"])
		assert.JSONEq(t, string(mustJSON(t, res.StructuredContent)), text(res))
		assert.Empty(t, e.audit.Records(), "describe_catalog writes no audit record")
	})
}

type principalKey struct{}

// TestHTTPCallerComesFromTheRequest shows that values the HTTP gates put in
// the request context reach Options.Caller.
func TestHTTPCallerComesFromTheRequest(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{opts: Options{Caller: func(ctx context.Context) app.Caller {
		p, _ := ctx.Value(principalKey{}).(domain.Principal)
		return app.Caller{Principal: p, CorrelationID: "corr-1"}
	}}})
	gate := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := domain.Principal{Subject: "cfo", Audiences: []string{"finance"}}
		e.server.Handler().ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
	})
	srv := httptest.NewServer(gate)
	defer srv.Close()
	cs, err := newClient().Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	require.NoError(t, err)
	defer cs.Close()
	res := call(t, cs, "describe_catalog", nil)
	assert.Len(t, structured(t, res)["metrics"], 2, "the principal from the gate sees the restricted metric")
	res = call(t, cs, "ask_metric", qAnswer)
	require.False(t, res.IsError)
	recs := e.audit.Records()
	require.Len(t, recs, 1)
	assert.Equal(t, "corr-1", recs[0].CorrelationID)
	assert.Equal(t, []string{"cfo"}, recs[0].Principal)
}

func TestServiceFailureHidesTheDriverText(t *testing.T) {
	transports(t, func(t *testing.T, connect func(*testing.T, *env) *mcp.ClientSession) {
		sys := newFake()
		sys.Err = errors.New("pq: connection to 10.1.2.3 refused for password " + canary)
		e := newEnv(t, sys, envConfig{})
		res := call(t, connect(t, e), "ask_metric", qAnswer)
		require.True(t, res.IsError)
		assert.Equal(t, TextUnavailable, text(res))
		assert.NotContains(t, string(mustJSON(t, res)), canary)
		assert.NotContains(t, string(mustJSON(t, res)), "pq:")
		assert.Equal(t, 0, e.adm.InUse())
	})
}

func TestFailureChannels(t *testing.T) {
	for _, code := range []app.FailureCode{app.CodeAtCapacity, app.CodeTimeout, app.CodeUnavailable, app.CodeInternal,
		app.CodeZeroDenominator, app.CodeStatementFailed} {
		res, rpcErr := failure(&app.Failure{Code: code, Detail: code.Text()})
		require.NoError(t, rpcErr)
		assert.True(t, res.IsError)
		assert.Equal(t, code.Text(), text(res))
	}
	res, rpcErr := failure(&app.Failure{Code: app.CodeCancelled})
	assert.Nil(t, res, "a peer that went away gets no tool result")
	assert.ErrorIs(t, rpcErr, context.Canceled)
	for _, code := range []app.FailureCode{app.CodeToolNotEnabled, app.CodeInsufficientScope} {
		res, rpcErr := failure(&app.Failure{Code: code, Detail: "tool run_sql"})
		assert.Nil(t, res)
		var werr *jsonrpc.Error
		require.ErrorAs(t, rpcErr, &werr)
		assert.EqualValues(t, jsonrpc.CodeInvalidParams, werr.Code)
	}
}

package httpapi

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/wire"
	"sutura.dev/domain"
)

var update = flag.Bool("update", false, "rewrite testdata/openapi.json and ../docs/openapi.json")

// snapshotPaths are the committed copies of the document: this module's
// snapshot and the one published for readers under docs/.
var snapshotPaths = []string{filepath.Join("testdata", "openapi.json"), filepath.Join("..", "docs", "openapi.json")}

// fullOptions is a deployment with every optional route: the snapshot
// shows all of them.
func fullOptions() documentOptions {
	return documentOptions{tools: app.Tools(app.ToolOptions{}), mcp: true, direct: true, metrics: true}
}

func generated(t *testing.T, o documentOptions) []byte {
	t.Helper()
	doc, err := buildOpenAPI(o)
	require.NoError(t, err)
	b, err := doc.encode()
	require.NoError(t, err)
	return b
}

func TestOpenAPISnapshot(t *testing.T) {
	got := generated(t, fullOptions())
	for _, path := range snapshotPaths {
		if *update {
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, got, 0o644))
			continue
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err, "missing snapshot; run go test -update")
		if !bytes.Equal(want, got) {
			t.Errorf("%s differs from the generated document; review the change and run go test -update", path)
		}
	}
}

func TestServedDocumentIsTheGeneratedOne(t *testing.T) {
	idp := newIdentityProvider(t)
	e := idp.env(t, envConfig{cfg: Config{MCP: callerEcho(), MetricsToken: []byte("m")}})
	r := e.do(t, request{path: "/openapi.json"})
	require.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, generated(t, fullOptions()), r.body)
	assert.Equal(t, r.body, e.server.OpenAPI())

	plain := newEnv(t, newFake(), envConfig{})
	doc := decodeDoc(t, plain.do(t, request{path: "/openapi.json"}).body)
	assert.NotContains(t, doc.Paths, "/mcp", "an unmounted /mcp is not described")
	assert.NotContains(t, doc.Paths, "/metrics")
	assert.NotContains(t, doc.Paths, ResourceMetadataPath)
}

type decodedDoc struct {
	OpenAPI string                                       `json:"openapi"`
	Paths   map[string]map[string]decodedOperation       `json:"paths"`
	Comps   struct{ Schemas map[string]json.RawMessage } `json:"components"`
}

type decodedOperation struct {
	OperationID string                `json:"operationId"`
	Summary     string                `json:"summary"`
	Description string                `json:"description"`
	Security    []map[string][]string `json:"security"`
	Capability  string                `json:"x-sutura-capability"`
	Scope       string                `json:"x-sutura-scope"`
	Responses   map[string]json.RawMessage
}

func decodeDoc(t *testing.T, b []byte) decodedDoc {
	t.Helper()
	var d decodedDoc
	require.NoError(t, json.Unmarshal(b, &d))
	return d
}

// capabilityOps returns the operations that serve a capability.
func (d decodedDoc) capabilityOps() map[string]decodedOperation {
	out := map[string]decodedOperation{}
	for _, item := range d.Paths {
		for _, op := range item {
			if op.Capability != "" {
				out[op.Capability] = op
			}
		}
	}
	return out
}

// TestOpenAPIDescribesExactlyTheTools: one operation per tool of the
// capability list, nothing more, with its title, description and scope.
func TestOpenAPIDescribesExactlyTheTools(t *testing.T) {
	tools := app.Tools(app.ToolOptions{})
	doc := decodeDoc(t, generated(t, fullOptions()))
	assert.Equal(t, "3.1.0", doc.OpenAPI)
	ops := doc.capabilityOps()
	require.Len(t, ops, len(tools))
	for _, tool := range tools {
		op, ok := ops[string(tool.ID)]
		require.True(t, ok, "tool %s has no operation", tool.ID)
		assert.Equal(t, string(tool.ID), op.OperationID)
		assert.Equal(t, tool.Title, op.Summary)
		assert.Equal(t, tool.Description, op.Description)
		assert.Equal(t, string(tool.Scope), op.Scope)
		for _, req := range op.Security {
			assert.Equal(t, []string{string(tool.Scope)}, req[schemeBearer])
		}
	}
	_, err := buildOpenAPI(documentOptions{tools: []app.Tool{{ID: "drop_tables"}}})
	assert.ErrorContains(t, err, "drop_tables is declared but this build cannot serve it")
	assert.NotContains(t, doc.Paths, "/v1/sql/run", "run_sql is described only where it is served")
	assert.NotContains(t, doc.Comps.Schemas, schemaSQLStatement)

	// Every route served is described, but /v1/sql/run, which serves no
	// tool of the list.
	idp := newIdentityProvider(t)
	e := idp.env(t, envConfig{cfg: Config{MCP: callerEcho(), MetricsToken: []byte("m")}})
	var served []string
	for path := range e.server.methods {
		if path != "/v1/sql/run" {
			served = append(served, path)
		}
	}
	var described []string
	for path := range doc.Paths {
		described = append(described, path)
	}
	slices.Sort(served)
	slices.Sort(described)
	assert.Equal(t, served, described)
}

// TestBothTransportsDescribeTheSameTools compares the document with the
// tool declarations every transport serves (app/wire's manifest, which MCP
// lists in tools/list and `sutura tools` prints): the same tools with the
// same titles, descriptions and scopes, and the same schemas for the
// question, the answer and the catalogue.
func TestBothTransportsDescribeTheSameTools(t *testing.T) {
	tools := app.Tools(app.ToolOptions{})
	manifest, err := wire.NewManifest(tools)
	require.NoError(t, err)
	o := fullOptions()
	o.tools = tools
	doc := decodeDoc(t, generated(t, o))
	ops := doc.capabilityOps()
	require.Len(t, ops, len(manifest.Tools), "no operation beyond the declared tools")
	for _, d := range manifest.Tools {
		op, ok := ops[string(d.ID)]
		require.True(t, ok, "the tool %s has no HTTP operation", d.ID)
		assert.Equal(t, d.Title, op.Summary)
		assert.Equal(t, d.Description, op.Description)
		assert.Equal(t, string(d.Scope), op.Scope)
	}
	schemas := doc.Comps.Schemas
	ask, ok := manifest.Tool(domain.AskMetric)
	require.True(t, ok)
	describe, ok := manifest.Tool(domain.DescribeCatalog)
	require.True(t, ok)
	jsonOf := func(v any) string {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return string(b)
	}
	assert.JSONEq(t, jsonOf(ask.InputSchema), string(schemas[schemaQuestion]), "the question")
	assert.JSONEq(t, jsonOf(ask.OutputSchema.OneOf[0]), string(schemas[schemaAnswer]), "the answer")
	assert.JSONEq(t, jsonOf(describe.OutputSchema.OneOf[0]), string(schemas[schemaCatalog]), "the catalogue")
	codes := func(b []byte) any {
		var s struct {
			Properties struct {
				Reason struct {
					Properties struct{ Code struct{ Enum []string } }
				}
			}
		}
		require.NoError(t, json.Unmarshal(b, &s))
		return s.Properties.Reason.Properties.Code.Enum
	}
	assert.Equal(t, codes([]byte(jsonOf(ask.OutputSchema.OneOf[1]))), codes(schemas[schemaRefusal]), "the refusal codes")
}

// TestBodiesFitTheirSchemas validates real bodies against the generated
// schemas.
func TestBodiesFitTheirSchemas(t *testing.T) {
	doc, err := buildOpenAPI(fullOptions())
	require.NoError(t, err)
	resolve := func(name string) *jsonschema.Resolved {
		t.Helper()
		var s jsonschema.Schema
		require.NoError(t, json.Unmarshal(doc.Components.Schemas[name], &s))
		resolved, err := s.Resolve(nil)
		require.NoError(t, err)
		return resolved
	}
	validate := func(schema string, body []byte) {
		t.Helper()
		resolved := resolve(schema)
		var v any
		require.NoError(t, json.Unmarshal(body, &v))
		assert.NoError(t, resolved.Validate(v), "%s: %s", schema, body)
	}
	idp := newIdentityProvider(t)
	e := idp.env(t, envConfig{cfg: Config{MCP: callerEcho()}})
	h := idp.bearer(t, idp.claims("alice", scopeCatalog, scopeAsk))
	validate(schemaAnswer, e.ask(t, qAnswer, h).body)
	validate(schemaRefusal, e.ask(t, qBadValue, h).body)
	validate(schemaFailure, e.ask(t, `{"sql":1}`, h).body)
	validate(schemaCatalog, e.do(t, request{path: "/v1/catalog", header: h}).body)
	validate(schemaHealth, e.do(t, request{path: "/health"}).body)
	validate(schemaReady, e.do(t, request{path: "/ready"}).body)
	validate(schemaResourceMetadata, e.do(t, request{path: ResourceMetadataPath}).body)
	validate(schemaQuestion, []byte(qBadValue))

	assert.Error(t, resolve(schemaQuestion).Validate(map[string]any{"metrics": []any{"revenue"}, "grain": "month",
		"range": map[string]any{"start": "2025-01-01", "end": "2025-02-01"}, "sql": "x"}), "unknown fields are closed out")
}

// TestEveryStatusIsDocumented: each refusal and failure code of
// /v1/query appears under its status.
func TestEveryStatusIsDocumented(t *testing.T) {
	doc := decodeDoc(t, generated(t, fullOptions()))
	responses := doc.Paths["/v1/query"]["post"].Responses
	for _, c := range domain.Codes() {
		r, ok := responses[strconv.Itoa(c.Status())]
		require.True(t, ok, c)
		assert.Contains(t, string(r), string(c))
	}
	for _, c := range []FailureCode{Unauthorized, InsufficientScope, ToolNotEnabled, HostNotAllowed, NotAQuestion, TooLarge, UnsupportedMediaType,
		RateLimited, Timeout, Internal, Unavailable, IdentityUnavailable, AtCapacity, ZeroDenominator} {
		r, ok := responses[strconv.Itoa(c.Status())]
		require.True(t, ok, c)
		assert.Contains(t, string(r), string(c))
	}
	assert.Contains(t, string(responses["503"]), "Retry-After")
	assert.Contains(t, string(responses["401"]), "WWW-Authenticate")
}

func TestDocsPageIsSelfContained(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{cfg: Config{MCP: callerEcho()}})
	r := e.do(t, request{path: "/docs"})
	require.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, "text/html; charset=utf-8", r.header.Get("Content-Type"))
	assert.Equal(t, docsCSP, r.header.Get("Content-Security-Policy"))
	page := string(r.body)
	for _, want := range []string{"/v1/query", "/v1/catalog", "/mcp", "ask_metric", "sutura:metrics.ask", "schema-Question", "metric_unknown"} {
		assert.Contains(t, page, want)
	}
	for _, never := range []string{"<script", `src="http`, `href="http`, "@import", "url("} {
		assert.NotContains(t, page, never)
	}
}

// TestDocsPageSaysWhetherATokenIsNeeded: a deployment without an access
// token or inbound identity does not tell its reader to send a bearer
// token; one with a token does.
func TestDocsPageSaysWhetherATokenIsNeeded(t *testing.T) {
	open := string(newEnv(t, newFake(), envConfig{}).do(t, request{path: "/docs"}).body)
	assert.Contains(t, open, "No token needed on this deployment")
	assert.NotContains(t, open, "Bearer token")

	gated := string(newEnv(t, newFake(), envConfig{cfg: Config{AccessToken: []byte("zz-token")}}).do(t, request{path: "/docs"}).body)
	assert.Contains(t, gated, "Bearer token")
	assert.NotContains(t, gated, "No token needed on this deployment")
	assert.NotContains(t, gated, "zz-token")
}

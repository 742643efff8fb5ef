package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
	"sutura.dev/runtime"
)

// agentCaller is a caller outside the audience finance: secret_revenue is
// hidden from it.
func agentCaller(context.Context) app.Caller {
	return app.Caller{Principal: domain.Principal{Subject: "agent"}}
}

func TestResourcesAreTheCallersView(t *testing.T) {
	transports(t, func(t *testing.T, connect func(*testing.T, *env) *mcp.ClientSession) {
		e := newEnv(t, newFake(), envConfig{opts: Options{Caller: agentCaller}})
		cs := connect(t, e)
		ctx := context.Background()
		list, err := cs.ListResources(ctx, nil)
		require.NoError(t, err)
		var uris []string
		for _, r := range list.Resources {
			uris = append(uris, r.URI)
		}
		assert.Equal(t, []string{CatalogURI, "sutura://metrics/revenue"}, uris, "secret_revenue is not listed")
		assert.Equal(t, "private", list.CacheScope)
		assert.Positive(t, list.TTLMs)

		templates, err := cs.ListResourceTemplates(ctx, nil)
		require.NoError(t, err)
		require.Len(t, templates.ResourceTemplates, 1)
		assert.Equal(t, MetricURITemplate, templates.ResourceTemplates[0].URITemplate)
		assert.Positive(t, templates.TTLMs)

		read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "sutura://metrics/revenue"})
		require.NoError(t, err)
		require.Len(t, read.Contents, 1)
		assert.Equal(t, "text/markdown", read.Contents[0].MIMEType)
		assert.Contains(t, read.Contents[0].Text, "# revenue")
		assert.Equal(t, "private", read.CacheScope)

		read, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: CatalogURI})
		require.NoError(t, err)
		assert.Contains(t, read.Contents[0].Text, `"name":"revenue"`)
		assert.NotContains(t, read.Contents[0].Text, "secret_revenue")

		_, hidden := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "sutura://metrics/secret_revenue"})
		_, unknown := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "sutura://metrics/no_such"})
		_, elsewhere := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///" + canary})
		require.Error(t, hidden)
		require.Error(t, unknown)
		require.Error(t, elsewhere)
		assert.Contains(t, hidden.Error(), textResourceNotFound)
		assert.Equal(t, hidden.Error(), unknown.Error(), "hidden and unknown are the same not-found")
		assert.Contains(t, elsewhere.Error(), textResourceNotFound)
		assert.NotContains(t, elsewhere.Error(), canary)
	})
}

func TestPromptAndCompletions(t *testing.T) {
	transports(t, func(t *testing.T, connect func(*testing.T, *env) *mcp.ClientSession) {
		e := newEnv(t, newFake(), envConfig{opts: Options{Caller: agentCaller}})
		cs := connect(t, e)
		ctx := context.Background()
		prompts, err := cs.ListPrompts(ctx, nil)
		require.NoError(t, err)
		require.Len(t, prompts.Prompts, 1)
		assert.Equal(t, PromptAskAboutMetric, prompts.Prompts[0].Name)

		p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: PromptAskAboutMetric, Arguments: map[string]string{"metric": "revenue", "dimension": "city"}})
		require.NoError(t, err)
		require.Len(t, p.Messages, 1)
		body := p.Messages[0].Content.(*mcp.TextContent).Text
		assert.Contains(t, body, "grouped by city")
		assert.Contains(t, body, "describe_catalog")
		_, hidden := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: PromptAskAboutMetric, Arguments: map[string]string{"metric": "secret_revenue"}})
		_, unknown := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: PromptAskAboutMetric, Arguments: map[string]string{"metric": "no_such"}})
		require.Error(t, hidden)
		assert.Equal(t, hidden.Error(), unknown.Error())

		complete := func(ref *mcp.CompleteReference, arg, value string, context map[string]string) mcp.CompletionResultDetails {
			params := &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}}
			if context != nil {
				params.Context = &mcp.CompleteContext{Arguments: context}
			}
			res, err := cs.Complete(ctx, params)
			require.NoError(t, err)
			return res.Completion
		}
		tmpl := &mcp.CompleteReference{Type: "ref/resource", URI: MetricURITemplate}
		prompt := &mcp.CompleteReference{Type: "ref/prompt", Name: PromptAskAboutMetric}
		assert.Equal(t, []string{"revenue"}, complete(tmpl, "name", "", nil).Values, "secret_revenue is not completed")
		assert.Equal(t, []string{"revenue"}, complete(prompt, "metric", "re", nil).Values)
		assert.Empty(t, complete(prompt, "metric", "sec", nil).Values)
		assert.Equal(t, []string{"city", "note"}, complete(prompt, "dimension", "", map[string]string{"metric": "revenue"}).Values)
		assert.Empty(t, complete(prompt, "dimension", "", map[string]string{"metric": "secret_revenue"}).Values)
	})
}

// TestCapabilitiesAreExactlyThoseHandled: initialize and server/discover
// declare tools, resources, prompts and completions, each list announcing
// its changes, and logging, and nothing else; the tool list has the capability list's
// order.
func TestCapabilitiesAreExactlyThoseHandled(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			e := newEnv(t, newFake(), envConfig{})
			cs := e.connectHTTP(t, version)
			caps := cs.InitializeResult().Capabilities
			b, err := json.Marshal(caps)
			require.NoError(t, err)
			assert.JSONEq(t, `{"tools":{"listChanged":true},"resources":{"listChanged":true},"prompts":{"listChanged":true},"completions":{},"logging":{}}`, string(b))
			tools, err := cs.ListTools(context.Background(), nil)
			require.NoError(t, err)
			var names []string
			for _, tool := range tools.Tools {
				names = append(names, tool.Name)
			}
			assert.Equal(t, []string{"describe_catalog", "ask_metric"}, names)
			assert.Equal(t, "public", tools.CacheScope)
			assert.Positive(t, tools.TTLMs)
		})
	}
}

// TestScaleListsStayBounded: over 1,000 metrics, resources/list pages, a
// completion and tools/list each stay under 64 KiB.
func TestScaleListsStayBounded(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{catalog: apptest.Catalog{Pinned: apptest.ScaleBundle(t, "v1", 1000, 40)}})
	cs := e.connectHTTP(t, "")
	ctx := context.Background()
	size := func(v any) int {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return len(b)
	}
	n, cursor := 0, ""
	for {
		list, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		require.NoError(t, err)
		assert.Less(t, size(list), app.MaxCatalogBytes)
		n += len(list.Resources)
		if cursor = list.NextCursor; cursor == "" {
			break
		}
	}
	assert.Equal(t, 1001, n, "the catalogue and every metric")
	res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: MetricURITemplate}, Argument: mcp.CompleteParamsArgument{Name: "name"}})
	require.NoError(t, err)
	assert.Len(t, res.Completion.Values, app.MaxCompletions)
	assert.Equal(t, 1000, res.Completion.Total)
	assert.True(t, res.Completion.HasMore)
	assert.Less(t, size(res), app.MaxCatalogBytes)
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	assert.Less(t, size(tools), app.MaxCatalogBytes)
	desc := call(t, cs, "describe_catalog", map[string]any{"search": "refunds margin"})
	assert.False(t, desc.IsError)
	assert.LessOrEqual(t, size(desc.StructuredContent), app.MaxCatalogBytes)
}

// TestRepinNotifies: a re-pin sends the list-changed notifications, on a
// session of the initialize era (as on stdio) and through
// subscriptions/listen on revision 2026-07-28.
func TestRepinNotifies(t *testing.T) {
	for name, connect := range map[string]func(*testing.T, *env, *mcp.Client) *mcp.ClientSession{
		"in-memory": func(t *testing.T, e *env, c *mcp.Client) *mcp.ClientSession {
			ct, st := mcp.NewInMemoryTransports()
			ss, err := e.server.Connect(context.Background(), st, nil)
			require.NoError(t, err)
			cs, err := c.Connect(context.Background(), ct, nil)
			require.NoError(t, err)
			t.Cleanup(func() { _ = cs.Close(); _ = ss.Close() })
			return cs
		},
		"streamable-http 2026-07-28": func(t *testing.T, e *env, c *mcp.Client) *mcp.ClientSession {
			srv := httptestServer(t, e)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
			require.NoError(t, err)
			t.Cleanup(func() { _ = cs.Close() })
			return cs
		},
		"streamable-http 2026-07-28 behind a gate's writer": func(t *testing.T, e *env, c *mcp.Client) *mcp.ClientSession {
			// The HTTP gates wrap the response writer without http.Flusher:
			// the listen stream must still flush through them.
			h := e.server.Handler()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h.ServeHTTP(&plainWriter{w}, r)
			}))
			t.Cleanup(srv.Close)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
			require.NoError(t, err)
			t.Cleanup(func() { _ = cs.Close() })
			return cs
		},
	} {
		t.Run(name, func(t *testing.T) {
			cat, err := app.NewSwappableCatalog(apptest.Bundle(t, "v1"))
			require.NoError(t, err)
			e := newEnv(t, newFake(), envConfig{catalog: cat})
			var tools, resources, prompts atomic.Int32
			c := mcp.NewClient(&mcp.Implementation{Name: "sutura-test", Version: "1"}, &mcp.ClientOptions{
				ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { tools.Add(1) },
				ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { resources.Add(1) },
				PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { prompts.Add(1) },
			})
			cs := connect(t, e, c)
			_, err = cs.ListTools(context.Background(), nil)
			require.NoError(t, err)
			defs := apptest.Definitions()
			defs.Metrics[0].Description = "Revenue in euros, re-pinned."
			b, err := domain.NewBundle("v2", defs, apptest.Knowledge())
			require.NoError(t, err)
			_, err = cat.Swap(b)
			require.NoError(t, err)
			require.Eventually(t, func() bool { return tools.Load() > 0 && resources.Load() > 0 && prompts.Load() > 0 },
				5*time.Second, 10*time.Millisecond, "tools %d resources %d prompts %d", tools.Load(), resources.Load(), prompts.Load())
		})
	}
}

func httptestServer(t *testing.T, e *env) string {
	t.Helper()
	srv := httptest.NewServer(e.server.Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}

// plainWriter hides every optional interface of its writer but Unwrap, as
// a gate's recording writer does.
type plainWriter struct{ w http.ResponseWriter }

func (p *plainWriter) Header() http.Header         { return p.w.Header() }
func (p *plainWriter) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p *plainWriter) WriteHeader(code int)        { p.w.WriteHeader(code) }
func (p *plainWriter) Unwrap() http.ResponseWriter { return p.w }

// BenchmarkScaleOverMCP: describe_catalog with a search through the SDK's
// client over in-memory transports, on the 1,000-metric catalogue,
// reporting the bytes of the largest list a host reads
// (docs/performance.md).
func BenchmarkScaleOverMCP(b *testing.B) {
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: 4})
	require.NoError(b, err)
	surface, err := app.New(app.Config{Catalog: apptest.Catalog{Pinned: apptest.ScaleBundle(b, "v1", 1000, 40)}, Admission: adm, Audit: &apptest.Audit{}})
	require.NoError(b, err)
	s, err := New(surface, Options{})
	require.NoError(b, err)
	b.Cleanup(s.Close)
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	require.NoError(b, err)
	cs, err := newClient().Connect(ctx, ct, nil)
	require.NoError(b, err)
	b.Cleanup(func() { _ = cs.Close(); _ = ss.Close() })
	size := func(v any) float64 {
		body, _ := json.Marshal(v)
		return float64(len(body))
	}
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(b, err)
	resources, err := cs.ListResources(ctx, nil)
	require.NoError(b, err)
	done, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: MetricURITemplate}, Argument: mcp.CompleteParamsArgument{Name: "name"}})
	require.NoError(b, err)
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "describe_catalog", Arguments: map[string]any{"search": "refunds margin by region"}})
		took = append(took, time.Since(start))
		if err != nil || res.IsError {
			b.Fatal("describe_catalog failed")
		}
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(size(tools), "tools-list-bytes")
	b.ReportMetric(size(resources), "resources-page-bytes")
	b.ReportMetric(size(done), "completion-bytes")
}

// TestRepinNotifiesOnStdio: over sutura's own stdio framing (RunStdio), a
// re-pin sends the three list-changed notifications to the session.
func TestRepinNotifiesOnStdio(t *testing.T) {
	cat, err := app.NewSwappableCatalog(apptest.Bundle(t, "v1"))
	require.NoError(t, err)
	e := newEnv(t, newFake(), envConfig{catalog: cat})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in, out, _ := stdio(t, ctx, e, 0)
	_, err = io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	require.NoError(t, err)
	_, err = out.ReadBytes('\n') // the initialize result
	require.NoError(t, err)
	defs := apptest.Definitions()
	defs.Metrics[0].Description = "Revenue in euros, re-pinned."
	b, err := domain.NewBundle("v2", defs, apptest.Knowledge())
	require.NoError(t, err)
	_, err = cat.Swap(b)
	require.NoError(t, err)
	seen := map[string]bool{}
	for len(seen) < 3 {
		line, err := out.ReadBytes('\n')
		require.NoError(t, err)
		var m struct{ Method string }
		require.NoError(t, json.Unmarshal(line, &m))
		seen[m.Method] = true
	}
	assert.Equal(t, map[string]bool{"notifications/tools/list_changed": true, "notifications/resources/list_changed": true,
		"notifications/prompts/list_changed": true}, seen)
}

package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
	"sutura.dev/runtime"
)

// The conformance fixture (docs/contract.md §14): sutura's MCP server, on
// the same wiring as `sutura serve` mounts it (New, Handler: stateless,
// JSON responses, scrubbed, batches refused), with the official
// conformance suite's own test tools, resources and prompts added to it,
// so that the suite's scenarios that call those run against sutura's
// transport. The node tier builds this test binary (go test -c) and runs
// it with SUTURA_MCP_FIXTURE=<host:port>: it then serves until killed and
// runs no test. Its first line on stdout is "listening on http://ADDR/mcp".

// fixtureEnv names the address the fixture serves on.
const fixtureEnv = "SUTURA_MCP_FIXTURE"

func TestMain(m *testing.M) {
	if addr := os.Getenv(fixtureEnv); addr != "" {
		if err := serveFixture(addr); err != nil {
			fmt.Fprintln(os.Stderr, "conformance fixture:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func serveFixture(addr string) error {
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: 4})
	if err != nil {
		return err
	}
	surface, err := app.New(app.Config{Catalog: apptest.Catalog{Pinned: apptest.Bundle(nilTB{}, "v1")},
		Sources: apptest.Sources(newFake()), Admission: adm, Audit: &apptest.Audit{}})
	if err != nil {
		return err
	}
	s, err := New(surface, Options{Name: "sutura-conformance-fixture"})
	if err != nil {
		return err
	}
	addFixtureFeatures(s.MCP())
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.Handler())
	fmt.Printf("listening on http://%s/mcp\n", ln.Addr())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	return srv.Serve(ln)
}

// nilTB is the testing.TB apptest.Bundle needs outside a test: the demo
// bundle always builds.
type nilTB struct{ testing.TB }

func (nilTB) Helper()                   {}
func (nilTB) Fatalf(f string, a ...any) { panic(fmt.Sprintf(f, a...)) }

// A 1x1 PNG and a silent WAV, the suite's media fixtures.
const (
	fixturePNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	fixtureWAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

func decoded(s string) []byte {
	b, _ := base64.StdEncoding.DecodeString(s)
	return b
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// addFixtureFeatures adds the tools, resources and prompts the suite's
// scenarios call by name.
func addFixtureFeatures(srv *mcp.Server) {
	object := json.RawMessage(`{"type":"object"}`)
	tool := func(name string, h mcp.ToolHandler) {
		srv.AddTool(&mcp.Tool{Name: name, Description: "conformance fixture: " + name, InputSchema: object}, h)
	}
	embedded := func(uri string) *mcp.EmbeddedResource {
		return &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: uri, MIMEType: "text/plain", Text: "This is an embedded resource"}}
	}
	tool("test_simple_text", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult("This is a simple text response for testing."), nil
	})
	tool("test_image_content", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: decoded(fixturePNG), MIMEType: "image/png"}}}, nil
	})
	tool("test_audio_content", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{Data: decoded(fixtureWAV), MIMEType: "audio/wav"}}}, nil
	})
	tool("test_embedded_resource", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{embedded("test://embedded-resource")}}, nil
	})
	tool("test_multiple_content_types", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "This is text content"},
			&mcp.ImageContent{Data: decoded(fixturePNG), MIMEType: "image/png"}, embedded("test://embedded-in-multiple")}}, nil
	})
	tool("test_error_handling", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res := &mcp.CallToolResult{}
		res.SetError(errors.New("this tool intentionally returns an error for testing"))
		return res, nil
	})
	tool("test_tool_with_progress", func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		token := req.Params.GetProgressToken()
		for _, p := range []float64{0, 50, 100} {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: p, Total: 100})
		}
		return textResult(fmt.Sprint(token)), nil
	})
	tool("test_tool_with_logging", func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for _, m := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: m})
		}
		return textResult("Tool with logging executed successfully"), nil
	})
	tool("test_logging_tool", func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "test_logging_tool executed"})
		return textResult("log attempted"), nil
	})
	tool("test_streaming_elicitation", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult("result frames only"), nil
	})
	tool("test_missing_capability", func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if caps := req.ClientCapabilities(); caps != nil && caps.Sampling != nil {
			return textResult("the client declared sampling"), nil
		}
		data, _ := json.Marshal(mcp.MissingRequiredClientCapabilityData{RequiredCapabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}})
		return nil, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Message: "sampling required", Data: data}
	})
	tool("test_trigger_tool_change", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		srv.AddTool(&mcp.Tool{Name: "fixture_transient_tool", Description: "conformance fixture: a tool added to change the list", InputSchema: object}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult(""), nil
		})
		return textResult("tools_list_changed published"), nil
	})
	tool("test_trigger_prompt_change", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		srv.AddPrompt(&mcp.Prompt{Name: "fixture_transient_prompt", Description: "conformance fixture: a prompt added to change the list"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{}}, nil
		})
		return textResult("prompts_list_changed published"), nil
	})

	// The suite's JSON Schema 2020-12 tool: its schema must survive
	// tools/list verbatim.
	srv.AddTool(&mcp.Tool{Name: "json_schema_2020_12_tool", Description: "conformance fixture: JSON Schema 2020-12 keywords", InputSchema: json.RawMessage(`{
		"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
		"$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
		"properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"},
			"contactMethod": {"type": "string", "enum": ["phone", "email"]}, "phone": {"type": "string"}, "email": {"type": "string"}},
		"allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
		"if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
		"then": {"required": ["phone"]}, "else": {"required": ["email"]},
		"additionalProperties": false}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult("called"), nil
	})

	read := func(mime, text string, blob []byte) mcp.ResourceHandler {
		return func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: mime, Text: text, Blob: blob}}}, nil
		}
	}
	srv.AddResource(&mcp.Resource{URI: "test://static-text", Name: "static-text", MIMEType: "text/plain"},
		read("text/plain", "This is the content of the static text resource.", nil))
	srv.AddResource(&mcp.Resource{URI: "test://static-binary", Name: "static-binary", MIMEType: "image/png"},
		read("image/png", "", decoded(fixturePNG)))
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template", MIMEType: "application/json"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id := strings.TrimSuffix(strings.TrimPrefix(req.Params.URI, "test://template/"), "/data")
			body, _ := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(body)}}}, nil
		})

	message := func(c mcp.Content) *mcp.PromptMessage { return &mcp.PromptMessage{Role: "user", Content: c} }
	srv.AddPrompt(&mcp.Prompt{Name: "test_simple_prompt", Title: "Simple Test Prompt", Description: "A prompt without arguments"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{message(&mcp.TextContent{Text: "This is a simple prompt for testing."})}}, nil
		})
	srv.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_arguments", Description: "A prompt with two required arguments", Arguments: []*mcp.PromptArgument{{Name: "arg1", Required: true}, {Name: "arg2", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a := req.Params.Arguments
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{message(&mcp.TextContent{
				Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"])})}}, nil
		})
	srv.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_embedded_resource", Description: "A prompt embedding a resource", Arguments: []*mcp.PromptArgument{{Name: "resourceUri", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				message(&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: req.Params.Arguments["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing."}}),
				message(&mcp.TextContent{Text: "Please process the embedded resource above."})}}, nil
		})
	srv.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_image", Description: "A prompt with an image"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				message(&mcp.ImageContent{Data: decoded(fixturePNG), MIMEType: "image/png"}),
				message(&mcp.TextContent{Text: "Please analyze the image above."})}}, nil
		})
}

// TestFixtureServesTheSuitesFeatures: the fixture's features are served
// next to sutura's, through the same wiring.
func TestFixtureServesTheSuitesFeatures(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	addFixtureFeatures(e.server.MCP())
	cs := e.connectHTTP(t, "2026-07-28")
	ctx := context.Background()
	res := call(t, cs, "test_simple_text", nil)
	assert.Equal(t, "This is a simple text response for testing.", text(res), "a fixture tool")
	list, err := cs.ListResources(ctx, nil)
	require.NoError(t, err)
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
	}
	assert.Contains(t, uris, "test://static-text", "the fixture's resources are listed")
	assert.Contains(t, uris, "sutura://metrics/revenue", "and sutura's")
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	require.Greater(t, len(tools.Tools), 2)
	assert.Equal(t, []string{string(domain.DescribeCatalog), string(domain.AskMetric)}, []string{tools.Tools[0].Name, tools.Tools[1].Name},
		"sutura's tools come first, in their order")
}

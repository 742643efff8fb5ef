package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"sutura.dev/app"
)

// Options configure a Server. The zero value serves the default tool list
// to the local operator with the default bounds.
type Options struct {
	// Name and Version identify the server to clients (serverInfo);
	// defaults "sutura" and "dev".
	Name, Version string
	// Tools is the capability list to serve; nil is the surface's
	// (app.Surface.Tools). A list that is not the surface's fails New:
	// whether a tool is enabled is the surface's decision.
	Tools []app.Tool
	// Instructions is the server's instructions to agents, rendered by
	// app.RenderPrompt. They are the same for every caller of the server, so
	// render them from what every caller may see.
	Instructions string
	// Caller resolves who is asking from a request's context. The context
	// carries the values of the HTTP request (set by the gates in front of
	// Handler) or of the context given to RunStdio. nil means the local
	// operator (domain.LocalOperator). A Caller without a correlation id gets
	// a fresh one per call.
	Caller func(ctx context.Context) app.Caller
	// EnforceScopes says the callers Caller resolves carry their scopes
	// (app.Caller.Scoped), set when an inbound identity supplies them: the
	// surface then refuses a tool the caller's scopes do not grant, told
	// as JSON-RPC error -32602 naming the tool and the scope, and the tool
	// is left out of that caller's tools/list, on every transport. The
	// list then varies by caller and is marked cacheScope "private". Off,
	// every tool is listed to every caller.
	EnforceScopes bool
	// MaxBodyBytes bounds one HTTP request body (server.max_body_bytes);
	// zero means 65536.
	MaxBodyBytes int64
}

// Server is sutura's MCP server: the tools of the capability list, bound to
// an app.Surface, served over in-memory, stdio or Streamable HTTP
// transports. It is safe for concurrent use.
type Server struct {
	surface *app.Surface
	opts    Options
	mcp     *mcp.Server
	// tools are the registrations of the tools, in declaration order,
	// kept to announce a re-pin (renotify).
	tools []registration
	// stop ends the subscription to the surface's catalogue events.
	stop func()
}

type registration struct {
	tool    *mcp.Tool
	handler mcp.ToolHandler
}

// New builds the server for surface. It serves exactly the surface's tools
// and fails when opts.Tools names another list. run_sql is served only when
// the surface enables it; otherwise a call to it is JSON-RPC error -32602,
// an unknown tool.
func New(surface *app.Surface, opts Options) (*Server, error) {
	if surface == nil {
		return nil, errors.New("mcpserver: a server needs the app surface")
	}
	if opts.Name == "" {
		opts.Name = "sutura"
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	tools, err := app.ServedTools(surface, opts.Tools)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: %w", err)
	}
	opts.Tools = tools
	if opts.MaxBodyBytes == 0 {
		opts.MaxBodyBytes = DefaultMaxMessageBytes
	}
	s := &Server{surface: surface, opts: opts}
	// The capabilities are exactly what is handled: tools, resources
	// (without subscriptions), prompts and completions, each list
	// announcing its changes, and logging (logging/setLevel is accepted;
	// sutura sends no log messages).
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, &mcp.ServerOptions{
		Instructions:      opts.Instructions,
		CompletionHandler: s.complete,
		SetCacheable:      s.cacheHints,
		Capabilities: &mcp.ServerCapabilities{
			Tools:       &mcp.ToolCapabilities{ListChanged: true},
			Resources:   &mcp.ResourceCapabilities{ListChanged: true},
			Prompts:     &mcp.PromptCapabilities{ListChanged: true},
			Completions: &mcp.CompletionCapabilities{},
			Logging:     &mcp.LoggingCapabilities{},
		},
	})
	for _, t := range opts.Tools {
		sch, err := ToolSchemas(t.ID)
		if err != nil {
			return nil, err
		}
		ann := annotations(t)
		// The schemas are handed over as their JSON: the SDK re-marshals a
		// tool's input schema on every stateless HTTP request (to look for
		// header annotations), and bytes cost it far less than a schema
		// object does.
		in, err := json.Marshal(sch.Input)
		if err != nil {
			return nil, err
		}
		out, err := json.Marshal(sch.Output)
		if err != nil {
			return nil, err
		}
		// Registered with the raw Server.AddTool: the arguments reach the
		// handler untouched and are parsed by the domain, never by the SDK's
		// schema validation, whose messages quote the caller's values.
		r := registration{&mcp.Tool{
			Name: string(t.ID), Title: t.Title, Description: t.Description,
			InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out), Annotations: &ann,
		}, s.handler(t)}
		s.tools = append(s.tools, r)
		s.mcp.AddTool(r.tool, r.handler)
	}
	s.addCatalogFeatures()
	s.mcp.AddReceivingMiddleware(s.route)
	s.stop = surface.Subscribe(func(ev app.CatalogEvent) {
		if ev.Kind == app.CatalogRepinned {
			s.renotify()
		}
	})
	return s, nil
}

// Close ends the server's subscription to the surface's catalogue events;
// sessions still open keep being served.
func (s *Server) Close() { s.stop() }

// renotify announces a re-pin (docs/contract.md §14): the tool, resource
// and prompt lists may have changed, so each is registered again, which
// sends notifications/tools/list_changed, …/resources/list_changed and
// …/prompts/list_changed to every stdio session and to every
// subscriptions/listen stream that asked for them.
func (s *Server) renotify() {
	for _, r := range s.tools {
		s.mcp.AddTool(r.tool, r.handler)
	}
	s.addCatalogFeatures()
}

// MCP returns the underlying SDK server, for transports this package does
// not wrap (in-memory connections in tests and in-process hosts).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Tools returns the tools the server serves, in declaration order.
func (s *Server) Tools() []app.Tool { return append([]app.Tool(nil), s.opts.Tools...) }

// Handler returns the Streamable HTTP handler: stateless, JSON responses,
// request bodies bounded by MaxBodyBytes, JSON-RPC batches refused, every
// response scrubbed (httpframe.go). It does not check the Host header:
// mount it at /mcp behind the HTTP gates, whose Host allowlist is the one
// decision (the SDK's own localhost check is off, so server.allowed_hosts
// takes effect on a loopback bind too). A question's work is cancelled
// when its HTTP request ends.
func (s *Server) Handler() http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Stateless:                    true,
		JSONResponse:                 true,
		MaxRequestBodyBytes:          s.opts.MaxBodyBytes,
		PropagateRequestCancellation: true,
		DisableLocalhostProtection:   true,
	})
	return frameHTTP(h, s.opts.MaxBodyBytes, withCarrier)
}

// RunStdio serves one session over in and out, one JSON-RPC message per
// line, until in ends (nil) or ctx ends (ctx's error; questions in flight
// are cancelled). A line longer than maxMessageBytes (server.max_body_bytes;
// zero means 65536) or not JSON gets a JSON-RPC parse error and serving
// continues; at most maxMessageBytes of a line are held in memory. in is not
// closed: a read blocked on it outlives RunStdio until it returns.
func (s *Server) RunStdio(ctx context.Context, in io.Reader, out io.Writer, maxMessageBytes int) error {
	if maxMessageBytes <= 0 {
		maxMessageBytes = DefaultMaxMessageBytes
	}
	err := s.mcp.Run(withCarrier(ctx), &lineTransport{in: in, out: out, max: maxMessageBytes})
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// carrierKey holds the context of what carries a call (an HTTP request,
// the stdio run): the SDK detaches a handler's context from it, and a
// question must still stop when it ends.
type carrierKey struct{}

func withCarrier(ctx context.Context) context.Context {
	return context.WithValue(ctx, carrierKey{}, ctx)
}

// caller resolves who is asking from ctx (Options.Caller, or the local
// operator); the surface gives a call without a correlation id a fresh one.
func (s *Server) caller(ctx context.Context) app.Caller {
	return app.ResolveCaller(ctx, s.opts.Caller, s.opts.EnforceScopes)
}

// route is the receiving middleware: resources/list is answered from the
// caller's view (listResources); tools/list is put in the capability list's
// order and, with EnforceScopes, narrowed to the tools the surface grants
// the caller (app.Surface.Granted). The caller is resolved from the
// context of the message, the same context a tool handler sees (the HTTP
// request's, the stdio run's, the in-memory connection's), so each
// stateless HTTP request is listed for the caller its own gates
// established, whatever Mcp-Session-Id it sends.
func (s *Server) route(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "resources/list":
			r, _ := req.(*mcp.ListResourcesRequest)
			if r == nil {
				return nil, ownError(jsonrpc.CodeInternalError, textInternalError)
			}
			return s.listResources(ctx, r, next)
		}
		res, err := next(ctx, method, req)
		list, ok := res.(*mcp.ListToolsResult)
		if err != nil || method != "tools/list" || !ok || list == nil {
			return res, err
		}
		order := map[string]int{}
		for i, t := range s.opts.Tools {
			order[string(t.ID)] = i - len(s.opts.Tools) // before any other
		}
		// The SDK builds a fresh result per request; ordering and
		// narrowing it in place touches no other caller's.
		slices.SortStableFunc(list.Tools, func(a, b *mcp.Tool) int { return order[a.Name] - order[b.Name] })
		if s.opts.EnforceScopes {
			granted := map[string]bool{}
			for _, t := range s.surface.Granted(s.caller(ctx)) {
				granted[string(t.ID)] = true
			}
			list.Tools = slices.DeleteFunc(list.Tools, func(t *mcp.Tool) bool { return !granted[t.Name] })
		}
		return list, nil
	}
}

// handler decodes a tools/call into the surface's one call and encodes its
// result.
func (s *Server) handler(t app.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		ctx, cancel := carried(ctx)
		defer cancel()
		caller := s.caller(ctx)
		caller.Transport = "mcp"
		if req.Params != nil {
			caller.Trace = metaTrace(req.Params.Meta, caller.Trace)
		}
		return encode(s.surface.Call(ctx, caller, t.ID, args))
	}
}

// carried ends ctx when the call's carrier (the HTTP request, the stdio
// run) ends: the SDK detaches a handler's context from it, and a question
// must still stop when it ends.
func carried(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	if carrier, ok := ctx.Value(carrierKey{}).(context.Context); ok {
		stop := context.AfterFunc(carrier, cancel)
		return ctx, func() { stop(); cancel() }
	}
	return ctx, cancel
}

package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"sutura.dev/app"
	"sutura.dev/app/wire"
	"sutura.dev/domain"
)

// Options configure a Server. The zero value serves the default tool list
// to the local operator with the default bounds.
type Options struct {
	// Name and Version identify the server to clients (serverInfo);
	// defaults "sutura" and "dev".
	Name, Version string
	// Tools is the capability list to serve, app.Tools(...); nil is
	// app.Tools(app.ToolOptions{}). Every tool in it is served or New fails.
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
	// EnforceScopes refuses a tool whose scope the caller's principal does
	// not hold, with JSON-RPC error -32602 naming the tool and the scope, and
	// leaves it out of that caller's tools/list, on every transport. The
	// list then varies by caller and is marked cacheScope "private". Set it
	// when an inbound identity supplies scopes. Off, every tool is listed to
	// every caller.
	EnforceScopes bool
	// RequestTimeout bounds a caller's whole wait, admission included
	// (server.request_timeout_seconds); pass the value given to app.Config.
	// Zero means 30 s.
	RequestTimeout time.Duration
	// MaxBodyBytes bounds one HTTP request body (server.max_body_bytes);
	// zero means 65536.
	MaxBodyBytes int64
	// Logger receives one line per service failure, with the correlation id
	// and the error (never the arguments); nil discards.
	Logger *slog.Logger
}

// Server is sutura's MCP server: the tools of the capability list, bound to
// an app.Surface, served over in-memory, stdio or Streamable HTTP
// transports. It is safe for concurrent use.
type Server struct {
	surface *app.Surface
	opts    Options
	mcp     *mcp.Server
	log     *slog.Logger
}

// New builds the server for surface. It fails when opts.Tools names a tool
// this package cannot serve. run_sql is served only when opts.Tools declares
// it (app.Tools(app.ToolOptions{RunSQL: true})); otherwise a call to it is
// JSON-RPC error -32602, an unknown tool.
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
	if opts.Tools == nil {
		opts.Tools = app.Tools(app.ToolOptions{})
	}
	if opts.RequestTimeout == 0 {
		opts.RequestTimeout = 30 * time.Second
	}
	if opts.RequestTimeout < 0 {
		return nil, errors.New("mcpserver: the request timeout must be positive")
	}
	if opts.MaxBodyBytes == 0 {
		opts.MaxBodyBytes = DefaultMaxMessageBytes
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{surface: surface, opts: opts, log: log}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version},
		&mcp.ServerOptions{Instructions: opts.Instructions})
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
		s.mcp.AddTool(&mcp.Tool{
			Name: string(t.ID), Title: t.Title, Description: t.Description,
			InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out), Annotations: &ann,
		}, s.handler(t))
	}
	if opts.EnforceScopes {
		s.mcp.AddReceivingMiddleware(s.listGranted)
	}
	return s, nil
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
// operator), with a fresh correlation id when it carries none.
func (s *Server) caller(ctx context.Context) app.Caller {
	c := s.resolve(ctx)
	if c.CorrelationID == "" {
		c.CorrelationID = rand.Text()
	}
	return c
}

// resolve is who is asking, as Options.Caller says (nil: the local operator).
func (s *Server) resolve(ctx context.Context) app.Caller {
	if s.opts.Caller != nil {
		return s.opts.Caller(ctx)
	}
	return app.Caller{Principal: domain.LocalOperator}
}

// listGranted is the receiving middleware installed with EnforceScopes: it
// narrows the SDK's tools/list result to the tools whose scope the caller
// holds. The caller is resolved from the context of the message, the same
// context a tool handler sees (the HTTP request's, the stdio run's, the
// in-memory connection's), so each stateless HTTP request is listed for
// the caller its own gates established, whatever Mcp-Session-Id it sends.
func (s *Server) listGranted(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		list, ok := res.(*mcp.ListToolsResult)
		if err != nil || method != "tools/list" || !ok || list == nil {
			return res, err
		}
		scopes := s.resolve(ctx).Principal.Scopes
		granted := make([]*mcp.Tool, 0, len(list.Tools))
		for _, tool := range list.Tools {
			for _, t := range s.opts.Tools {
				if string(t.ID) == tool.Name && t.Grants(scopes) {
					granted = append(granted, tool)
					break
				}
			}
		}
		// The SDK builds a fresh result per request; narrowing it in place
		// touches no other caller's. The list is this caller's: no shared
		// cache may hand it to another one.
		list.Tools = granted
		list.CacheScope = "private"
		return list, nil
	}
}

func (s *Server) handler(t app.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		caller := s.caller(ctx)
		if s.opts.EnforceScopes && !t.Grants(caller.Principal.Scopes) {
			return nil, ownError(jsonrpc.CodeInvalidParams,
				fmt.Sprintf("tool %s is not granted to this caller; the scope %s grants it", t.ID, t.Scope))
		}
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		args = wire.Arguments(args)
		switch t.ID {
		case domain.DescribeCatalog:
			return s.describe(caller, args)
		case domain.AskMetric:
			return s.ask(ctx, caller, args)
		case domain.RunSQL:
			return s.runSQL(ctx, caller, args)
		}
		// New registers only tools with a case above.
		return nil, ownError(jsonrpc.CodeInternalError, "tool "+string(t.ID)+" has no handler")
	}
}

// describe answers describe_catalog; it takes no admission slot.
func (s *Server) describe(caller app.Caller, args json.RawMessage) (*mcp.CallToolResult, error) {
	if err := wire.ParseDescribeCatalogArgs(args); err != nil {
		return notAQuestion(err), nil
	}
	body, err := wire.CatalogContent(s.surface.DescribeCatalog(caller))
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{
		StructuredContent: body,
		Content:           []mcp.Content{&mcp.TextContent{Text: string(body)}},
	}, nil
}

// ask answers ask_metric: parse, answer under the request timeout, render.
func (s *Server) ask(ctx context.Context, caller app.Caller, args json.RawMessage) (*mcp.CallToolResult, error) {
	q, err := domain.ParseQuestion(args)
	if err != nil {
		return notAQuestion(err), nil
	}
	ctx, cancel := s.callContext(ctx)
	defer cancel()
	out, err := s.surface.Answer(ctx, caller, q)
	if err != nil {
		res, rpcErr, report := failure(err)
		if report {
			s.log.Error("mcp: ask_metric failed", "correlation_id", caller.CorrelationID, "error", err)
		}
		return res, rpcErr
	}
	return outcomeResult(out)
}

// callContext bounds one call by the request timeout and ends it when its
// carrier (the HTTP request, the stdio run) ends.
func (s *Server) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
	if carrier, ok := ctx.Value(carrierKey{}).(context.Context); ok {
		stop := context.AfterFunc(carrier, cancel)
		return ctx, func() { stop(); cancel() }
	}
	return ctx, cancel
}

// runSQL answers run_sql: parse {statement} strictly, run it under the
// request timeout, render the rows without provenance. The statement is
// never logged nor echoed: it is in the audit record only.
func (s *Server) runSQL(ctx context.Context, caller app.Caller, args json.RawMessage) (*mcp.CallToolResult, error) {
	statement, err := wire.ParseRunSQLArgs(args)
	if err != nil {
		return notAQuestion(err), nil
	}
	ctx, cancel := s.callContext(ctx)
	defer cancel()
	out, err := s.surface.RunSQL(ctx, caller, statement)
	if err != nil {
		res, rpcErr, report := failure(err)
		if report {
			s.log.Error("mcp: run_sql failed", "correlation_id", caller.CorrelationID, "error", err)
		}
		return res, rpcErr
	}
	return sqlResult(out)
}

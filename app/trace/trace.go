// Package trace is the tracing port the call pipeline declares
// (docs/contract.md §16): a span per call, per leg and per data system
// call, continuing the W3C trace context a caller sent. The composition
// root implements it over OpenTelemetry; the pipeline never sees the SDK.
package trace

import "context"

// Remote is the trace context a caller sent, as its transport read it
// (the traceparent and tracestate headers over HTTP, the request's _meta
// over MCP), unchecked: a Tracer ignores a malformed one and starts a new
// trace, and never writes it anywhere.
type Remote struct {
	Parent string
	State  string
}

// Attr is one attribute of a span: Value is a string, an int64, a
// float64 or a bool.
type Attr struct {
	Key   string
	Value any
}

// Tracer starts spans.
type Tracer interface {
	// Start begins the span name as a child of the span ctx carries;
	// when ctx carries none, as a child of remote when remote.Parent is a
	// valid traceparent, else as the root of a new trace. The returned
	// context carries the new span.
	Start(ctx context.Context, name string, remote Remote, attrs ...Attr) (context.Context, Span)
}

// Span is one started span.
type Span interface {
	// End ends the span; a non-empty status marks it failed with that
	// text (a code, never a caller's value).
	End(status string)
	// TraceParent is the W3C traceparent naming this span ("" when the
	// span is not recorded).
	TraceParent() string
	// TraceID is the 32 hex digits of the span's trace ("" when the span
	// is not recorded).
	TraceID() string
}

// Nop is the Tracer that records nothing.
type Nop struct{}

// Start returns ctx and a span that records nothing.
func (Nop) Start(ctx context.Context, _ string, _ Remote, _ ...Attr) (context.Context, Span) {
	return ctx, nopSpan{}
}

type nopSpan struct{}

func (nopSpan) End(string)          {}
func (nopSpan) TraceParent() string { return "" }
func (nopSpan) TraceID() string     { return "" }

// Package telemetry implements the call pipeline's tracing port
// (app/trace) over the OpenTelemetry Go SDK (docs/contract.md §16,
// docs/operations.md "Tracing"): a span per call, pipeline, leg and data
// system call, continuing a caller's valid W3C traceparent and starting a
// new trace for anything else. Spans are exported over OTLP/HTTP when
// telemetry.otlp_endpoint is set; otherwise no exporter runs and a span
// only gives its call a trace id (the audit record's, the statements'
// traceparent comments').
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	oteltrace "go.opentelemetry.io/otel/trace"

	"sutura.dev/app/trace"
)

// ServiceName is the service.name of every span.
const ServiceName = "sutura"

// TracesPath is the OTLP/HTTP path of traces, appended to an endpoint
// given without a path.
const TracesPath = "/v1/traces"

// Config configures the tracer. Its zero value traces without exporting.
type Config struct {
	// Endpoint is telemetry.otlp_endpoint: the OTLP/HTTP collector's URL,
	// http or https; TracesPath is appended when it has no path. Empty
	// means no exporter.
	Endpoint string
	// Version is the service.version of the spans.
	Version string
}

// Tracer is the OpenTelemetry implementation of trace.Tracer.
type Tracer struct {
	provider *sdktrace.TracerProvider
	tracer   oteltrace.Tracer
	prop     propagation.TraceContext
	// exports says spans are recorded and exported; without it they are
	// dropped at their start, and their attributes are not even built.
	exports bool
}

var _ trace.Tracer = (*Tracer)(nil)

// EndpointURL returns the URL traces are posted to for endpoint, or an
// error naming what is wrong with it (never its text, which may hold a
// credential).
func EndpointURL(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	switch {
	case err != nil:
		return "", errors.New("telemetry.otlp_endpoint is not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return "", errors.New("telemetry.otlp_endpoint must be an http or https URL")
	case u.Host == "":
		return "", errors.New("telemetry.otlp_endpoint has no host")
	case u.User != nil:
		return "", errors.New("telemetry.otlp_endpoint must not carry a user or password")
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = TracesPath
	}
	return u.String(), nil
}

// New returns a tracer for cfg. It exports over OTLP/HTTP, in batches,
// only when cfg.Endpoint is set.
func New(ctx context.Context, cfg Config) (*Tracer, error) {
	res := resource.NewSchemaless(attribute.String("service.name", ServiceName), attribute.String("service.version", cfg.Version))
	// Without an exporter nothing would read a recorded span: every span
	// is dropped at its start, which still gives it its ids (the trace id
	// of the audit record and of the statements' comments, the caller's
	// when it sent one) at a fraction of a recorded span's cost.
	sampler := sdktrace.NeverSample()
	if cfg.Endpoint != "" {
		// A caller that sampled its trace out is not overruled; every
		// other call is recorded.
		sampler = sdktrace.ParentBased(sdktrace.AlwaysSample())
	}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res), sdktrace.WithSampler(sampler)}
	if cfg.Endpoint != "" {
		endpoint, err := EndpointURL(cfg.Endpoint)
		if err != nil {
			return nil, fmt.Errorf("telemetry: %w", err)
		}
		exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(endpoint), otlptracehttp.WithTimeout(10*time.Second))
		if err != nil {
			return nil, fmt.Errorf("telemetry: the OTLP exporter: %w", err)
		}
		opts = append(opts, sdktrace.WithBatcher(exp))
	}
	tp := sdktrace.NewTracerProvider(opts...)
	return &Tracer{provider: tp, tracer: tp.Tracer("sutura.dev/app"), exports: cfg.Endpoint != ""}, nil
}

// Shutdown exports what is buffered and stops the exporter.
func (t *Tracer) Shutdown(ctx context.Context) error { return t.provider.Shutdown(ctx) }

// ForceFlush exports what is buffered now.
func (t *Tracer) ForceFlush(ctx context.Context) error { return t.provider.ForceFlush(ctx) }

// remoteCarrier is the two headers of a remote trace context.
type remoteCarrier trace.Remote

func (c remoteCarrier) Get(key string) string {
	switch key {
	case "traceparent":
		return c.Parent
	case "tracestate":
		return c.State
	}
	return ""
}
func (remoteCarrier) Set(string, string) {}
func (remoteCarrier) Keys() []string     { return []string{"traceparent", "tracestate"} }

// Start begins the span name: the child of the span ctx carries (an
// embedding kernel's own, or the call's), else of remote when its
// traceparent is valid, else the root of a new trace. A malformed remote
// context is dropped by the W3C propagator, never an error.
func (t *Tracer) Start(ctx context.Context, name string, remote trace.Remote, attrs ...trace.Attr) (context.Context, trace.Span) {
	if remote.Parent != "" && !oteltrace.SpanContextFromContext(ctx).IsValid() {
		ctx = t.prop.Extract(ctx, remoteCarrier(remote))
	}
	if !t.exports {
		ctx, sp := t.tracer.Start(ctx, name)
		return ctx, span{sp}
	}
	kv := make([]attribute.KeyValue, 0, len(attrs))
	for _, a := range attrs {
		switch v := a.Value.(type) {
		case string:
			kv = append(kv, attribute.String(a.Key, v))
		case int64:
			kv = append(kv, attribute.Int64(a.Key, v))
		case int:
			kv = append(kv, attribute.Int(a.Key, v))
		case float64:
			kv = append(kv, attribute.Float64(a.Key, v))
		case bool:
			kv = append(kv, attribute.Bool(a.Key, v))
		}
	}
	ctx, sp := t.tracer.Start(ctx, name, oteltrace.WithAttributes(kv...))
	return ctx, span{sp}
}

type span struct{ oteltrace.Span }

func (s span) End(status string) {
	if status != "" {
		s.SetStatus(codes.Error, status)
	}
	s.Span.End()
}

func (s span) TraceParent() string {
	sc := s.SpanContext()
	if !sc.IsValid() {
		return ""
	}
	return "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-" + sc.TraceFlags().String()
}

func (s span) TraceID() string {
	sc := s.SpanContext()
	if !sc.IsValid() {
		return ""
	}
	return sc.TraceID().String()
}

// Package otlptest is a real OTLP/HTTP trace receiver for tests: an HTTP
// server that decodes each export with the official OTLP protobuf types
// and keeps the spans it received.
package otlptest

import (
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Span is one received span, its ids in hex.
type Span struct {
	Name, TraceID, SpanID, ParentSpanID string
	Service                             string
	Attributes                          map[string]string
}

// Receiver is a running OTLP/HTTP receiver.
type Receiver struct {
	URL string // the base URL; exports go to URL + "/v1/traces"

	mu    sync.Mutex
	spans []Span
}

// Start starts a receiver, stopped when t ends.
func Start(t testing.TB) *Receiver {
	r := &Receiver{}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "not an OTLP/HTTP protobuf trace export", http.StatusBadRequest)
		return
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var export collectortrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &export); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var got []Span
	for _, rs := range export.GetResourceSpans() {
		service := ""
		for _, a := range rs.GetResource().GetAttributes() {
			if a.GetKey() == "service.name" {
				service = a.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				sp := Span{Name: s.GetName(), TraceID: hex.EncodeToString(s.GetTraceId()), SpanID: hex.EncodeToString(s.GetSpanId()),
					ParentSpanID: hex.EncodeToString(s.GetParentSpanId()), Service: service, Attributes: map[string]string{}}
				for _, a := range s.GetAttributes() {
					sp.Attributes[a.GetKey()] = a.GetValue().GetStringValue()
				}
				got = append(got, sp)
			}
		}
	}
	r.mu.Lock()
	r.spans = append(r.spans, got...)
	r.mu.Unlock()
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// Spans returns the spans received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.spans)
}

// Wait returns the spans of trace once at least n were received, or what
// was received when timeout passes.
func (r *Receiver) Wait(traceID string, n int, timeout time.Duration) []Span {
	deadline := time.Now().Add(timeout)
	for {
		var of []Span
		for _, s := range r.Spans() {
			if s.TraceID == traceID {
				of = append(of, s)
			}
		}
		if len(of) >= n || time.Now().After(deadline) {
			return of
		}
		time.Sleep(20 * time.Millisecond)
	}
}

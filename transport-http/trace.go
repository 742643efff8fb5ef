package httpapi

import (
	"net/http"

	"sutura.dev/app/trace"
)

// inboundTrace is the W3C trace context of a request (docs/contract.md
// §16), unchecked: the surface continues a valid traceparent and starts a
// new trace for anything else, never echoing it. A header sent twice is
// not a trace context.
func inboundTrace(h http.Header) trace.Remote {
	var r trace.Remote
	if v := h.Values("Traceparent"); len(v) == 1 {
		r.Parent = v[0]
	}
	if v := h.Values("Tracestate"); len(v) == 1 && r.Parent != "" {
		r.State = v[0]
	}
	return r
}

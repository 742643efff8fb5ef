package httpapi

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"sutura.dev/app/trace"
)

func TestInboundTrace(t *testing.T) {
	tp := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for name, tc := range map[string]struct {
		h    http.Header
		want trace.Remote
	}{
		"none":          {http.Header{}, trace.Remote{}},
		"both":          {http.Header{"Traceparent": {tp}, "Tracestate": {"a=1"}}, trace.Remote{Parent: tp, State: "a=1"}},
		"sent twice":    {http.Header{"Traceparent": {tp, tp}}, trace.Remote{}},
		"state, alone":  {http.Header{"Tracestate": {"a=1"}}, trace.Remote{}},
		"passed as got": {http.Header{"Traceparent": {"zz"}}, trace.Remote{Parent: "zz"}},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, inboundTrace(tc.h))
		})
	}
}

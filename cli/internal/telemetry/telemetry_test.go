package telemetry_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app/trace"
	"sutura.dev/cli/internal/telemetry"
	"sutura.dev/cli/internal/telemetry/otlptest"
	"sutura.dev/domain"
)

const callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"

func TestSpansReachAnOTLPReceiverWithTheCallersTrace(t *testing.T) {
	rcv := otlptest.Start(t)
	tr, err := telemetry.New(context.Background(), telemetry.Config{Endpoint: rcv.URL, Version: "test"})
	require.NoError(t, err)
	ctx, call := tr.Start(context.Background(), "sutura.http ask_metric", trace.Remote{Parent: "00-" + callerTrace + "-00f067aa0ba902b7-01", State: "vendor=1"},
		trace.Attr{Key: "sutura.transport", Value: "http"})
	_, leg := tr.Start(ctx, "sutura.leg", trace.Remote{Parent: "00-ffffffffffffffffffffffffffffffff-00f067aa0ba902b7-01"})
	assert.Equal(t, callerTrace, call.TraceID(), "the caller's trace continues")
	assert.Equal(t, callerTrace, leg.TraceID(), "a child stays in its parent's trace, whatever remote it is given")
	assert.True(t, domain.ValidTraceParent(leg.TraceParent()), leg.TraceParent())
	leg.End("")
	call.End("refusal metric_unknown")
	require.NoError(t, tr.ForceFlush(context.Background()))
	spans := rcv.Wait(callerTrace, 2, 5*time.Second)
	require.Len(t, spans, 2)
	names := map[string]otlptest.Span{}
	for _, s := range spans {
		names[s.Name] = s
		assert.Equal(t, telemetry.ServiceName, s.Service)
	}
	assert.Equal(t, "00f067aa0ba902b7", names["sutura.http ask_metric"].ParentSpanID, "the caller's span is the parent")
	assert.Equal(t, names["sutura.http ask_metric"].SpanID, names["sutura.leg"].ParentSpanID)
	assert.Equal(t, "http", names["sutura.http ask_metric"].Attributes["sutura.transport"])
	require.NoError(t, tr.Shutdown(context.Background()))
}

func TestAMalformedTraceparentStartsANewTrace(t *testing.T) {
	tr, err := telemetry.New(context.Background(), telemetry.Config{})
	require.NoError(t, err)
	for name, parent := range map[string]string{
		"garbage":        "ZZ-canary",
		"zero trace id":  "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
		"upper case":     "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
		"short span id":  "00-" + callerTrace + "-00f067aa-01",
		"version ff":     "ff-" + callerTrace + "-00f067aa0ba902b7-01",
		"trailing bytes": "00-" + callerTrace + "-00f067aa0ba902b7-01' */ DROP",
	} {
		t.Run(name, func(t *testing.T) {
			_, sp := tr.Start(context.Background(), "call", trace.Remote{Parent: parent})
			defer sp.End("")
			require.True(t, domain.ValidTraceParent(sp.TraceParent()), "a new trace: %s", sp.TraceParent())
			assert.NotEqual(t, callerTrace, sp.TraceID())
			assert.NotContains(t, sp.TraceParent(), "ZZ")
		})
	}
}

func TestEndpointURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://collector:4318":             "http://collector:4318/v1/traces",
		"https://collector/":                "https://collector/v1/traces",
		"http://collector:4318/custom/path": "http://collector:4318/custom/path",
	} {
		got, err := telemetry.EndpointURL(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	for _, bad := range []string{"collector:4318", "ftp://x", "http://", "http://user:secret@collector", "::"} {
		_, err := telemetry.EndpointURL(bad)
		require.Error(t, err, bad)
		assert.NotContains(t, err.Error(), "secret")
	}
}

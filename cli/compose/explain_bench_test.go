package compose

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/explain"
	"sutura.dev/app/trace"
	"sutura.dev/app/wire"
	"sutura.dev/cli/internal/telemetry"
	"sutura.dev/domain"
)

// discardAudit is an audit sink that keeps nothing, so that the benchmark
// measures the pipeline rather than a log.
type discardAudit struct{}

func (discardAudit) Write(context.Context, domain.AuditRecord) error { return nil }

const warmQuestion = `{"metrics":["net_sales"],"grain":"month","dimensions":["area"],"range":{"start":"2025-01-01","end":"2026-01-01"}}`

// BenchmarkExplanationCost measures what the explanation and tracing
// without an exporter cost a warm answer on the embedded engine
// (docs/performance.md "Explanation and tracing"): the demo's process,
// asked the same question in process (Surface.Call, then the wire
// encoding every transport does), alternating between a surface with the
// process's tracer (no exporter) and one without a tracer, over the same
// sources, catalogue and admission bound; and, separately, building the
// explanation (explain.Build) and encoding it twice (the bound's Size and
// the wire body). It reports the p50 of each and the ratios to the p50
// of the untraced answer.
//
//	go test -run '^$' -bench ExplanationCost -benchtime 20000x ./cli/compose
func BenchmarkExplanationCost(b *testing.B) {
	ctx := context.Background()
	p, err := Open(ctx, map[string]string{}, io.Discard, Options{})
	require.NoError(b, err)
	defer p.Close()
	tracer, err := telemetry.New(ctx, telemetry.Config{})
	require.NoError(b, err)
	surface := func(t *telemetry.Tracer) *app.Surface {
		cfg := app.Config{Catalog: p.Catalog, Sources: p.Sources, Admission: p.Admission, Audit: discardAudit{}}
		if t != nil {
			cfg.Tracer = t
		}
		s, err := app.New(cfg)
		require.NoError(b, err)
		spans, err := app.ReadSpans(ctx, p.Catalog.Bundle(), p.Sources)
		require.NoError(b, err)
		s.SetSpans(p.Catalog.Bundle(), spans)
		return s
	}
	plain, traced := surface(nil), surface(tracer)
	caller := app.Caller{Principal: domain.LocalOperator, Transport: "inproc"}
	ask := func(s *app.Surface) (time.Duration, app.Result) {
		start := time.Now()
		res := s.Call(ctx, caller, domain.AskMetric, json.RawMessage(warmQuestion))
		_, err := wire.Content(res)
		d := time.Since(start)
		if err != nil || res.Answer == nil {
			b.Fatalf("not an answer: %v %v", err, res.Failure)
		}
		return d, res
	}
	var last app.Result
	for range 200 { // warm the cache
		ask(plain)
		_, last = ask(traced)
	}
	q, err := domain.ParseQuestion([]byte(warmQuestion))
	require.NoError(b, err)
	r := q.Range.Resolve(domain.DateFromTime(time.Now()))
	legs := last.Answer.Explanation.Legs
	build := func() time.Duration {
		start := time.Now()
		e := explain.Build(explain.Input{Bundle: p.Catalog.Bundle(), Question: q, Range: r, Legs: slices.Clone(legs),
			Through:    func(string, string) (domain.Date, bool) { return domain.DateOf(2026, 6, 30), true },
			Statements: []domain.Statement{}, TraceID: "4bf92f3577b34da6a3ce929d0e0e4736"})
		_ = e.SizeBound()
		if _, err := json.Marshal(e); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	// spans is what tracing adds to one call, alone: the four spans of a
	// one-leg question (call, pipeline, leg, data system call) with their
	// attributes, the trace id and the traceparent the statement carries.
	spans := func() time.Duration {
		start := time.Now()
		ctx, call := tracer.Start(ctx, "sutura.inproc ask_metric", trace.Remote{},
			trace.Attr{Key: "sutura.transport", Value: "inproc"}, trace.Attr{Key: "sutura.capability", Value: "ask_metric"})
		pctx, pipeline := tracer.Start(ctx, "sutura.pipeline", trace.Remote{})
		_ = pipeline.TraceID()
		lctx, leg := tracer.Start(pctx, "sutura.leg", trace.Remote{},
			trace.Attr{Key: "sutura.source", Value: "demo"}, trace.Attr{Key: "sutura.posture", Value: "shared-service-user"})
		dctx, ds := tracer.Start(lctx, "sutura.data_system demo", trace.Remote{}, trace.Attr{Key: "sutura.source", Value: "demo"})
		_ = domain.WithTraceParent(dctx, ds.TraceParent())
		ds.End("")
		leg.End("")
		pipeline.End("")
		call.End("")
		return time.Since(start)
	}
	var untracedLat, tracedLat, buildLat, spanLat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 {
			d, _ := ask(plain)
			untracedLat = append(untracedLat, d)
		} else {
			d, _ := ask(traced)
			tracedLat = append(tracedLat, d)
		}
		buildLat = append(buildLat, build())
		spanLat = append(spanLat, spans())
	}
	b.StopTimer()
	p50 := func(ds []time.Duration) float64 {
		if len(ds) == 0 {
			return 0
		}
		slices.Sort(ds)
		return float64(ds[len(ds)/2].Nanoseconds()) / 1000
	}
	base, withTracer, explanation, tracing := p50(untracedLat), p50(tracedLat), p50(buildLat), p50(spanLat)
	b.ReportMetric(tracing, "p50-spans-µs")
	b.ReportMetric(base, "p50-untraced-µs")
	b.ReportMetric(withTracer, "p50-traced-µs")
	b.ReportMetric(explanation, "p50-explanation-µs")
	if base > 0 {
		b.ReportMetric(100*(withTracer-base)/base, "traced-vs-untraced-%")
		b.ReportMetric(100*tracing/base, "spans-%")
		b.ReportMetric(100*explanation/base, "explanation-%")
	}
}

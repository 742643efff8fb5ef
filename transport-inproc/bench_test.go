package inproc

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/app/wire"
	"sutura.dev/domain"
)

// discardAudit drops records, so that the benchmark measures the call
// paths, not a sink.
type discardAudit struct{}

func (discardAudit) Write(context.Context, domain.AuditRecord) error { return nil }

// BenchmarkInvoke reports the per-call overhead of Invoke over calling
// app.Surface directly, for the same question on a data system that
// answers at once with 2 rows:
//
//   - surface: Surface.Answer with a question parsed once, outside the loop;
//   - surface+parse+render: what a kernel holding the surface would do per
//     call (parse the arguments, answer, render the structured content);
//   - invoke: Connection.Invoke from the JSON arguments to the content.
//
// invoke minus surface+parse+render is the connection's own cost.
func BenchmarkInvoke(b *testing.B) {
	e := newEnv(b, newFake(), envConfig{})
	surface, err := app.New(app.Config{Catalog: apptest.Catalog{Pinned: apptest.Bundle(b, "v1")},
		Sources:   apptest.Sources(newFake()),
		Admission: e.adm, Audit: discardAudit{}})
	if err != nil {
		b.Fatal(err)
	}
	conn, err := New(Config{Surface: surface, Admission: e.adm})
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(qAnswer)
	q, err := domain.ParseQuestion(args)
	if err != nil {
		b.Fatal(err)
	}
	caller := app.Caller{Principal: domain.LocalOperator, CorrelationID: "bench"}
	ctx := context.Background()

	b.Run("surface", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := surface.Answer(ctx, caller, q); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("surface+parse+render", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			q, err := domain.ParseQuestion(args)
			if err != nil {
				b.Fatal(err)
			}
			out, err := surface.Answer(ctx, caller, q)
			if err != nil {
				b.Fatal(err)
			}
			body, err := wire.OutcomeContent(out)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Discard.Write(body)
		}
	})
	b.Run("invoke", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			body, err := conn.Invoke(ctx, "ask_metric", args)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Discard.Write(body)
		}
	})
}

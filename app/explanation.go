package app

import (
	"context"
	"slices"

	"sutura.dev/app/explain"
	"sutura.dev/app/trace"
	"sutura.dev/domain"
)

// IdentityTeller is the optional ability of a data system to name the
// identity a leg runs as (docs/contract.md §16): its service user, or
// under impersonation the database role principal maps to. Without it
// the explanation names the posture's identity in words.
type IdentityTeller interface {
	Identity(principal domain.Principal, impersonated bool) string
}

// StatementTeller is the optional ability of a data system to tell the
// statements it sends (explain.StatementTeller and, under impersonation,
// explain.PrincipalStatementTeller), shown only to a caller holding
// domain.ScopeSQLRead.
type StatementTeller = explain.StatementTeller

// legBook collects the account of each leg of one question.
type legBook = explain.Book

func (s *Surface) tracer() trace.Tracer {
	if s.cfg.Tracer == nil {
		return trace.Nop{}
	}
	return s.cfg.Tracer
}

// startCall starts the span of one call on its transport, continuing the
// trace context the caller sent.
func (s *Surface) startCall(ctx context.Context, caller Caller, tool domain.Capability) (context.Context, trace.Span) {
	transport := caller.Transport
	if transport == "" {
		transport = "go"
	}
	return s.tracer().Start(ctx, "sutura."+transport+" "+string(tool), caller.Trace,
		trace.Attr{Key: "sutura.transport", Value: transport}, trace.Attr{Key: "sutura.capability", Value: string(tool)})
}

// endCall ends the call's span with the result's code.
func endCall(sp trace.Span, res *Result) {
	switch {
	case res.Failure != nil:
		sp.End(string(res.Failure.Code))
	case res.Refusal != nil:
		sp.End("refusal " + string(res.Refusal.Code()))
	default:
		sp.End("")
	}
}

// readsStatements reports whether caller may read the statements of an
// answer: an unscoped caller or a single-user operator always, a scoped
// one with domain.ScopeSQLRead.
func readsStatements(caller Caller) bool {
	return !caller.Scoped || caller.Principal.AllAudiences || slices.Contains(caller.Principal.Scopes, domain.ScopeSQLRead)
}

func newLegBook(n int, caller Caller) *legBook { return explain.NewBook(n, readsStatements(caller)) }

// runLeg runs leg i of a question on src as caller, in a span of its own
// and its data system call in another, whose traceparent the statement
// carries; it records the leg's account in book.
func (s *Surface) runLeg(ctx context.Context, caller Caller, src Source, plan *domain.Plan, source string, cost *domain.Cost, book *legBook, i int) (*domain.RowSet, error) {
	ctx, leg := s.tracer().Start(ctx, "sutura.leg", trace.Remote{},
		trace.Attr{Key: "sutura.source", Value: source}, trace.Attr{Key: "sutura.posture", Value: string(src.Posture)})
	before := *cost
	dctx, ds := s.tracer().Start(ctx, "sutura.data_system "+source, trace.Remote{}, trace.Attr{Key: "sutura.source", Value: source})
	dctx = domain.WithTraceParent(dctx, ds.TraceParent())
	rows, err := execute(dctx, system(src, caller), plan, source, cost)
	status := ""
	if err != nil {
		status = "error"
	}
	ds.End(status)
	leg.End(status)
	acc := domain.LegAccount{
		Source: source, Posture: src.Posture, Identity: identity(src, caller),
		RowsScanned: cost.RowsScanned - before.RowsScanned, BytesScanned: cost.BytesRead - before.BytesRead,
		Measured: cost.Measured, ElapsedMS: float64((cost.Elapsed - before.Elapsed).Microseconds()) / 1000, Cache: cost.Cache,
	}
	var st *domain.Statement
	if book.WithStatements() && err == nil {
		if got, ok := explain.StatementOf(dctx, src.System, plan, caller.Principal, src.Posture == domain.ImpersonationAtSource); ok {
			got.Source = source
			st = &got
		}
	}
	book.Record(i, acc, st)
	return rows, err
}

// identity is who leg ran as on src for caller.
func identity(src Source, caller Caller) string {
	imp := src.Posture == domain.ImpersonationAtSource
	if t, ok := src.System.(IdentityTeller); ok {
		if id := t.Identity(caller.Principal, imp); id != "" {
			return id
		}
	}
	if imp {
		return caller.Principal.Subject
	}
	return "the sutura process itself"
}

// explanationOverBound reports whether rows of size bytes and e together
// exceed the byte bound (docs/contract.md §16), encoding e only when its
// cheap upper bound does not fit.
func explanationOverBound(size int, e *domain.Explanation) bool {
	return e != nil && size+e.SizeBound() > domain.MaxResultBytes && size+e.Size() > domain.MaxResultBytes
}

// explanation is the explanation of an answer to q (docs/contract.md §16).
func (s *Surface) explanation(b *domain.Bundle, q domain.Question, r domain.Range, book *legBook, traceID string) *domain.Explanation {
	legs, stmts := book.Legs()
	return explain.Build(explain.Input{
		Bundle: b, Question: q, Range: r, Legs: legs, Statements: stmts, TraceID: traceID,
		Through: func(model, column string) (domain.Date, bool) { return s.throughOf(b, model, column) },
	})
}

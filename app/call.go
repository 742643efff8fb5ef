package app

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"sutura.dev/domain"
	"sutura.dev/runtime"
)

// Result is what one call of a capability produced, the one type every
// transport encodes. Exactly one of Catalog (describe_catalog), Answer
// (ask_metric), Rows (run_sql: the statement's columns without roles, no
// provenance), Refusal (any tool; describe_catalog refuses unknown names
// as metric_unknown) and Failure is set.
type Result struct {
	Capability domain.Capability
	Catalog    *CatalogView
	Answer     *domain.Answer
	Rows       *domain.RowSet
	Refusal    *domain.Reason
	Failure    *Failure
	// Estimate is the outcome of a dry run (docs/contract.md §15): what
	// the question would scan and the refusal it would meet.
	Estimate *domain.Estimate
	// Cost is the realized cost of the call (domain.Cost): measured for an
	// answer when every data system read measures its work, zero and
	// measured for describe_catalog and for a question refused before any
	// data system was asked, zero for a failure. A run_sql result counts
	// only the rows it returned.
	Cost domain.Cost
}

// Outcome is the ask_metric outcome of r: its answer or its refusal.
func (r Result) Outcome() domain.Outcome {
	if r.Refusal != nil {
		return domain.Refused(*r.Refusal)
	}
	if r.Estimate != nil {
		return domain.Outcome{Estimate: r.Estimate}
	}
	return domain.Answered(r.Answer)
}

// Call runs one call of tool with args (a JSON object as the caller sent
// it; empty means {}) for caller, through the one pipeline every transport
// shares:
//
//	enablement and scope → parse → timeout → admission → deadline →
//	execute → bounds → failure classification → audit
//
// Enablement, scope and parsing end a call with a failure
// (tool_not_enabled, insufficient_scope, not_a_question) before anything
// is audited; describe_catalog then answers from the pinned bundle without
// a slot or an audit record. ask_metric and run_sql run under the request
// timeout (Config.RequestTimeout; ctx's own deadline when earlier), take
// an admission slot, execute under the execution deadline, are bounded by
// the row cap and the byte bound, and are audited — answer, refusal or
// failure — before Call returns; run_sql also writes a record before its
// statement runs. A panic anywhere in the call is an internal failure,
// audited and logged with its stack, and never reaches the caller.
//
// A transport decodes its framing into (caller, tool, args) and encodes
// the Result; it decides nothing else.
func (s *Surface) Call(ctx context.Context, caller Caller, tool domain.Capability, args json.RawMessage) (res Result) {
	defer func() {
		if v := recover(); v != nil {
			res = Result{Capability: tool, Failure: s.panicked(caller, tool, v)}
		}
	}()
	if f := s.enter(ctx, caller, tool); f != nil {
		return Result{Capability: tool, Failure: f}
	}
	args = Arguments(args)
	switch tool {
	case domain.DescribeCatalog:
		return s.describeCall(caller, args)
	case domain.AskMetric:
		q, err := domain.ParseQuestion(args)
		if err != nil {
			return Result{Capability: tool, Failure: notAQuestion(err)}
		}
		return s.run(ctx, caller, s.askWork(caller, q))
	case domain.RunSQL:
		statement, err := ParseRunSQLArgs(args)
		if err != nil {
			return Result{Capability: tool, Failure: notAQuestion(err)}
		}
		return s.run(ctx, caller, s.sqlWork(statement))
	}
	// New enables only the capabilities above.
	return Result{Capability: tool, Failure: newFailure(CodeInternal, fmt.Errorf("tool %s has no pipeline", tool))}
}

// Permit is the enablement and scope step of the pipeline, for a gate in
// front of it that must refuse before it reads a request: nil when the
// deployment offers tool and caller may call it, else the failure
// tool_not_enabled or insufficient_scope that Call would return.
func (s *Surface) Permit(caller Caller, tool domain.Capability) *Failure {
	t, ok := s.tools[tool]
	switch {
	case !ok:
		return toolNotEnabled(tool)
	case caller.Scoped && !t.Grants(caller.Principal.Scopes):
		return notGranted(t)
	}
	return nil
}

// enter is the enablement and scope step, and refuses a call whose caller
// went away before it started.
func (s *Surface) enter(ctx context.Context, caller Caller, tool domain.Capability) *Failure {
	if f := s.Permit(caller, tool); f != nil {
		return f
	}
	if err := ctx.Err(); err != nil {
		return classify(err)
	}
	return nil
}

// work is what one capability adds to the pipeline; run does the rest, in
// the same order for every capability.
type work struct {
	tool domain.Capability
	rec  domain.AuditRecord
	cost domain.Cost
	// prepare runs before admission (resolve and plan); a reason ends the
	// call as a refusal, an error as a failure.
	prepare func(today domain.Date) (*domain.Reason, error)
	// announce writes an audit record before execute runs (run_sql).
	announce bool
	// execute runs the work on its data system in the slot, under the
	// execution deadline.
	execute func(ctx context.Context) (*domain.RowSet, error)
	// rowCap bounds the rows delivered; the refusals say what to ask for.
	rowCap int
	// deadline, tooManyRows and tooManyBytes are the details of the
	// execution refusals deadline_exceeded and result_too_large.
	deadline, tooManyRows, tooManyBytes string
	// deliver puts the bounded rows into the result and the record.
	deliver func(rows *domain.RowSet, res *Result)
	// gate runs in the slot before execute (spend.go: estimate, scan
	// ceiling, budget, dry run); a result it returns ends the call.
	gate func(ctx context.Context) *Result
	// settle runs once an answer is delivered, before the slot is given
	// back and the record written (spend.go: the budget's debit); it may
	// make it a failure.
	settle func(ctx context.Context, res *Result)
}

// run is the pipeline from the timeout on: timeout, admission, deadline,
// execute, bounds, failure classification, audit, and the operator's log
// line of a failure worth one.
func (s *Surface) run(ctx context.Context, caller Caller, w *work) Result {
	start := time.Now()
	if caller.CorrelationID == "" {
		// Every audited call is traced, whatever carried it.
		caller.CorrelationID = rand.Text()
	}
	w.rec.Time = start.UTC()
	w.rec.CorrelationID = caller.CorrelationID
	w.rec.Principal = caller.Principal.Chain()
	w.rec.Capability = w.tool
	if f := s.auditUnavailable(ctx); f != nil {
		// Its record could not be written either: refused before any work.
		s.report(caller, w.tool, f)
		return Result{Capability: w.tool, Failure: f}
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout)
	defer cancel()
	res := s.perform(ctx, caller, w)
	res.Capability = w.tool
	w.rec.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	switch {
	case res.Failure != nil:
		w.rec.Outcome, w.rec.Code = "failure", string(res.Failure.Code)
		res.Cost = domain.Cost{}
	case res.Refusal != nil:
		w.rec.Outcome, w.rec.Code = "refusal", string(res.Refusal.Code())
		res.Cost = w.cost
	case res.Estimate != nil:
		w.rec.Outcome = "estimate"
		res.Cost = w.cost
	default:
		w.rec.Outcome = "answer"
		res.Cost = w.cost
	}
	// The record is written with a context of its own: a caller that went
	// away must still leave a record.
	if err := s.cfg.Audit.Write(context.WithoutCancel(ctx), w.rec); err != nil {
		res = Result{Capability: w.tool, Failure: newFailure(CodeInternal, fmt.Errorf("the audit record could not be written: %w", err))}
	}
	s.report(caller, w.tool, res.Failure)
	return res
}

// perform is the part of run that may panic: a panic becomes an internal
// failure, and the slot and the deadline are released on the way out.
func (s *Surface) perform(ctx context.Context, caller Caller, w *work) (res Result) {
	defer func() {
		if v := recover(); v != nil {
			res = Result{Failure: panicFailure(v)}
		}
	}()
	today := domain.DateFromTime(s.cfg.Now().UTC())
	why, err := w.prepare(today)
	switch {
	case err != nil:
		return Result{Failure: classify(err)}
	case why != nil:
		return Result{Refusal: why}
	}
	release, err := s.cfg.Admission.Acquire(ctx)
	switch {
	case errors.Is(err, runtime.ErrAtCapacity):
		return Result{Failure: newFailure(CodeAtCapacity, nil)}
	case err != nil:
		return Result{Failure: ctxFailure(ctx, err)}
	}
	// The slot is given back only when execute has returned, that is when
	// the work has stopped.
	defer release()
	execCtx, cancel := runtime.WithExecutionDeadline(ctx, s.cfg.RequestTimeout)
	defer cancel()
	if w.gate != nil {
		if r := w.gate(execCtx); r != nil {
			return *r
		}
	}
	if w.announce {
		started := w.rec
		started.Outcome = "started"
		if err := s.cfg.Audit.Write(context.WithoutCancel(ctx), started); err != nil {
			return Result{Failure: newFailure(CodeInternal, fmt.Errorf("the start record could not be written, so the work was not started: %w", err))}
		}
	}
	rows, err := w.execute(execCtx)
	if err != nil {
		var re *domain.RefusalError
		switch {
		case errors.As(err, &re):
			return Result{Refusal: &re.Reason}
		case ctx.Err() != nil:
			return Result{Failure: ctxFailure(ctx, ctx.Err())}
		case execCtx.Err() != nil:
			return refused(domain.Refuse(domain.DeadlineExceeded, "%s", w.deadline))
		}
		return Result{Failure: classifyFor(w.tool, err)}
	}
	if rows == nil {
		return Result{Failure: newFailure(CodeInternal, errors.New("the data system returned no result"))}
	}
	if len(rows.Rows) > w.rowCap {
		return refused(domain.Refuse(domain.ResultTooLarge, w.tooManyRows, w.rowCap))
	}
	if rows.RenderedBytes() > domain.MaxResultBytes {
		return refused(domain.Refuse(domain.ResultTooLarge, w.tooManyBytes, domain.MaxResultBytes))
	}
	w.deliver(rows, &res)
	if w.settle != nil {
		w.settle(ctx, &res)
	}
	return res
}

func refused(r domain.Reason) Result { return Result{Refusal: &r} }

// ctxFailure is the failure of the end of the caller's context: a passed
// deadline is the reply timeout; a cancellation means the peer went away.
func ctxFailure(ctx context.Context, err error) *Failure {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return newFailure(CodeTimeout, err)
	}
	return newFailure(CodeCancelled, err)
}

// panicFailure is the internal failure of a recovered panic, with its
// stack for the log.
func panicFailure(v any) *Failure {
	f := newFailure(CodeInternal, fmt.Errorf("panic: %v", v))
	f.stack = debug.Stack()
	return f
}

// panicked is the failure of a panic outside the audited part of a call
// (enablement, parsing, describe_catalog), logged at once.
func (s *Surface) panicked(caller Caller, tool domain.Capability, v any) *Failure {
	f := panicFailure(v)
	s.report(caller, tool, f)
	return f
}

// report writes the operator's log line of a failure worth one: the tool,
// the correlation id, the code and the cause (never the arguments), and
// the stack of a panic.
func (s *Surface) report(caller Caller, tool domain.Capability, f *Failure) {
	if f == nil || !f.Code.Reported() {
		return
	}
	attrs := []any{"capability", string(tool), "correlation_id", caller.CorrelationID, "code", string(f.Code), "error", f.Error()}
	if f.stack != nil {
		attrs = append(attrs, "stack", string(f.stack))
	}
	s.log.Error("call failed", attrs...)
}

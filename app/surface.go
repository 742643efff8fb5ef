package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"sutura.dev/domain"
	"sutura.dev/runtime"
	"sutura.dev/semantic"
)

// Config wires a Surface. Catalog, Sources, Admission and Audit are
// required; the composition root builds each exactly once.
type Config struct {
	Catalog Catalog
	// Sources maps a configured source alias to its data system.
	Sources map[string]Source
	// Admission is the process's one admission bound, shared by every
	// transport.
	Admission *runtime.Admission
	Audit     AuditSink
	// RequestTimeout bounds a caller's whole wait (server.
	// request_timeout_seconds); execution gets it less a reply margin.
	// Zero means the default of 30 s.
	RequestTimeout time.Duration
	// Now is the clock relative ranges resolve against; nil is time.Now.
	Now func() time.Time
}

// Caller is who asks and how the call is traced.
type Caller struct {
	Principal     domain.Principal
	CorrelationID string
}

// Surface is the driving port every transport calls.
type Surface struct {
	cfg Config
}

// New returns a Surface over cfg.
func New(cfg Config) (*Surface, error) {
	if cfg.Catalog == nil || cfg.Admission == nil || cfg.Audit == nil {
		return nil, errors.New("app: a surface needs a catalogue, the admission bound and an audit sink")
	}
	for alias, src := range cfg.Sources {
		if src.Posture != domain.ImpersonationAtSource {
			continue
		}
		if _, ok := src.System.(PrincipalExecutor); !ok {
			return nil, fmt.Errorf("app: source %s is impersonation-at-source, but its data system cannot run a question as the caller", alias)
		}
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Surface{cfg: cfg}, nil
}

// Bundle returns the bundle in force.
func (s *Surface) Bundle() *domain.Bundle { return s.cfg.Catalog.Bundle() }

// Admission returns the process's admission bound the surface takes its
// slots from, so that a transport given the bound can check it is this one.
func (s *Surface) Admission() *runtime.Admission { return s.cfg.Admission }

// RequestTimeout returns the bound on one caller's whole wait, admission
// included, that transports apply to each call.
func (s *Surface) RequestTimeout() time.Duration { return s.cfg.RequestTimeout }

// Subscribe registers fn for the catalogue's events (a re-pinned bundle)
// when the catalogue can tell them (CatalogNotifier); otherwise fn is never
// called. fn must not block. The returned function ends the subscription.
func (s *Surface) Subscribe(fn func(CatalogEvent)) (unsubscribe func()) {
	if n, ok := s.cfg.Catalog.(CatalogNotifier); ok {
		return n.Subscribe(fn)
	}
	return func() {}
}

// Answer answers one question for caller. The outcome is an answer or a
// refusal, audited before it is returned. The error is a failure of the
// service, wrapping ErrAtCapacity, ErrTimeout, ErrUnavailable or
// ErrInternal, or ctx's error when the caller went away; failures are
// audited too. ctx should carry the caller's reply deadline.
func (s *Surface) Answer(ctx context.Context, caller Caller, q domain.Question) (domain.Outcome, error) {
	out, _, err := s.AnswerWithCost(ctx, caller, q)
	return out, err
}

// AnswerWithCost is Answer, on the same path, also returning the realized
// cost of the question (domain.Cost): rows scanned and bytes read as the
// data system measured them (when it is a CostReporter), rows returned,
// execution time and the sources read. The cost is zero, and measured, for
// a question refused before any data system was asked; it is zero for a
// failure.
func (s *Surface) AnswerWithCost(ctx context.Context, caller Caller, q domain.Question) (domain.Outcome, domain.Cost, error) {
	start := time.Now()
	b := s.cfg.Catalog.Bundle()
	rec := domain.AuditRecord{
		Time: start.UTC(), CorrelationID: caller.CorrelationID, Principal: caller.Principal.Chain(),
		Capability: domain.AskMetric, Metrics: q.Metrics, Grain: q.Grain.String(),
		Dimensions: q.Dimensions, DefinitionDigest: b.Digest(),
	}
	for _, f := range q.Filters {
		rec.FilterDimensions = append(rec.FilterDimensions, f.Dimension)
	}
	cost := domain.Cost{Sources: []string{}, Measured: true}
	out, err := s.answer(ctx, b, caller, q, &rec, &cost)
	rec.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	switch {
	case err != nil:
		rec.Outcome = "failure"
		rec.Code = failureCode(err)
	case out.Refusal != nil:
		rec.Outcome = "refusal"
		rec.Code = string(out.Refusal.Code())
	default:
		rec.Outcome = "answer"
		rec.Rows = len(out.Answer.Rows)
		rec.ExecutedAs = out.Answer.Provenance.ExecutedAs
		cost.RowsReturned = len(out.Answer.Rows)
	}
	// The record is written with a context of its own: a caller that went
	// away must still leave a record.
	if aerr := s.cfg.Audit.Write(context.WithoutCancel(ctx), rec); aerr != nil {
		return domain.Outcome{}, domain.Cost{}, fmt.Errorf("%w: the audit record could not be written", ErrInternal)
	}
	if err != nil {
		return out, domain.Cost{}, err
	}
	return out, cost, nil
}

func (s *Surface) answer(ctx context.Context, b *domain.Bundle, caller Caller, q domain.Question, rec *domain.AuditRecord, cost *domain.Cost) (domain.Outcome, error) {
	today := domain.DateFromTime(s.cfg.Now().UTC())
	r := q.Range.Resolve(today)
	rec.Range = &r
	plan, reason := semantic.Compile(b, caller.Principal, q, today)
	if reason != nil {
		return domain.Refused(*reason), nil
	}
	leg := plan.Legs[0]
	src, ok := s.cfg.Sources[leg.Source]
	if !ok || src.System == nil {
		return domain.Refused(domain.Refuse(domain.SourceUnavailable, "the data system of metric %s is not open in this process", q.Metrics[0])), nil
	}
	release, err := s.cfg.Admission.Acquire(ctx)
	switch {
	case errors.Is(err, runtime.ErrAtCapacity):
		return domain.Outcome{}, ErrAtCapacity
	case err != nil:
		return domain.Outcome{}, s.ctxFailure(ctx, err)
	}
	// The slot is given back only when Execute has returned, that is when
	// the work has stopped.
	defer release()
	execCtx, cancel := runtime.WithExecutionDeadline(ctx, s.cfg.RequestTimeout)
	defer cancel()
	sys := src.System
	if src.Posture == domain.ImpersonationAtSource {
		// The leg runs as the caller, never as the service identity.
		sys = asCaller{src.System.(PrincipalExecutor), caller.Principal}
	}
	rows, err := execute(execCtx, sys, plan, leg.Source, cost)
	if err != nil {
		var re *domain.RefusalError
		switch {
		case errors.As(err, &re):
			return domain.Refused(re.Reason), nil
		case ctx.Err() != nil:
			return domain.Outcome{}, s.ctxFailure(ctx, ctx.Err())
		case execCtx.Err() != nil:
			return domain.Refused(domain.Refuse(domain.DeadlineExceeded, "the execution budget ran out before the answer was complete; ask for less (a coarser grain, a shorter range, fewer dimensions)")), nil
		case errors.Is(err, domain.ErrZeroDenominator):
			return domain.Outcome{}, err
		}
		return domain.Outcome{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if len(rows.Rows) > plan.RowCap {
		return domain.Refused(domain.Refuse(domain.ResultTooLarge, "the answer has more than %d rows; ask for a coarser grain, a shorter range or fewer dimensions", plan.RowCap)), nil
	}
	if rows.RenderedBytes() > domain.MaxResultBytes {
		return domain.Refused(domain.Refuse(domain.ResultTooLarge, "the answer is larger than %d bytes; ask for less", domain.MaxResultBytes)), nil
	}
	prov := plan.Provenance
	prov.ExecutedAs = []domain.ExecutedAs{{Source: leg.Source, Posture: src.Posture}}
	return domain.Answered(&domain.Answer{RowSet: *rows, Provenance: prov}), nil
}

// asCaller runs every plan as one principal.
type asCaller struct {
	pe        PrincipalExecutor
	principal domain.Principal
}

func (a asCaller) Execute(ctx context.Context, plan *domain.Plan) (*domain.RowSet, error) {
	return a.pe.ExecuteAs(ctx, a.principal, plan)
}

// execute runs plan on sys and accounts for its cost: what a CostReporter
// measured, the wall time of the call and the source read.
func execute(ctx context.Context, sys DataSystem, plan *domain.Plan, source string, cost *domain.Cost) (*domain.RowSet, error) {
	start := time.Now()
	var (
		rows *domain.RowSet
		err  error
	)
	if r, ok := sys.(CostReporter); ok {
		var c domain.Cost
		rows, c, err = r.ExecuteWithCost(ctx, plan)
		cost.RowsScanned += c.RowsScanned
		cost.BytesRead += c.BytesRead
	} else {
		rows, err = sys.Execute(ctx, plan)
		cost.Measured = false
	}
	cost.Elapsed += time.Since(start)
	cost.Sources = append(cost.Sources, source)
	return rows, err
}

// MeasuresCost reports whether every configured data system measures its
// work (CostReporter), so that every answer's cost is measured.
func (s *Surface) MeasuresCost() bool {
	if len(s.cfg.Sources) == 0 {
		return false
	}
	for _, src := range s.cfg.Sources {
		if _, ok := src.System.(CostReporter); !ok {
			return false
		}
	}
	return true
}

// ctxFailure maps the end of the caller's context: a passed deadline is the
// reply timeout; a cancellation is returned as is (the peer went away).
func (s *Surface) ctxFailure(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return ErrTimeout
	}
	return err
}

// failureCode is the audit code of a failure.
func failureCode(err error) string {
	switch {
	case errors.Is(err, ErrAtCapacity):
		return "at_capacity"
	case errors.Is(err, ErrTimeout):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, ErrUnavailable):
		return "unavailable"
	case errors.Is(err, domain.ErrZeroDenominator):
		return "zero_denominator"
	case errors.Is(err, ErrStatementFailed):
		return "statement_failed"
	case errors.Is(err, ErrSQLNotAvailable):
		return "sql_not_available"
	}
	return "internal"
}

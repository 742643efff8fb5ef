package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"sutura.dev/domain"
	"sutura.dev/runtime"
	"sutura.dev/semantic"
)

// DefaultRequestTimeout is the request timeout when Config leaves it zero
// (server.request_timeout_seconds).
const DefaultRequestTimeout = 30 * time.Second

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
	// Tools is the capability list this deployment offers, Tools(...);
	// nil is Tools(ToolOptions{}). A call of any other tool is
	// tool_not_enabled, on every transport. With run_sql in it, exactly
	// one shared-service-user source must be able to run SQL (SQLRunner),
	// or SQLSource must name one: run_sql never runs on an impersonating
	// source.
	Tools []Tool
	// SQLSource is the alias of the source run_sql runs on
	// (tools.run_sql.source); empty means the one shared-service-user
	// source that can run SQL, and then several are refused by New.
	SQLSource string
	// RequestTimeout bounds a caller's whole wait, admission included
	// (server.request_timeout_seconds); execution gets it less a reply
	// margin. Zero means DefaultRequestTimeout.
	RequestTimeout time.Duration
	// Now is the clock relative ranges resolve against; nil is time.Now.
	Now func() time.Time
	// Combiner combines the legs of a federated question (docs/contract.md
	// §11); nil refuses every federated question as
	// federation_not_executable.
	Combiner Combiner
	// Governance bounds federated questions (governance.*); its zero
	// fields are the defaults.
	Governance Governance
	// Spend is the scan ceiling and the callers' budgets
	// (docs/contract.md §15); its zero value is the default ceiling and no
	// budget.
	Spend Spend
	// Logger receives one line per failure worth an operator's attention
	// (a data system down, a defect, with a panic's stack), with the
	// capability and the correlation id, never the arguments; nil
	// discards.
	Logger *slog.Logger
}

// Caller is who asks and how the call is traced.
type Caller struct {
	Principal domain.Principal
	// CorrelationID traces the call through logs and the audit; an empty
	// one is given a fresh id for each audited call.
	CorrelationID string
	// Scoped says the principal's Scopes came from an inbound identity and
	// are what it may call: a tool they do not grant is refused
	// (insufficient_scope). A caller that is not Scoped — the local
	// operator of stdio and the command line, a kernel that resolves no
	// caller — may call every tool the deployment offers.
	Scoped bool
}

// ResolveCaller is who asks a call on a transport: resolve's caller for
// ctx, or the local operator when resolve is nil, Scoped when the
// transport's callers carry their scopes (an inbound identity supplied
// them).
func ResolveCaller(ctx context.Context, resolve func(context.Context) Caller, scoped bool) Caller {
	c := Caller{Principal: domain.LocalOperator}
	if resolve != nil {
		c = resolve(ctx)
	}
	c.Scoped = scoped
	return c
}

// Surface is the driving port every transport calls.
type Surface struct {
	cfg   Config
	tools map[domain.Capability]Tool
	// sqlSource is the alias of the source run_sql runs on, when enabled.
	sqlSource string
	gov       Governance
	log       *slog.Logger
	// spans are the data spans of the bundle in force (SetSpans).
	spans spanHolder
	spend spending
}

// New returns a Surface over cfg. It fails without a catalogue, the
// admission bound or an audit sink; for an impersonating source whose data
// system cannot run a question as the caller; for a source whose data
// system reports a posture other than the configured one; and for a tool
// list holding an unknown tool or run_sql without its one source.
func New(cfg Config) (*Surface, error) {
	if cfg.Catalog == nil || cfg.Admission == nil || cfg.Audit == nil {
		return nil, errors.New("app: a surface needs a catalogue, the admission bound and an audit sink")
	}
	for _, alias := range slices.Sorted(maps.Keys(cfg.Sources)) {
		src := cfg.Sources[alias]
		if pr, ok := src.System.(PostureReporter); ok && pr.Posture() != src.Posture {
			return nil, fmt.Errorf("app: source %s is configured %s, but its data system runs %s", alias, src.Posture, pr.Posture())
		}
		if src.Posture != domain.ImpersonationAtSource {
			continue
		}
		if _, ok := src.System.(PrincipalExecutor); !ok {
			return nil, fmt.Errorf("app: source %s is impersonation-at-source, but its data system cannot run a question as the caller", alias)
		}
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.RequestTimeout < 0 {
		return nil, errors.New("app: the request timeout must be positive")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Tools == nil {
		cfg.Tools = Tools(ToolOptions{})
	}
	gov, err := cfg.Governance.withDefaults()
	if err != nil {
		return nil, err
	}
	spend, err := newSpending(cfg.Spend)
	if err != nil {
		return nil, err
	}
	s := &Surface{cfg: cfg, tools: map[domain.Capability]Tool{}, gov: gov, log: cfg.Logger, spend: spend}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	for _, t := range cfg.Tools {
		if !slices.Contains(domain.Capabilities(), t.ID) {
			return nil, fmt.Errorf("app: the tool list holds %s, which this build cannot serve", t.ID)
		}
		if _, dup := s.tools[t.ID]; dup {
			return nil, fmt.Errorf("app: the tool list holds %s twice", t.ID)
		}
		s.tools[t.ID] = t
	}
	if _, ok := s.tools[domain.RunSQL]; ok {
		alias, err := sqlSource(cfg.Sources, cfg.SQLSource)
		if err != nil {
			return nil, fmt.Errorf("app: run_sql is enabled (tools.run_sql.enabled): %w", err)
		}
		s.sqlSource = alias
	}
	return s, nil
}

// Bundle returns the bundle in force.
func (s *Surface) Bundle() *domain.Bundle { return s.cfg.Catalog.Bundle() }

// Admission returns the process's admission bound the surface takes its
// slots from, so that a transport given the bound can check it is this one.
func (s *Surface) Admission() *runtime.Admission { return s.cfg.Admission }

// RequestTimeout returns the bound on one caller's whole wait, admission
// included, that Call applies to each call.
func (s *Surface) RequestTimeout() time.Duration { return s.cfg.RequestTimeout }

// Tools returns the capability list this surface offers, in declaration
// order: the list every transport declares.
func (s *Surface) Tools() []Tool { return slices.Clone(s.cfg.Tools) }

// Granted returns the tools of the list that caller may call, in
// declaration order: every tool for a caller that is not Scoped.
func (s *Surface) Granted(caller Caller) []Tool {
	var out []Tool
	for _, t := range s.cfg.Tools {
		if !caller.Scoped || t.Grants(caller.Principal.Scopes) {
			out = append(out, t)
		}
	}
	return out
}

// Subscribe registers fn for the catalogue's events (a re-pinned bundle)
// when the catalogue can tell them (CatalogNotifier); otherwise fn is never
// called. fn must not block. The returned function ends the subscription.
func (s *Surface) Subscribe(fn func(CatalogEvent)) (unsubscribe func()) {
	if n, ok := s.cfg.Catalog.(CatalogNotifier); ok {
		return n.Subscribe(fn)
	}
	return func() {}
}

// Answer answers one question for caller, through the pipeline of Call
// from the scope step on (the question is already parsed). The outcome is
// an answer or a refusal, audited before it is returned. The error is a
// *Failure: it wraps ErrAtCapacity, ErrTimeout, ErrUnavailable,
// ErrInternal, domain.ErrZeroDenominator, ErrNotGranted or, when the
// caller went away, context.Canceled; failures of the work are audited
// too. ctx may carry a deadline earlier than the request timeout.
func (s *Surface) Answer(ctx context.Context, caller Caller, q domain.Question) (domain.Outcome, error) {
	out, _, err := s.AnswerWithCost(ctx, caller, q)
	return out, err
}

// AnswerWithCost is Answer, on the same path, also returning the realized
// cost of the question (Result.Cost): rows scanned and bytes read as the
// data system measured them (when it is a CostReporter), rows returned,
// execution time and the sources read.
func (s *Surface) AnswerWithCost(ctx context.Context, caller Caller, q domain.Question) (domain.Outcome, domain.Cost, error) {
	res := s.callParsed(ctx, caller, domain.AskMetric, func() *work { return s.askWork(caller, q) })
	if res.Failure != nil {
		return domain.Outcome{}, domain.Cost{}, res.Failure
	}
	return res.Outcome(), res.Cost, nil
}

// callParsed is Call for arguments a Go caller has already parsed.
func (s *Surface) callParsed(ctx context.Context, caller Caller, tool domain.Capability, w func() *work) (res Result) {
	defer func() {
		if v := recover(); v != nil {
			res = Result{Capability: tool, Failure: s.panicked(caller, tool, v)}
		}
	}()
	if f := s.enter(ctx, caller, tool); f != nil {
		return Result{Capability: tool, Failure: f}
	}
	return s.run(ctx, caller, w())
}

// askWork is the ask_metric part of the pipeline: resolve and plan against
// the bundle pinned now, execute the leg on its source (as the caller on
// an impersonating one), and deliver the rows with their provenance.
func (s *Surface) askWork(caller Caller, q domain.Question) *work {
	b := s.cfg.Catalog.Bundle()
	w := &work{
		tool: domain.AskMetric,
		rec: domain.AuditRecord{Metrics: q.Metrics, Grain: q.Grain.String(), Dimensions: q.Dimensions,
			DefinitionDigest: b.Digest()},
		cost:         domain.Cost{Sources: []string{}, Measured: true},
		deadline:     "the execution budget ran out before the answer was complete; ask for less (a coarser grain, a shorter range, fewer dimensions)",
		tooManyRows:  "the answer has more than %d rows; ask for a coarser grain, a shorter range or fewer dimensions",
		tooManyBytes: "the answer is larger than %d bytes; ask for less",
	}
	for _, f := range q.Filters {
		w.rec.FilterDimensions = append(w.rec.FilterDimensions, f.Dimension)
	}
	var (
		plan *domain.Plan
		srcs []Source
	)
	w.prepare = func(today domain.Date) (*domain.Reason, error) {
		r := q.Range.Resolve(today)
		w.rec.Range = &r
		var reason *domain.Reason
		plan, reason = semantic.CompileWith(b, caller.Principal, q, today, s.gov.ceilings())
		if reason != nil {
			return reason, nil
		}
		if plan.Federated() {
			if srcs, reason = s.legSources(plan, q.Metrics[0]); reason != nil {
				return reason, nil
			}
			if s.cfg.Combiner == nil {
				r := domain.Refuse(domain.FederationNotExecutable, "this deployment cannot combine answers from several data systems")
				return &r, nil
			}
		} else {
			src, ok := s.cfg.Sources[plan.Legs[0].Source]
			if !ok || src.System == nil {
				r := domain.Refuse(domain.SourceUnavailable, "the data system of metric %s is not open in this process", q.Metrics[0])
				return &r, nil
			}
			srcs = []Source{src}
		}
		w.rowCap = plan.RowCap
		return nil, nil
	}
	w.execute = func(ctx context.Context) (*domain.RowSet, error) {
		if plan.Federated() {
			return s.executeFederated(ctx, caller, plan, srcs, &w.cost)
		}
		return execute(ctx, system(srcs[0], caller), plan, plan.Legs[0].Source, &w.cost)
	}
	w.deliver = func(rows *domain.RowSet, res *Result) {
		prov := plan.Provenance
		prov.ExecutedAs = executedAs(plan, srcs)
		res.Answer = &domain.Answer{RowSet: *rows, Provenance: prov}
		w.rec.Rows = len(rows.Rows)
		w.rec.ExecutedAs = prov.ExecutedAs
		w.cost.RowsReturned = len(rows.Rows)
	}
	s.spendOn(caller, q, w, &plan, &srcs)
	return w
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

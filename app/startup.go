package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"sutura.dev/app/budget"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// AnchorError says an anchor did not reproduce: the metric, the expected
// text from the catalogue and the text the data system produced. Anchor
// values are catalogue data, not caller values, so they may be shown.
type AnchorError struct {
	Metric   string
	Expected string
	Produced string
	Err      error // set when the anchor could not run at all
}

func (e *AnchorError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("anchor of metric %s could not run: %v", e.Metric, e.Err)
	}
	return fmt.Sprintf("anchor of metric %s: expected %s, produced %s", e.Metric, e.Expected, e.Produced)
}

func (e *AnchorError) Unwrap() error { return e.Err }

// CheckBundle is CheckBundleWith under the default governance ceilings,
// with today's date from the clock.
func CheckBundle(ctx context.Context, b *domain.Bundle, sources map[string]Source) error {
	return CheckBundleWith(ctx, b, sources, Governance{}, domain.DateFromTime(time.Now().UTC()))
}

// CheckBundleWith is the start-up validation of docs/contract.md §2.3, run
// before any listener opens and on every refresh: every model's source must
// be open, no metric may need authored SQL (no opened data system runs it),
// every example's question must compile and plan under the deployment's
// governance g (semantic.CheckExamples; today resolves relative ranges),
// every data system that can check its tables (Validator) must find them
// readable, and every anchor must reproduce on its data system. It returns
// every failure found, joined; nil means the bundle may be served. Anchors
// run outside admission, as the operator, with no caller.
func CheckBundleWith(ctx context.Context, b *domain.Bundle, sources map[string]Source, g Governance, today domain.Date) error {
	g, err := g.withDefaults()
	if err != nil {
		return err
	}
	var errs []error
	defs := b.Definitions()
	for _, m := range defs.Models {
		if _, ok := sources[m.Source]; !ok {
			errs = append(errs, fmt.Errorf("model %s: its source %s is not configured", m.Name, m.Source))
		}
	}
	for i := range defs.Metrics {
		m := &defs.Metrics[i]
		if len(m.AuthoredSQL) > 0 {
			errs = append(errs, fmt.Errorf("metric %s uses authored_sql, which no opened data system can run", m.Name))
		}
	}
	if err := semantic.CheckExamples(b, today, g.ceilings()); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	aliases := make([]string, 0, len(sources))
	for alias := range sources {
		aliases = append(aliases, alias)
	}
	slices.Sort(aliases)
	for _, alias := range aliases {
		if v, ok := sources[alias].System.(Validator); ok {
			if err := v.Validate(ctx); err != nil {
				errs = append(errs, fmt.Errorf("source %s: %w", alias, err))
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return checkAnchors(ctx, b, sources)
}

// checkAnchors runs every anchor of b (CheckAnchor) and returns the
// failures joined in metric order. The anchors of one source run one after
// another (each may take the whole engine or connection pool; two at once
// would only compete for it, and for its working set); those of different
// sources run at once, so a start waits for its slowest source, not for
// their sum.
func checkAnchors(ctx context.Context, b *domain.Bundle, sources map[string]Source) error {
	names := AnchoredMetrics(b)
	bySource := map[string][]int{}
	for i, name := range names {
		src := ""
		if m, ok := b.Metric(name); ok {
			if mod, ok := b.Model(m.Model); ok {
				src = mod.Source
			}
		}
		bySource[src] = append(bySource[src], i)
	}
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for _, idx := range bySource {
		wg.Go(func() {
			for _, i := range idx {
				errs[i] = CheckAnchor(ctx, b, names[i], sources)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// AnchoredMetrics lists the metrics that declare an anchor, sorted.
func AnchoredMetrics(b *domain.Bundle) []string {
	var out []string
	for _, m := range b.Definitions().Metrics {
		if m.Anchor != nil {
			out = append(out, m.Name)
		}
	}
	slices.Sort(out)
	return out
}

// CheckAnchor re-runs the anchor of one metric: its single value over the
// anchor range at its coarsest grain, with no dimensions or filters,
// compared with the canonical rendering. It returns nil or an
// *AnchorError.
func CheckAnchor(ctx context.Context, b *domain.Bundle, metric string, sources map[string]Source) error {
	m, ok := b.Metric(metric)
	if !ok || m.Anchor == nil {
		return &AnchorError{Metric: metric, Err: errors.New("the metric declares no anchor")}
	}
	fail := func(err error) error { return &AnchorError{Metric: metric, Expected: m.Anchor.Value, Err: err} }
	plan, reason := AnchorPlan(b, m)
	if reason != nil {
		return fail(fmt.Errorf("refused (%s): %s", reason.Code(), reason.Detail()))
	}
	src, ok := sources[plan.Legs[0].Source]
	if !ok || src.System == nil {
		return fail(fmt.Errorf("source %s is not open", plan.Legs[0].Source))
	}
	rows, err := src.System.Execute(ctx, plan)
	if err != nil {
		return fail(err)
	}
	produced := "no rows"
	switch n := len(rows.Rows); {
	case n == 1:
		row := rows.Rows[0]
		produced = row[len(row)-1].Render()
	case n > 1:
		produced = fmt.Sprintf("%d rows", n)
	}
	if produced != m.Anchor.Value {
		return &AnchorError{Metric: metric, Expected: m.Anchor.Value, Produced: produced}
	}
	return nil
}

// AnchorPlan compiles the anchor of m (which declares one): its single
// value over the anchor range at its coarsest grain, with no dimensions
// or filters, asked by the local operator. It is the plan CheckAnchor
// executes, and what a harness computing anchors elsewhere must ask.
func AnchorPlan(b *domain.Bundle, m *domain.Metric) (*domain.Plan, *domain.Reason) {
	r := m.Anchor.Range
	q := domain.Question{Metrics: []string{m.Name}, Grain: m.CoarsestGrain(), Range: domain.TimeSpan{Fixed: &r}}
	return semantic.Compile(b, domain.LocalOperator, q, r.Start)
}

// Prepare hands each data system that can prepare (Preparer) the plans
// the start-up validation, and q when not nil (the one question of a
// one-shot command: sutura ask, query), are about to have it execute,
// before Check runs the anchors: the plans of the bundle's anchors, as
// Check compiles them, and of q as caller asks it, as Answer compiles it.
// A data system may then answer the plans that read one table in one scan
// of it (docs/operations.md, "Anchors and a question share a scan"). q's
// plan is handed over only when nothing Answer checks before executing it
// could refuse it: it compiles for the caller, is no dry run and reads
// one data system, its estimate is within the scan ceiling, and no budget
// applies to the caller (a budget is checked and debited by Answer
// alone). A data system handed q's plan is given the request timeout to
// prepare, as Answer would be; the anchors alone are not bounded, as
// Check does not bound them.
func (s *Surface) Prepare(ctx context.Context, caller Caller, q *domain.Question) {
	b := s.cfg.Catalog.Bundle()
	bySource := anchorPlans(b)
	var asked string // the source of q's plan, whose work the request timeout bounds
	if q != nil {
		qctx, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout)
		p := s.admitted(qctx, b, caller, *q)
		cancel()
		if p != nil {
			bySource[p.Legs[0].Source] = append(bySource[p.Legs[0].Source], p)
			asked = p.Legs[0].Source
		}
	}
	for src, plans := range bySource {
		pctx, cancel := ctx, context.CancelFunc(func() {})
		if src == asked {
			pctx, cancel = context.WithTimeout(ctx, s.cfg.RequestTimeout)
		}
		prepare(pctx, s.cfg.Sources[src], plans)
		cancel()
	}
}

// PrepareBundle hands the data systems of sources that can prepare the
// plans of b's anchors, as CheckBundle is about to run them: a catalogue
// refresh, like a start, checks the anchors over one table in one scan.
func (s *Surface) PrepareBundle(ctx context.Context, b *domain.Bundle, sources map[string]Source) {
	for src, plans := range anchorPlans(b) {
		prepare(ctx, sources[src], plans)
	}
}

// anchorPlans is the plans of b's anchors, as the anchor check compiles
// them, by source.
func anchorPlans(b *domain.Bundle) map[string][]*domain.Plan {
	bySource := map[string][]*domain.Plan{}
	for _, name := range AnchoredMetrics(b) {
		if m, ok := b.Metric(name); ok {
			if p, reason := AnchorPlan(b, m); reason == nil {
				bySource[p.Legs[0].Source] = append(bySource[p.Legs[0].Source], p)
			}
		}
	}
	return bySource
}

// prepare hands plans to src's data system when it can prepare.
func prepare(ctx context.Context, src Source, plans []*domain.Plan) {
	if pr, ok := src.System.(Preparer); ok {
		pr.Prepare(ctx, plans)
	}
}

// admitted is the plan of q as caller asks it, when Answer would execute
// it on one data system without a budget to check: nil otherwise
// (Prepare).
func (s *Surface) admitted(ctx context.Context, b *domain.Bundle, caller Caller, q domain.Question) *domain.Plan {
	if q.DryRun || s.spend.meter.Applies(caller.Principal) {
		return nil
	}
	today := domain.DateFromTime(s.cfg.Now().UTC())
	p, reason := semantic.CompileWith(b, caller.Principal, q, today, s.gov.ceilings())
	if reason != nil || p.Federated() {
		return nil
	}
	src, ok := s.cfg.Sources[p.Legs[0].Source]
	if !ok || src.System == nil {
		return nil
	}
	est, err := s.estimate(ctx, p, []Source{src})
	if err != nil || budget.Ceiling(est, s.spend.maxScan) != nil {
		return nil
	}
	return p
}

// Check is the start-up validation of the surface (docs/contract.md §2.3, §8),
// run before anything can answer: the bundle in force against the
// surface's sources (CheckBundleWith: sources, authored SQL, examples,
// tables and columns, anchors) and, when run_sql is enabled, the login role of its
// source (SQLPrivilegeChecker), so that a role able to reach the server's
// files, programs or sessions never serves run_sql. It returns every
// failure found, joined; nil means the surface may serve. Once everything
// passed, it reads the data span of every metric from the data systems
// that can tell it cheaply (ReadSpans), for describe_catalog.
func (s *Surface) Check(ctx context.Context) error {
	b := s.cfg.Catalog.Bundle()
	errs := []error{s.CheckBundle(ctx, b, s.cfg.Sources)}
	if s.sqlSource != "" {
		if c, ok := s.cfg.Sources[s.sqlSource].System.(SQLPrivilegeChecker); ok {
			if err := c.CheckSQLPrivileges(ctx); err != nil {
				errs = append(errs, fmt.Errorf("tools.run_sql.enabled: source %s: its login role may not serve run_sql: %w", s.sqlSource, err))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	spans, err := ReadSpans(ctx, b, s.cfg.Sources)
	if err != nil {
		return err
	}
	s.SetSpans(b, spans)
	return s.ReadThrough(ctx, b, s.cfg.Sources)
}

// CheckBundle validates b, a bundle that would replace the one in force,
// as Check validates the one in force: CheckBundleWith under the surface's
// governance and clock, against sources (those a refresh opened for b).
func (s *Surface) CheckBundle(ctx context.Context, b *domain.Bundle, sources map[string]Source) error {
	return CheckBundleWith(ctx, b, sources, s.gov, domain.DateFromTime(s.cfg.Now().UTC()))
}

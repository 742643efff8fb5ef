package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// Combiner is the driven port that computes the answer of a federated plan
// from the rows of its legs (docs/contract.md §11): the embedded engine
// implements it with its own kernels. Combine receives legs[i], the rows
// plan.Legs[i] returned (as plan.LegPlan(i) lists their columns), and
// returns the answer's rows, bounded by the row cap and the byte bound; a
// *domain.RefusalError when the combine ends in a refusal (a lookup key
// held twice is federated_answer_not_well_formed; result_too_large,
// resources_exhausted, deadline_exceeded); ctx's error when ctx ended; an
// error wrapping domain.ErrZeroDenominator for a ratio declared to fail;
// another error for a defect. Combine must stop its work when ctx is
// cancelled.
type Combiner interface {
	Combine(ctx context.Context, plan *domain.Plan, legs []*domain.RowSet) (*domain.RowSet, error)
}

// Defaults of Governance (docs/contract.md §9).
const (
	DefaultLookupLegCeiling = semantic.DefaultLookupLegCeiling
	DefaultSourceCeiling    = semantic.DefaultSourceCeiling
	DefaultMaxLegRows       = 1_000_000
)

// Governance bounds what a federated question may take: the lookup legs
// and data systems its plan may span (governance.lookup_leg_ceiling,
// governance.source_ceiling) and the rows one leg may return
// (governance.max_leg_rows). A zero field is its default.
type Governance struct {
	LookupLegCeiling int
	SourceCeiling    int
	MaxLegRows       int
}

func (g Governance) withDefaults() (Governance, error) {
	if g.LookupLegCeiling == 0 {
		g.LookupLegCeiling = DefaultLookupLegCeiling
	}
	if g.SourceCeiling == 0 {
		g.SourceCeiling = DefaultSourceCeiling
	}
	if g.MaxLegRows == 0 {
		g.MaxLegRows = DefaultMaxLegRows
	}
	if g.LookupLegCeiling < 0 || g.SourceCeiling < 0 || g.MaxLegRows < 0 || g.MaxLegRows > domain.MaxLegRowCap {
		return g, fmt.Errorf("app: the governance ceilings must be positive, and a leg may return at most %d rows", domain.MaxLegRowCap)
	}
	return g, nil
}

func (g Governance) ceilings() semantic.Ceilings {
	return semantic.Ceilings{LookupLegs: g.LookupLegCeiling, Sources: g.SourceCeiling}
}

// legSources returns the source of each leg of plan, or the refusal
// source_unavailable naming the first that is not open.
func (s *Surface) legSources(plan *domain.Plan, metric string) ([]Source, *domain.Reason) {
	srcs := make([]Source, len(plan.Legs))
	for i, leg := range plan.Legs {
		src, ok := s.cfg.Sources[leg.Source]
		if !ok || src.System == nil {
			r := domain.Refuse(domain.SourceUnavailable, "the data system %s, which metric %s reads, is not open in this process", leg.Source, metric)
			return nil, &r
		}
		srcs[i] = src
	}
	return srcs, nil
}

// executedAs lists each source the legs read once, in leg order, in its
// own posture.
func executedAs(plan *domain.Plan, srcs []Source) []domain.ExecutedAs {
	var out []domain.ExecutedAs
	for i, leg := range plan.Legs {
		if !slices.ContainsFunc(out, func(e domain.ExecutedAs) bool { return e.Source == leg.Source }) {
			out = append(out, domain.ExecutedAs{Source: leg.Source, Posture: srcs[i].Posture})
		}
	}
	return out
}

// system is the data system a leg runs on for caller: as the caller on an
// impersonating source, never as the service identity.
func system(src Source, caller Caller) DataSystem {
	if src.Posture == domain.ImpersonationAtSource {
		return asCaller{src.System.(PrincipalExecutor), caller.Principal}
	}
	return src.System
}

// executeFederated runs every leg of a federated plan at once, each on its
// source in its posture, under ctx (the question's one slot and one
// deadline), then combines their rows. The first leg to fail cancels the
// others, and the call returns only when every leg has stopped. The cost
// is the sum over the legs; the elapsed time runs from the start of the
// legs to the end of the combine.
func (s *Surface) executeFederated(ctx context.Context, caller Caller, plan *domain.Plan, srcs []Source, cost *domain.Cost, book *legBook) (*domain.RowSet, error) {
	start := time.Now()
	defer func() { cost.Elapsed = time.Since(start) }()
	legCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	rows := make([]*domain.RowSet, len(plan.Legs))
	errs := make([]error, len(plan.Legs))
	costs := make([]domain.Cost, len(plan.Legs))
	var wg sync.WaitGroup
	for i := range plan.Legs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					errs[i] = panicFailure(v)
					cancel()
				}
			}()
			leg := plan.LegPlan(i, s.gov.MaxLegRows)
			costs[i].Measured = true
			rows[i], errs[i] = s.runLeg(legCtx, caller, srcs[i], leg, plan.Legs[i].Source, &costs[i], book, i)
			if errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	for _, c := range costs {
		cost.RowsScanned += c.RowsScanned
		cost.BytesRead += c.BytesRead
		cost.Measured = cost.Measured && c.Measured
	}
	for _, e := range executedAs(plan, srcs) {
		cost.Sources = append(cost.Sources, e.Source)
	}
	if err := s.legError(ctx, errs); err != nil {
		return nil, err
	}
	for i, rs := range rows {
		switch {
		case rs == nil:
			return nil, fmt.Errorf("%w: leg %d returned no result", ErrInternal, i)
		case len(rs.Rows) > s.gov.MaxLegRows:
			// The data system fetches one row more than the bound and
			// refuses; a result past it is refused all the same.
			return nil, s.legTooLarge()
		}
	}
	rs, err := s.cfg.Combiner.Combine(ctx, plan, rows)
	var re *domain.RefusalError
	switch {
	case err == nil, errors.As(err, &re), ctx.Err() != nil, errors.Is(err, domain.ErrZeroDenominator):
		return rs, err
	}
	return nil, fmt.Errorf("%w: the combine failed: %w", ErrInternal, err)
}

// legError is the error the question ends with when legs failed: the
// first, in leg order, that is not the cancellation another leg's failure
// caused; a leg over governance.max_leg_rows is result_too_large, saying
// so.
func (s *Surface) legError(ctx context.Context, errs []error) error {
	var cancelled error
	for _, err := range errs {
		switch {
		case err == nil:
			continue
		case ctx.Err() == nil && errors.Is(err, context.Canceled):
			if cancelled == nil {
				cancelled = err
			}
			continue
		}
		var re *domain.RefusalError
		if errors.As(err, &re) && re.Reason.Code() == domain.ResultTooLarge {
			return s.legTooLarge()
		}
		return err
	}
	return cancelled
}

// legTooLarge is the refusal of a leg that returned more rows than
// governance.max_leg_rows.
func (s *Surface) legTooLarge() error {
	return &domain.RefusalError{Reason: domain.Refuse(domain.ResultTooLarge,
		"a data system read for this question returned more than %d rows (governance.max_leg_rows); ask for a coarser grain, a shorter range, fewer dimensions or a filter", s.gov.MaxLegRows)}
}

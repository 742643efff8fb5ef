package app

import (
	"context"
	"errors"
	"fmt"

	"sutura.dev/app/budget"
	"sutura.dev/domain"
)

// Estimator is the optional ability of a data system to estimate, before
// anything runs, the bytes executing plan would scan (docs/contract.md
// §15). known is false when the system cannot tell; the scan ceiling then
// does not apply to the leg, and an error (other than the end of ctx) is
// taken as unknown too, since the estimate only guards the execution that
// follows. Estimate must stop its work when ctx is cancelled.
type Estimator interface {
	Estimate(ctx context.Context, plan *domain.Plan) (bytes int64, known bool, err error)
}

// Spend is the cost governance of docs/contract.md §15.
type Spend struct {
	// MaxScanBytes is governance.max_scan_bytes_per_question; zero is
	// budget.DefaultMaxScanBytes.
	MaxScanBytes int64
	// Budget is who may spend what per window (governance.budget,
	// governance.budget_by_audience); its zero value is no budget.
	Budget budget.Policy
	// Ledger keeps the budget (governance.budget_ledger); required when
	// Budget is enabled.
	Ledger budget.Ledger
}

// spending is a surface's Spend, checked.
type spending struct {
	maxScan int64
	meter   *budget.Meter
}

func newSpending(c Spend) (spending, error) {
	if c.MaxScanBytes == 0 {
		c.MaxScanBytes = budget.DefaultMaxScanBytes
	}
	if c.MaxScanBytes < 0 {
		return spending{}, errors.New("app: the scan ceiling must be positive")
	}
	m, err := budget.NewMeter(c.Budget, c.Ledger)
	if err != nil {
		return spending{}, fmt.Errorf("app: %w", err)
	}
	return spending{maxScan: c.MaxScanBytes, meter: m}, nil
}

// textLedgerUnavailable is the detail of a question refused because the
// budget ledger cannot be reached.
const textLedgerUnavailable = "the budget ledger cannot be reached now, and nothing is answered unmetered; ask again later"

// ledgerFailure is the failure of an error of the meter.
func ledgerFailure(err error) *Failure {
	f := classify(err)
	if f.Code == CodeUnavailable {
		f.Detail = textLedgerUnavailable
	}
	return f
}

// ledgerUnavailable is the failure of a ledger that cannot be reached now,
// for GET /ready; nil when it can, or no budget applies.
func (s *Surface) ledgerUnavailable(ctx context.Context) *Failure {
	if err := s.spend.meter.Ping(ctx); err != nil {
		return ledgerFailure(err)
	}
	return nil
}

// spendOn adds the cost governance to a question's work: in the slot and
// before execution, estimate every leg, refuse over the scan ceiling or
// the caller's budget, and answer a dry run with the estimate; after an
// answer, debit the caller's window. plan and srcs are those prepare
// resolves.
func (s *Surface) spendOn(caller Caller, q domain.Question, w *work, plan **domain.Plan, srcs *[]Source) {
	var est domain.Estimate
	w.gate = func(ctx context.Context) *Result {
		var err error
		est, err = s.estimate(ctx, *plan, *srcs)
		if err != nil {
			return &Result{Failure: ctxFailure(ctx, err)}
		}
		w.cost.EstimatedBytes, w.cost.EstimateKnown = est.Bytes, est.Known()
		w.rec.EstimatedBytes = &est.Bytes
		w.rec.BudgetAudience = s.spend.meter.Audience(caller.Principal)
		why := budget.Ceiling(est, s.spend.maxScan)
		if why == nil {
			if why, err = s.spend.meter.Admit(ctx, caller.Principal, est.Bytes, s.cfg.Now()); err != nil {
				return &Result{Failure: ledgerFailure(err)}
			}
		}
		switch {
		case q.DryRun:
			est.WouldRefuse = why
			return &Result{Estimate: &est}
		case why != nil:
			return &Result{Refusal: why}
		}
		return nil
	}
	w.settle = func(ctx context.Context, res *Result) {
		if res.Answer == nil || res.Failure != nil || res.Refusal != nil {
			return // refusals, failures and dry runs are not debited
		}
		bytes := est.Bytes
		if w.cost.Measured {
			bytes = w.cost.BytesRead
		}
		w.rec.BytesScanned = &bytes
		if err := s.spend.meter.Debit(context.WithoutCancel(ctx), caller.Principal, bytes, s.cfg.Now()); err != nil {
			*res = Result{Failure: ledgerFailure(err)}
		}
	}
}

// estimate asks each leg's data system what it would scan. A data system
// without the ability, or whose estimate fails, is unknown; only the end
// of ctx is an error.
func (s *Surface) estimate(ctx context.Context, plan *domain.Plan, srcs []Source) (domain.Estimate, error) {
	est := domain.Estimate{PerLeg: make([]domain.LegEstimate, 0, len(plan.Legs))}
	for i, leg := range plan.Legs {
		le := domain.LegEstimate{Source: leg.Source}
		// An impersonating source is estimated as its service identity:
		// the estimate is a number of bytes, never rows.
		if e, ok := srcs[i].System.(Estimator); ok {
			p := plan
			if plan.Federated() {
				p = plan.LegPlan(i, s.gov.MaxLegRows)
			}
			bytes, known, err := e.Estimate(ctx, p)
			if ctx.Err() != nil {
				return est, ctx.Err()
			}
			le.Bytes, le.Known = bytes, known && err == nil && bytes >= 0
			if !le.Known {
				le.Bytes = 0
			}
		}
		est.Bytes += le.Bytes
		est.PerLeg = append(est.PerLeg, le)
	}
	return est, nil
}

package compose

import (
	"context"
	"fmt"
	"maps"

	"sutura.dev/adapters/postgres"
	"sutura.dev/app"
	"sutura.dev/app/budget"
	"sutura.dev/cli/internal/config"
)

// newSpend builds the cost governance of docs/contract.md §15 from the
// configuration: the scan ceiling, the budgets and their ledger (the
// process's memory, or a table of a postgres source's database on a pool
// of its own). The returned function closes what it opened.
func newSpend(ctx context.Context, cfg *config.Config) (app.Spend, func(), error) {
	g := cfg.Governance
	sp := app.Spend{MaxScanBytes: g.MaxScanBytesPerQuestion}
	if cfg.BudgetSet() {
		sp.Budget.Default = &budget.Limits{Window: g.Budget.Window(), MaxBytes: g.Budget.MaxScannedBytes, MaxQuestions: g.Budget.MaxQuestions}
	}
	if len(g.BudgetByAudience) > 0 {
		sp.Budget.ByAudience = map[string]budget.Limits{}
		for id, b := range maps.All(g.BudgetByAudience) {
			sp.Budget.ByAudience[id] = budget.Limits{Window: b.Window(), MaxBytes: b.MaxScannedBytes, MaxQuestions: b.MaxQuestions}
		}
	}
	if !sp.Budget.Enabled() {
		return sp, func() {}, nil
	}
	if g.BudgetLedger != config.LedgerPostgres {
		sp.Ledger = budget.NewMemory()
		return sp, func() {}, nil
	}
	alias := g.BudgetLedgerSource
	src := cfg.Sources[alias]
	spec := sourceSpec{alias: alias, source: src, runtime: cfg.Runtime}
	l, err := postgres.NewLedger(ctx, postgresConfig(spec))
	if err != nil {
		return app.Spend{}, nil, fmt.Errorf("governance.budget_ledger_source: %w", err)
	}
	sp.Ledger = l
	return sp, l.Close, nil
}

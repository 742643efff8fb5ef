package config

import "time"

// Budget is one caller's spend per window (governance.budget and each
// governance.budget_by_audience.<audience>, docs/contract.md §15): every
// key is required once the section is set, and zero never means
// unlimited.
type Budget struct {
	// WindowSeconds is the length of a window (1..31622400, a leap year).
	WindowSeconds int64 `yaml:"window_seconds"`
	// MaxScannedBytes is the most bytes a caller may scan in a window.
	MaxScannedBytes int64 `yaml:"max_scanned_bytes"`
	// MaxQuestions is the most questions a caller may have answered in a
	// window.
	MaxQuestions int64 `yaml:"max_questions"`
}

// Window returns window_seconds as a duration.
func (b Budget) Window() time.Duration { return time.Duration(b.WindowSeconds) * time.Second }

// BudgetLedger is where budgets are kept.
type BudgetLedger string

// The ledgers.
const (
	// LedgerMemory keeps budgets in the process: lost on restart, one
	// window per replica.
	LedgerMemory BudgetLedger = "memory"
	// LedgerPostgres keeps them in a table of a postgres source's
	// database, shared by every replica and surviving restarts.
	LedgerPostgres BudgetLedger = "postgres"
)

// Bounds of the spend keys, so that no number means unlimited.
const (
	maxWindowSeconds = 366 * 86400
	maxBudgetBytes   = 1 << 62
	maxBudgetCount   = 1 << 40
)

// BudgetSet reports whether governance.budget was set by some layer.
func (c *Config) BudgetSet() bool { return c.budgetSet }

// spend checks the keys of docs/contract.md §15.
func (c *checker) spend() {
	g := c.cfg.Governance
	c.intRange("governance.max_scan_bytes_per_question", g.MaxScanBytesPerQuestion, 1, maxBudgetBytes)
	c.cfg.budgetSet = c.isSet("governance.budget")
	if c.cfg.budgetSet {
		c.budget("governance.budget", g.Budget)
	}
	for _, id := range sortedKeys(g.BudgetByAudience) {
		c.budget("governance.budget_by_audience."+id, g.BudgetByAudience[id])
	}
	if !oneOf(c, "governance.budget_ledger", g.BudgetLedger, false, LedgerMemory, LedgerPostgres) {
		return
	}
	switch {
	case g.BudgetLedger == LedgerMemory && g.BudgetLedgerSource != "":
		c.fail("governance.budget_ledger_source", "applies only with governance.budget_ledger: postgres ("+c.from("governance.budget_ledger")+")")
	case g.BudgetLedger == LedgerPostgres && g.BudgetLedgerSource == "":
		c.fail("governance.budget_ledger_source", "is required with governance.budget_ledger: postgres: the alias of a postgres source")
	case g.BudgetLedger == LedgerPostgres:
		if src, ok := c.cfg.Sources[g.BudgetLedgerSource]; !ok || src.Kind != KindPostgres {
			c.fail("governance.budget_ledger_source", "must name a configured source of kind postgres")
		}
	}
}

// budget checks one budget section at key: each of its keys positive and
// bounded.
func (c *checker) budget(key string, b Budget) {
	c.intRange(key+".window_seconds", b.WindowSeconds, 1, maxWindowSeconds)
	c.intRange(key+".max_scanned_bytes", b.MaxScannedBytes, 1, maxBudgetBytes)
	c.intRange(key+".max_questions", b.MaxQuestions, 1, maxBudgetCount)
}

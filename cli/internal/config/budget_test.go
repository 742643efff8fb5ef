package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestRefusedBudgetValues(t *testing.T) {
	full := "{window_seconds: 3600, max_scanned_bytes: 1000, max_questions: 10}"
	runRefusals(t, []refusalCase{
		{"zero questions", base("governance: {budget: {window_seconds: 3600, max_scanned_bytes: 1000, max_questions: 0}}"), nil,
			refusal{key: "governance.budget.max_questions", layer: "base.yaml", also: "between 1 and", value: "zz-none"}},
		{"negative bytes", nil, Env{"SUTURA__GOVERNANCE__BUDGET__MAX_SCANNED_BYTES": "-5"},
			refusal{key: "governance.budget.max_scanned_bytes", layer: "SUTURA__GOVERNANCE__BUDGET__MAX_SCANNED_BYTES", also: "between 1 and", value: "zz-none"}},
		{"a window left out", base("governance: {budget: {max_scanned_bytes: 1000, max_questions: 10}}"), nil,
			refusal{key: "governance.budget.window_seconds", layer: "base.yaml", also: "between 1 and", value: "zz-none"}},
		{"zero window of an audience", base("governance: {budget_by_audience: {finance: {window_seconds: 0, max_scanned_bytes: 1, max_questions: 1}}}"), nil,
			refusal{key: "governance.budget_by_audience.finance.window_seconds", layer: "base.yaml", value: "zz-none"}},
		{"zero scan ceiling", base("governance: {max_scan_bytes_per_question: 0, budget: " + full + "}"), nil,
			refusal{key: "governance.max_scan_bytes_per_question", layer: "base.yaml", value: "zz-none"}},
		{"unknown ledger", base("governance: {budget_ledger: " + planted + "}"), nil,
			refusal{key: "governance.budget_ledger", layer: "base.yaml", also: "memory, postgres"}},
		{"postgres ledger without a source", base("governance: {budget_ledger: postgres}"), nil,
			refusal{key: "governance.budget_ledger_source", layer: "defaults", also: "is required", value: "zz-none"}},
		{"postgres ledger on a missing source", base("governance: {budget_ledger: postgres, budget_ledger_source: " + planted + "}"), nil,
			refusal{key: "governance.budget_ledger_source", layer: "base.yaml", also: "kind postgres"}},
	})
}

func TestBudgetKeys(t *testing.T) {
	cfg, _ := mustLoad(t, base("governance: {budget: {window_seconds: 3600, max_scanned_bytes: 1000, max_questions: 10}, budget_by_audience: {finance: {window_seconds: 60, max_scanned_bytes: 5, max_questions: 1}}}"), nil)
	assert.True(t, cfg.BudgetSet())
	assert.Equal(t, time.Hour, cfg.Governance.Budget.Window())
	assert.Equal(t, int64(5), cfg.Governance.BudgetByAudience["finance"].MaxScannedBytes)
	assert.Equal(t, int64(1<<40), cfg.Governance.MaxScanBytesPerQuestion)
	assert.Equal(t, LedgerMemory, cfg.Governance.BudgetLedger)
	plain, _ := mustLoad(t, nil, nil)
	assert.False(t, plain.BudgetSet(), "no budget unless one is set")
}

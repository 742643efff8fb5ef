package httpapi

import (
	"github.com/prometheus/client_golang/prometheus"

	"sutura.dev/domain"
)

// spendMetrics are the per-audience counters of docs/contract.md §15. The
// audience label is the configured audience whose budget override a
// caller is held to ("default" otherwise): a closed set the operator
// wrote, never a caller value.
type spendMetrics struct {
	scanned         *prometheus.CounterVec
	budgetRefusals  *prometheus.CounterVec
	ceilingRefusals *prometheus.CounterVec
}

func newSpendMetrics() spendMetrics {
	return spendMetrics{
		scanned: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sutura_scanned_bytes_total",
			Help: "Bytes scanned by answered questions, as debited to budgets (realized, or the estimate where a data system reports none), by budget audience."}, []string{"audience"}),
		budgetRefusals: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sutura_budget_refusals_total",
			Help: "Questions refused budget_exhausted, by budget audience."}, []string{"audience"}),
		ceilingRefusals: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sutura_scan_ceiling_refusals_total",
			Help: "Questions refused scan_ceiling_exceeded, by budget audience."}, []string{"audience"}),
	}
}

// observe counts what one audited question spent or was refused for.
func (s spendMetrics) observe(rec domain.AuditRecord) {
	if rec.Capability != domain.AskMetric {
		return
	}
	audience := rec.BudgetAudience
	if audience == "" || domain.CheckIdent(audience) != nil {
		audience = "default"
	}
	switch {
	case rec.Outcome == "answer" && rec.BytesScanned != nil:
		s.scanned.WithLabelValues(audience).Add(float64(*rec.BytesScanned))
	case rec.Outcome == "refusal" && rec.Code == string(domain.BudgetExhausted):
		s.budgetRefusals.WithLabelValues(audience).Inc()
	case rec.Outcome == "refusal" && rec.Code == string(domain.ScanCeilingExceeded):
		s.ceilingRefusals.WithLabelValues(audience).Inc()
	}
}

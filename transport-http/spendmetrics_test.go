package httpapi

import (
	"context"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

type nullSink struct{}

func (nullSink) Write(context.Context, domain.AuditRecord) error { return nil }

func TestSpendCountersPerAudience(t *testing.T) {
	m, err := NewMetrics(MetricsConfig{})
	require.NoError(t, err)
	sink := m.Audit(nullSink{})
	n := func(v int64) *int64 { return &v }
	for _, rec := range []domain.AuditRecord{
		{Capability: domain.AskMetric, Outcome: "answer", BytesScanned: n(100)},
		{Capability: domain.AskMetric, Outcome: "answer", BytesScanned: n(50), BudgetAudience: "finance"},
		{Capability: domain.AskMetric, Outcome: "answer", BytesScanned: n(7), BudgetAudience: "finance"},
		{Capability: domain.AskMetric, Outcome: "refusal", Code: "budget_exhausted", BudgetAudience: "finance"},
		{Capability: domain.AskMetric, Outcome: "refusal", Code: "scan_ceiling_exceeded"},
		{Capability: domain.AskMetric, Outcome: "estimate"},
		{Capability: domain.AskMetric, Outcome: "refusal", Code: "budget_exhausted", BudgetAudience: "not an id"},
	} {
		require.NoError(t, sink.Write(context.Background(), rec))
	}
	rr := httptest.NewRecorder()
	m.handler().ServeHTTP(rr, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rr.Body)
	text := string(body)
	for _, want := range []string{
		`sutura_scanned_bytes_total{audience="default"} 100`,
		`sutura_scanned_bytes_total{audience="finance"} 57`,
		`sutura_budget_refusals_total{audience="finance"} 1`,
		`sutura_budget_refusals_total{audience="default"} 1`,
		`sutura_scan_ceiling_refusals_total{audience="default"} 1`,
		`sutura_outcomes_total{capability="ask_metric",code="",outcome="estimate"} 1`,
	} {
		assert.Contains(t, text, want)
	}
	assert.NotContains(t, text, "not an id")
}

func TestDryRunOverHTTP(t *testing.T) {
	sys := newFake()
	e := newEnv(t, sys, envConfig{})
	r := e.ask(t, qAnswer[:len(qAnswer)-1]+`,"dry_run":true}`, nil)
	require.Equal(t, 200, r.status, string(r.body))
	m := r.json(t)
	assert.Equal(t, "estimate", m["outcome"])
	assert.Nil(t, m["would_refuse"])
	assert.Contains(t, m, "estimate")
	assert.Zero(t, sys.Calls(), "a dry run executes nothing")
}

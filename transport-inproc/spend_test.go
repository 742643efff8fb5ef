package inproc

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/budget"
	"sutura.dev/domain"
)

// TestBudgetInProcess: the realized cost carries the bytes, a budget
// refusal carries its wait as a typed field, and a dry run is content.
func TestBudgetInProcess(t *testing.T) {
	limits := budget.Limits{Window: time.Hour, MaxBytes: 1 << 30, MaxQuestions: 1}
	e := newEnv(t, metered(newFake()), envConfig{spend: app.Spend{Budget: budget.Policy{Default: &limits}, Ledger: budget.NewMemory()}})
	ctx := context.Background()
	_, cost, err := e.conn.InvokeWithCost(ctx, string(domain.AskMetric), json.RawMessage(qAnswer))
	require.NoError(t, err)
	assert.Positive(t, cost.BytesRead)
	assert.False(t, cost.EstimateKnown, "the fake cannot estimate")

	var refusal *domain.Reason
	for rec, err := range e.conn.InvokeStream(ctx, string(domain.AskMetric), json.RawMessage(qAnswer)) {
		require.NoError(t, err)
		refusal = rec.Reason
	}
	require.NotNil(t, refusal)
	assert.Equal(t, domain.BudgetExhausted, refusal.Code())
	assert.Greater(t, refusal.RetryAfter(), 59*time.Minute, "one question per hour")

	b, err := e.conn.Invoke(ctx, string(domain.AskMetric), json.RawMessage(qAnswer[:len(qAnswer)-1]+`,"dry_run":true}`))
	require.NoError(t, err)
	var body map[string]any
	require.NoError(t, json.Unmarshal(b, &body))
	assert.Equal(t, "estimate", body["outcome"])
	assert.Equal(t, "budget_exhausted", body["would_refuse"])
	assert.Positive(t, body["reason"].(map[string]any)["retry_after_seconds"])
}

package mcpserver

import (
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/budget"
	"sutura.dev/domain"
)

func TestEstimateText(t *testing.T) {
	r := domain.Refuse(domain.BudgetExhausted, "spent").WithRetryAfter(30 * time.Second)
	tests := []struct {
		e    domain.Estimate
		want string
	}{
		{domain.Estimate{Bytes: 5, PerLeg: []domain.LegEstimate{{Source: "files", Bytes: 5, Known: true}, {Source: "pg"}}},
			"estimate: 5 bytes\nleg files: 5\nleg pg: unknown\nwould be answered\n"},
		{domain.Estimate{WouldRefuse: &r}, "estimate: 0 bytes\nwould be refused (budget_exhausted): spent\nretry_after_seconds: 30\n"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, outcomeText(domain.Outcome{Estimate: &tt.e}))
	}
}

// TestDryRunAndBudgetOverMCP: a dry run is structured content with the
// estimate outcome, and a budget refusal carries retry_after_seconds, in
// the structured content and the text, on both transports.
func TestDryRunAndBudgetOverMCP(t *testing.T) {
	transports(t, func(t *testing.T, connect func(*testing.T, *env) *mcp.ClientSession) {
		limits := budget.Limits{Window: time.Hour, MaxBytes: 1 << 30, MaxQuestions: 1}
		e := newEnv(t, newFake(), envConfig{spend: app.Spend{Budget: budget.Policy{Default: &limits}, Ledger: budget.NewMemory()}})
		cs := connect(t, e)
		q := map[string]any{"metrics": []string{"revenue"}, "grain": "month", "range": map[string]any{"start": "2025-01-01", "end": "2025-03-01"}}
		dry := map[string]any{"dry_run": true}
		for k, v := range q {
			dry[k] = v
		}
		res := call(t, cs, "ask_metric", dry)
		require.False(t, res.IsError, text(res))
		body := structured(t, res)
		assert.Equal(t, "estimate", body["outcome"])
		assert.Nil(t, body["would_refuse"])
		assert.Contains(t, text(res), "would be answered")

		res = call(t, cs, "ask_metric", q)
		require.False(t, res.IsError, text(res))
		assert.Equal(t, "answer", structured(t, res)["outcome"])

		res = call(t, cs, "ask_metric", q)
		require.False(t, res.IsError, text(res))
		body = structured(t, res)
		assert.Equal(t, "refusal", body["outcome"])
		reason := body["reason"].(map[string]any)
		assert.Equal(t, "budget_exhausted", reason["code"])
		assert.Positive(t, reason["retry_after_seconds"])
		assert.Contains(t, text(res), "retry_after_seconds: ")

		res = call(t, cs, "ask_metric", dry)
		assert.Equal(t, "budget_exhausted", structured(t, res)["would_refuse"])
	})
}

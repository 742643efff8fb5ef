package mcpserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

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

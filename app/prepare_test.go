package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/app/budget"
	"sutura.dev/domain"
)

// preparing is a data system that records the plans it is readied for,
// and whether each call had a deadline.
type preparing struct {
	*apptest.System
	plans     [][]*domain.Plan
	deadlines []bool
}

func (p *preparing) Prepare(ctx context.Context, plans []*domain.Plan) {
	p.plans = append(p.plans, plans)
	_, ok := ctx.Deadline()
	p.deadlines = append(p.deadlines, ok)
}

// TestPrepareHandsTheAnchorsAndTheQuestion: Surface.Prepare gives a data
// system that can prepare, in one call, the plan of every anchor on it and
// the plan of the question as its caller would have it compiled; a
// question Answer refuses, or asked for its estimate, adds none, and so
// does no question. Only a call with the question has the request
// timeout.
func TestPrepareHandsTheAnchorsAndTheQuestion(t *testing.T) {
	sys := &preparing{System: &apptest.System{}}
	s, _, _ := newSurface(t, sys, 1, 5*time.Second)
	ctx := context.Background()

	q := question(t, `{"metrics":["revenue"],"grain":"month","range":{"start":"2025-03-01","end":"2025-05-01"},"dimensions":["city"]}`)
	s.Prepare(ctx, anon, &q)
	require.Len(t, sys.plans, 1, "one call")
	require.Len(t, sys.plans[0], 2, "the anchor and the question")
	assert.Equal(t, []bool{true}, sys.deadlines, "with the question, under the request timeout")
	anchor, qp := sys.plans[0][0], sys.plans[0][1]
	assert.Equal(t, domain.Year, anchor.Grain, "the anchor at its coarsest grain")
	assert.Equal(t, domain.Range{Start: domain.DateOf(2025, 1, 1), End: domain.DateOf(2026, 1, 1)}, anchor.Range)
	assert.Empty(t, anchor.Legs[0].Dimensions)
	assert.Equal(t, domain.Month, qp.Grain)
	assert.Equal(t, domain.Range{Start: domain.DateOf(2025, 3, 1), End: domain.DateOf(2025, 5, 1)}, qp.Range)
	require.Len(t, qp.Legs[0].Dimensions, 1)
	assert.Equal(t, "city", qp.Legs[0].Dimensions[0].Name)

	for _, js := range []string{
		`{"metrics":["secret_revenue"],"grain":"month","range":{"start":"2025-03-01","end":"2025-05-01"}}`, // not in anon's audience
		`{"metrics":["revenue"],"grain":"month","range":{"start":"2025-03-01","end":"2025-05-01"},"dry_run":true}`,
	} {
		sys.plans = nil
		q := question(t, js)
		s.Prepare(ctx, anon, &q)
		require.Len(t, sys.plans, 1)
		assert.Len(t, sys.plans[0], 1, "the anchor alone: %s", js)
	}

	// A serving process has no question: the anchors alone, unbounded.
	sys.plans, sys.deadlines = nil, nil
	s.Prepare(ctx, anon, nil)
	require.Len(t, sys.plans, 1)
	assert.Len(t, sys.plans[0], 1)
	assert.Equal(t, []bool{false}, sys.deadlines, "the anchors alone are not bounded")
}

// preparingEstimated is an estimating data system that records the plans
// it is readied for.
type preparingEstimated struct {
	*estimated
	plans [][]*domain.Plan
}

func (p *preparingEstimated) Prepare(_ context.Context, plans []*domain.Plan) {
	p.plans = append(p.plans, plans)
}

// TestPrepareLeavesGovernedQuestionsToAnswer: a question Answer could
// refuse before executing it — its estimate over the scan ceiling, or a
// budget that applies to its caller — is not handed to Prepare: the data
// system is readied for the anchor alone, and Answer governs the question
// as before.
func TestPrepareLeavesGovernedQuestionsToAnswer(t *testing.T) {
	ctx := context.Background()
	const q = `{"metrics":["revenue"],"grain":"month","range":{"start":"2025-03-01","end":"2025-05-01"}}`
	limits := budget.Limits{Window: time.Minute, MaxBytes: 1 << 40, MaxQuestions: 10}
	for _, tt := range []struct {
		name  string
		bytes int64
		spend app.Spend
		plans int
	}{
		{"within the ceiling, no budget", 1000, app.Spend{MaxScanBytes: 1000}, 2},
		{"over the ceiling", 1001, app.Spend{MaxScanBytes: 1000}, 1},
		{"a budget applies", 10, app.Spend{Budget: budget.Policy{Default: &limits}, Ledger: budget.NewMemory()}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sys := &preparingEstimated{estimated: newEstimated(tt.bytes, 7, true)}
			s, _, _ := newSurface(t, sys, 1, 5*time.Second, withSpend(tt.spend))
			question := question(t, q)
			s.Prepare(ctx, anon, &question)
			require.Len(t, sys.plans, 1)
			assert.Len(t, sys.plans[0], tt.plans)
		})
	}
}

// TestPrepareBundleHandsTheNewAnchors: a refresh readies the sources it
// opened for the new bundle with that bundle's anchors, as CheckBundle
// runs them, and never the sources in force.
func TestPrepareBundleHandsTheNewAnchors(t *testing.T) {
	inForce := &preparing{System: &apptest.System{}}
	s, _, _ := newSurface(t, inForce, 1, 5*time.Second)
	opened := &preparing{System: &apptest.System{}}
	b := apptest.Bundle(t, "v2")
	s.PrepareBundle(context.Background(), b, apptest.Sources(opened))
	assert.Empty(t, inForce.plans, "the sources in force are not readied")
	require.Len(t, opened.plans, 1, "one call")
	require.Len(t, opened.plans[0], len(app.AnchoredMetrics(b)), "every anchor of the new bundle")
	anchor := opened.plans[0][0]
	assert.Equal(t, domain.Year, anchor.Grain, "the anchor at its coarsest grain")
	assert.Empty(t, anchor.Legs[0].Dimensions)
	assert.Equal(t, []bool{false}, opened.deadlines, "anchors are not bounded")
}

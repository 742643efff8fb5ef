package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/app/budget"
	"sutura.dev/domain"
)

// estimated is a metered data system that estimates every plan at bytes
// (unknown when known is false) and reports read bytes as realized.
type estimated struct {
	apptest.Metered
	bytes, read int64
	known       bool
	estimates   int
}

func (e *estimated) Estimate(context.Context, *domain.Plan) (int64, bool, error) {
	e.estimates++
	return e.bytes, e.known, nil
}

func newEstimated(bytes, read int64, known bool) *estimated {
	rows := [][]domain.Cell{{domain.DateCell(domain.DateOf(2025, 1, 1)), domain.Int(42)}}
	sys := &apptest.System{Rows: rows}
	e := &estimated{bytes: bytes, read: read, known: known}
	e.Metered = apptest.Metered{System: sys, Cost: func(*domain.RowSet, error) domain.Cost { return domain.Cost{BytesRead: e.read} }}
	return e
}

const yearQ = `{"metrics":["revenue"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}`

func withSpend(sp app.Spend) func(*app.Config) { return func(c *app.Config) { c.Spend = sp } }

func TestScanCeiling(t *testing.T) {
	tests := []struct {
		name     string
		bytes    int64
		known    bool
		refused  bool
		executed bool
	}{
		{"under the ceiling runs", 1000, true, false, true},
		{"over the ceiling is refused before execution", 1001, true, true, false},
		{"unknown is not bound", 1 << 50, false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sys := newEstimated(tt.bytes, 7, tt.known)
			s, audit, _ := newSurface(t, sys, 1, 5*time.Second, withSpend(app.Spend{MaxScanBytes: 1000}))
			out, cost, err := s.AnswerWithCost(context.Background(), anon, question(t, yearQ+`}`))
			require.NoError(t, err)
			assert.Equal(t, tt.executed, sys.Calls() == 1)
			recs := audit.Records()
			require.Len(t, recs, 1)
			if tt.refused {
				require.NotNil(t, out.Refusal)
				assert.Equal(t, domain.ScanCeilingExceeded, out.Refusal.Code())
				assert.Contains(t, out.Refusal.Detail(), fmt.Sprintf("%d bytes", tt.bytes))
				assert.Contains(t, out.Refusal.Detail(), "1000 bytes")
				assert.Equal(t, "scan_ceiling_exceeded", recs[0].Code)
				assert.Equal(t, 413, out.Refusal.Status())
				return
			}
			require.NotNil(t, out.Answer)
			assert.Equal(t, tt.known, cost.EstimateKnown)
			if tt.known {
				assert.Equal(t, tt.bytes, cost.EstimatedBytes)
				assert.Equal(t, tt.bytes, *recs[0].EstimatedBytes)
			}
			require.NotNil(t, recs[0].BytesScanned)
			assert.Equal(t, int64(7), *recs[0].BytesScanned, "the realized bytes are recorded")
		})
	}
}

func TestDefaultCeilingIsOneTebibyte(t *testing.T) {
	sys := newEstimated(1<<40+1, 0, true)
	s, _, _ := newSurface(t, sys, 1, 5*time.Second)
	out, err := s.Answer(context.Background(), anon, question(t, yearQ+`}`))
	require.NoError(t, err)
	require.NotNil(t, out.Refusal)
	assert.Equal(t, domain.ScanCeilingExceeded, out.Refusal.Code())
}

// fixedClock is a clock the test moves.
type fixedClock struct{ now time.Time }

func (c *fixedClock) Now() time.Time { return c.now }

func TestBudget(t *testing.T) {
	clock := &fixedClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	sys := newEstimated(40, 30, true)
	limits := budget.Limits{Window: time.Minute, MaxBytes: 100, MaxQuestions: 10}
	s, audit, _ := newSurface(t, sys, 1, 5*time.Second, withSpend(app.Spend{Budget: budget.Policy{Default: &limits}, Ledger: budget.NewMemory()}),
		func(c *app.Config) { c.Now = clock.Now })
	ask := func(js string) domain.Outcome {
		out, err := s.Answer(context.Background(), anon, question(t, js))
		require.NoError(t, err)
		return out
	}
	// Realized bytes are debited (30 each): 30, 60, 90; a fourth question
	// estimated at 40 would overdraw the 10 left.
	for range 3 {
		require.NotNil(t, ask(yearQ+`}`).Answer)
		clock.now = clock.now.Add(time.Second)
	}
	out := ask(yearQ + `}`)
	require.NotNil(t, out.Refusal)
	assert.Equal(t, domain.BudgetExhausted, out.Refusal.Code())
	assert.Equal(t, 57*time.Second, out.Refusal.RetryAfter(), "the window opened at the first debit")
	assert.Equal(t, 3, sys.Calls(), "refused before execution")
	assert.Equal(t, "budget_exhausted", audit.Records()[3].Code)

	// A dry run says it would be refused, executes and debits nothing.
	dry := ask(yearQ + `,"dry_run":true}`)
	require.NotNil(t, dry.Estimate)
	require.NotNil(t, dry.Estimate.WouldRefuse)
	assert.Equal(t, domain.BudgetExhausted, dry.Estimate.WouldRefuse.Code())
	assert.Equal(t, int64(40), dry.Estimate.Bytes)
	assert.Equal(t, "estimate", audit.Records()[4].Outcome)
	assert.Equal(t, 3, sys.Calls())

	// A clock stepped back refunds nothing; the window's end does.
	clock.now = clock.now.Add(-time.Hour)
	require.NotNil(t, ask(yearQ+`}`).Refusal)
	clock.now = time.Date(2026, 3, 1, 12, 1, 0, 0, time.UTC)
	require.NotNil(t, ask(yearQ+`}`).Answer)
}

func TestFailuresAreNotDebited(t *testing.T) {
	sys := newEstimated(10, 10, true)
	sys.Err = fmt.Errorf("%w: connection refused", domain.ErrUnavailable)
	ledger := budget.NewMemory()
	limits := budget.Limits{Window: time.Minute, MaxBytes: 100, MaxQuestions: 10}
	s, _, _ := newSurface(t, sys, 1, 5*time.Second, withSpend(app.Spend{Budget: budget.Policy{Default: &limits}, Ledger: ledger}))
	_, err := s.Answer(context.Background(), anon, question(t, yearQ+`}`))
	require.Error(t, err)
	_, bytes, questions, err := ledger.Spent(context.Background(), anon.Principal.Subject, time.Now(), time.Minute)
	require.NoError(t, err)
	assert.Zero(t, bytes)
	assert.Zero(t, questions)
}

// downLedger cannot be reached.
type downLedger struct{}

func (downLedger) Spent(context.Context, string, time.Time, time.Duration) (time.Time, int64, int64, error) {
	return time.Time{}, 0, 0, fmt.Errorf("%w: connection refused", domain.ErrUnavailable)
}

func (downLedger) Debit(context.Context, string, time.Time, time.Duration, int64) error {
	return fmt.Errorf("%w: connection refused", domain.ErrUnavailable)
}

func (downLedger) Ping(context.Context) error {
	return fmt.Errorf("%w: connection refused", domain.ErrUnavailable)
}

func TestLedgerUnreachableFailsClosed(t *testing.T) {
	sys := newEstimated(10, 10, true)
	limits := budget.Limits{Window: time.Minute, MaxBytes: 100, MaxQuestions: 10}
	s, audit, _ := newSurface(t, sys, 1, 5*time.Second, withSpend(app.Spend{Budget: budget.Policy{Default: &limits}, Ledger: downLedger{}}))
	res := s.Call(context.Background(), anon, domain.AskMetric, json.RawMessage(yearQ+`}`))
	require.NotNil(t, res.Failure)
	assert.Equal(t, app.CodeUnavailable, res.Failure.Code)
	assert.Contains(t, res.Failure.Detail, "budget ledger")
	assert.Zero(t, sys.Calls(), "never answered unmetered")
	assert.Equal(t, "failure", audit.Records()[0].Outcome)
	assert.Error(t, s.Ready(context.Background()), "/ready says so")
}

func TestDryRunWithoutBudget(t *testing.T) {
	sys := newEstimated(10, 10, false)
	s, _, _ := newSurface(t, sys, 1, 5*time.Second)
	res := s.Call(context.Background(), anon, domain.AskMetric, json.RawMessage(yearQ+`,"dry_run":true}`))
	require.Nil(t, res.Failure)
	require.NotNil(t, res.Estimate)
	assert.Nil(t, res.Estimate.WouldRefuse)
	assert.Equal(t, []domain.LegEstimate{{Source: "files"}}, res.Estimate.PerLeg)
	b, err := res.Outcome().MarshalJSON()
	require.NoError(t, err)
	assert.JSONEq(t, `{"outcome":"estimate","estimate":{"bytes":0,"per_leg":[{"source":"files","bytes":"unknown"}]},"would_refuse":null}`, string(b))
	assert.Zero(t, sys.Calls())
	// A dry run of a question the compiler refuses is that refusal.
	res = s.Call(context.Background(), anon, domain.AskMetric, json.RawMessage(`{"metrics":["nope"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"},"dry_run":true}`))
	require.NotNil(t, res.Refusal)
	assert.Equal(t, domain.MetricUnknown, res.Refusal.Code())
}

// legEstimator estimates every leg plan at bytes, recording the plans.
type legEstimator struct {
	*apptest.System
	bytes int64
	known bool
	plans []*domain.Plan
}

func (l *legEstimator) Estimate(_ context.Context, p *domain.Plan) (int64, bool, error) {
	l.plans = append(l.plans, p)
	return l.bytes, l.known, nil
}

// TestFederatedEstimateSumsItsLegs: each leg is estimated on its own data
// system with its own leg plan; the ceiling applies to the known sum.
func TestFederatedEstimateSumsItsLegs(t *testing.T) {
	sales := &legEstimator{System: &apptest.System{}, bytes: 700, known: true}
	shops := &legEstimator{System: &apptest.System{}, bytes: 200, known: true}
	geo := &legEstimator{System: &apptest.System{}}
	s, _, _ := federated(t, sales, shops, geo, &combiner{}, withSpend(app.Spend{MaxScanBytes: 899}))
	res := s.Call(context.Background(), anon, domain.AskMetric, json.RawMessage(byZone[:len(byZone)-1]+`,"dry_run":true}`))
	require.Nil(t, res.Failure)
	require.NotNil(t, res.Estimate)
	assert.Equal(t, int64(900), res.Estimate.Bytes)
	assert.Equal(t, []domain.LegEstimate{{Source: "files", Bytes: 700, Known: true}, {Source: "shops", Bytes: 200, Known: true}, {Source: "geo"}}, res.Estimate.PerLeg)
	require.NotNil(t, res.Estimate.WouldRefuse)
	assert.Equal(t, domain.ScanCeilingExceeded, res.Estimate.WouldRefuse.Code())
	require.Len(t, sales.plans, 1)
	assert.Len(t, sales.plans[0].Legs, 1, "each data system estimates its own leg")
	assert.Zero(t, sales.Calls()+shops.Calls()+geo.Calls(), "nothing ran")
}

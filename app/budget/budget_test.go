package budget_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app/budget"
	"sutura.dev/domain"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestCeiling(t *testing.T) {
	tests := []struct {
		name string
		e    domain.Estimate
		max  int64
		want bool
	}{
		{"under", domain.Estimate{Bytes: 10}, 10, false},
		{"over", domain.Estimate{Bytes: 11}, 10, true},
		{"unknown legs are not bound", domain.Estimate{PerLeg: []domain.LegEstimate{{Source: "pg"}}}, 10, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := budget.Ceiling(tt.e, tt.max)
			if !tt.want {
				assert.Nil(t, r)
				return
			}
			require.NotNil(t, r)
			assert.Equal(t, domain.ScanCeilingExceeded, r.Code())
			assert.Contains(t, r.Detail(), "11 bytes")
			assert.Contains(t, r.Detail(), "ceiling of 10 bytes")
		})
	}
}

func TestPolicyFor(t *testing.T) {
	p := budget.Policy{
		Default:    &budget.Limits{Window: time.Hour, MaxBytes: 100, MaxQuestions: 10},
		ByAudience: map[string]budget.Limits{"finance": {Window: time.Hour, MaxBytes: 1000, MaxQuestions: 5}, "ops": {Window: time.Hour, MaxBytes: 500, MaxQuestions: 50}},
	}
	tests := []struct {
		audiences []string
		bytes     int64
		audience  string
	}{
		{nil, 100, ""},
		{[]string{"other"}, 100, ""},
		{[]string{"ops"}, 500, "ops"},
		{[]string{"ops", "finance"}, 1000, "finance"},
	}
	for _, tt := range tests {
		l, a, ok := p.For(domain.Principal{Subject: "s", Audiences: tt.audiences})
		require.True(t, ok)
		assert.Equal(t, tt.bytes, l.MaxBytes, tt.audiences)
		assert.Equal(t, tt.audience, a)
	}
	_, _, ok := budget.Policy{}.For(domain.LocalOperator)
	assert.False(t, ok)
}

func TestPolicyRefusesZero(t *testing.T) {
	for _, l := range []budget.Limits{{0, 1, 1}, {time.Second, 0, 1}, {time.Second, 1, -1}} {
		_, err := budget.NewMeter(budget.Policy{Default: &l}, budget.NewMemory())
		assert.Error(t, err, l)
		_, err = budget.NewMeter(budget.Policy{ByAudience: map[string]budget.Limits{"a": l}}, budget.NewMemory())
		assert.Error(t, err, l)
	}
	_, err := budget.NewMeter(budget.Policy{Default: &budget.Limits{time.Second, 1, 1}}, nil)
	assert.Error(t, err)
}

func TestMeterWindow(t *testing.T) {
	ctx := context.Background()
	m, err := budget.NewMeter(budget.Policy{Default: &budget.Limits{Window: time.Minute, MaxBytes: 100, MaxQuestions: 3}}, budget.NewMemory())
	require.NoError(t, err)
	p := domain.Principal{Subject: "alice"}
	admit := func(bytes int64, now time.Time) *domain.Reason {
		r, err := m.Admit(ctx, p, bytes, now)
		require.NoError(t, err)
		return r
	}
	require.Nil(t, admit(60, t0))
	require.NoError(t, m.Debit(ctx, p, 60, t0))
	require.Nil(t, admit(40, t0.Add(time.Second)), "exactly the remainder fits")
	r := admit(41, t0.Add(10*time.Second))
	require.NotNil(t, r, "41 bytes would overdraw the 40 left")
	assert.Equal(t, domain.BudgetExhausted, r.Code())
	assert.Equal(t, 50*time.Second, r.RetryAfter(), "until the window that opened at t0 ends")
	other, err := m.Admit(ctx, domain.Principal{Subject: "bob"}, 100, t0.Add(10*time.Second))
	require.NoError(t, err)
	assert.Nil(t, other, "another caller's window is not this one")

	// Questions are counted too.
	require.NoError(t, m.Debit(ctx, p, 0, t0.Add(2*time.Second)))
	require.NoError(t, m.Debit(ctx, p, 0, t0.Add(3*time.Second)))
	assert.NotNil(t, admit(0, t0.Add(4*time.Second)), "three questions answered")

	// A clock stepped back never refunds; the window's end renews it.
	assert.NotNil(t, admit(0, t0.Add(-time.Hour)))
	assert.Nil(t, admit(100, t0.Add(time.Minute)))
}

type downLedger struct{}

func (downLedger) Spent(context.Context, string, time.Time, time.Duration) (time.Time, int64, int64, error) {
	return time.Time{}, 0, 0, fmt.Errorf("%w: connection refused", domain.ErrUnavailable)
}

func (downLedger) Debit(context.Context, string, time.Time, time.Duration, int64) error {
	return fmt.Errorf("%w: connection refused", domain.ErrUnavailable)
}

func (downLedger) Ping(context.Context) error { return domain.ErrUnavailable }

func TestLedgerDownFailsClosed(t *testing.T) {
	ctx := context.Background()
	m, err := budget.NewMeter(budget.Policy{Default: &budget.Limits{Window: time.Minute, MaxBytes: 100, MaxQuestions: 3}}, downLedger{})
	require.NoError(t, err)
	_, err = m.Admit(ctx, domain.LocalOperator, 1, t0)
	assert.True(t, errors.Is(err, domain.ErrUnavailable))
	assert.ErrorIs(t, m.Debit(ctx, domain.LocalOperator, 1, t0), domain.ErrUnavailable)
	assert.ErrorIs(t, m.Ping(ctx), domain.ErrUnavailable)
	off, err := budget.NewMeter(budget.Policy{}, downLedger{})
	require.NoError(t, err)
	assert.NoError(t, off.Ping(ctx), "no budget, no ledger to reach")
}

func TestQuestionLargerThanTheWindow(t *testing.T) {
	m, err := budget.NewMeter(budget.Policy{Default: &budget.Limits{Window: time.Minute, MaxBytes: 100, MaxQuestions: 3}}, budget.NewMemory())
	require.NoError(t, err)
	r, err := m.Admit(context.Background(), domain.Principal{Subject: "a"}, 101, t0)
	require.NoError(t, err)
	require.NotNil(t, r)
	assert.Equal(t, domain.BudgetExhausted, r.Code())
	assert.Contains(t, r.Detail(), "more than the 100 bytes a caller may scan")
	assert.Equal(t, time.Minute, r.RetryAfter())
}

func TestMemoryForgetsEndedWindows(t *testing.T) {
	ctx := context.Background()
	m := budget.NewMemory()
	for i := range 5000 {
		require.NoError(t, m.Debit(ctx, fmt.Sprint("caller-", i), t0, time.Minute, 1))
	}
	assert.Equal(t, 5000, m.Len())
	require.NoError(t, m.Debit(ctx, "late", t0.Add(time.Hour), time.Minute, 1))
	assert.Equal(t, 1, m.Len(), "every other window had ended")
	require.NoError(t, m.Debit(ctx, "later", t0.Add(time.Hour+time.Second), time.Minute, 1))
	assert.Equal(t, 2, m.Len(), "a window still open is kept")
}

package budget

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"sutura.dev/domain"
)

// DefaultMaxScanBytes is governance.max_scan_bytes_per_question when the
// configuration leaves it out: 1 TiB.
const DefaultMaxScanBytes int64 = 1 << 40

// Limits is one caller's budget (governance.budget): at most MaxBytes
// scanned and MaxQuestions answered in each window of Window.
type Limits struct {
	Window       time.Duration
	MaxBytes     int64
	MaxQuestions int64
}

// Valid is nil when every field is positive; zero never means unlimited.
func (l Limits) Valid() error {
	if l.Window <= 0 || l.MaxBytes <= 0 || l.MaxQuestions <= 0 {
		return errors.New("budget: window, bytes and questions must each be positive")
	}
	return nil
}

// Policy is who gets which budget: Default for every caller, unless one of
// the caller's audiences has an override in ByAudience. Without a Default
// and without overrides no budget applies.
type Policy struct {
	Default    *Limits
	ByAudience map[string]Limits
}

// Enabled reports whether any caller has a budget.
func (p Policy) Enabled() bool { return p.Default != nil || len(p.ByAudience) > 0 }

// Valid is nil when every limit of p is.
func (p Policy) Valid() error {
	if p.Default != nil {
		if err := p.Default.Valid(); err != nil {
			return err
		}
	}
	for _, id := range slices.Sorted(maps.Keys(p.ByAudience)) {
		if err := p.ByAudience[id].Valid(); err != nil {
			return fmt.Errorf("audience %s: %w", id, err)
		}
	}
	return nil
}

// For returns the limits of principal and the audience whose override
// chose them ("" for the default): among the principal's audiences with
// an override, the one allowing the most bytes (ties: the first id in
// order), since an audience grants; else the default. ok is false when no
// budget applies to principal.
func (p Policy) For(principal domain.Principal) (l Limits, audience string, ok bool) {
	ids := slices.Clone(principal.Audiences)
	slices.Sort(ids)
	for _, id := range ids {
		o, has := p.ByAudience[id]
		if has && (!ok || o.MaxBytes > l.MaxBytes) {
			l, audience, ok = o, id, true
		}
	}
	if ok {
		return l, audience, true
	}
	if p.Default != nil {
		return *p.Default, "", true
	}
	return Limits{}, "", false
}

// Ledger keeps what each caller spent in its current window, for every
// replica that shares it. A window opens at the first debit after the
// previous one ended and lasts its length; a clock that stepped back
// (now before the window's start) stays in the current window, so it never
// refunds one. Errors wrap domain.ErrUnavailable when the ledger cannot
// be reached: the pipeline then refuses to answer unmetered.
type Ledger interface {
	// Spent returns key's window as it stands at now: its start, and the
	// bytes and questions debited in it. A window that ended before now
	// is reported empty, starting at now.
	Spent(ctx context.Context, key string, now time.Time, window time.Duration) (start time.Time, bytes, questions int64, err error)
	// Debit adds bytes and one question to key's window at now, in one
	// atomic step, opening a new window at now when the current one ended.
	Debit(ctx context.Context, key string, now time.Time, window time.Duration, bytes int64) error
}

// Pinger is the optional ability of a ledger to say whether it can be
// reached now; GET /ready reports it.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Ceiling is the refusal scan_ceiling_exceeded of an estimate over max
// bytes, or nil. Only the legs whose estimate is known are summed: a data
// system that cannot estimate is not bound by the ceiling.
func Ceiling(e domain.Estimate, max int64) *domain.Reason {
	if e.Bytes <= max {
		return nil
	}
	r := domain.Refuse(domain.ScanCeilingExceeded,
		"this question is estimated to scan %d bytes, more than the ceiling of %d bytes per question (governance.max_scan_bytes_per_question); ask for a shorter range, a coarser grain or a filter",
		e.Bytes, max)
	return &r
}

// Meter checks callers' budgets against the ledger before a question runs
// and debits them after it is answered.
type Meter struct {
	policy Policy
	ledger Ledger
}

// NewMeter returns the meter of policy over ledger. It fails for an
// invalid policy, and for a policy that is enabled without a ledger.
func NewMeter(policy Policy, ledger Ledger) (*Meter, error) {
	if err := policy.Valid(); err != nil {
		return nil, err
	}
	if policy.Enabled() && ledger == nil {
		return nil, errors.New("budget: a budget needs a ledger")
	}
	return &Meter{policy: policy, ledger: ledger}, nil
}

// Audience is the audience whose budget principal is held to ("" for the
// default budget, or when none applies): a metrics label of bounded
// cardinality.
func (m *Meter) Audience(principal domain.Principal) string {
	_, a, _ := m.policy.For(principal)
	return a
}

// Applies reports whether a budget holds principal's questions.
func (m *Meter) Applies(principal domain.Principal) bool {
	_, _, ok := m.policy.For(principal)
	return ok
}

// Admit is the refusal budget_exhausted, with the time until the window
// renews, when answering principal's question estimated at bytes would
// overdraw its window (one more question, or bytes more than remain); nil
// when it fits or no budget applies. The error is the ledger's.
func (m *Meter) Admit(ctx context.Context, principal domain.Principal, bytes int64, now time.Time) (*domain.Reason, error) {
	l, _, ok := m.policy.For(principal)
	if !ok {
		return nil, nil
	}
	start, spent, questions, err := m.ledger.Spent(ctx, principal.Subject, now, l.Window)
	if err != nil {
		return nil, ledgerError(err)
	}
	if questions+1 <= l.MaxQuestions && spent+bytes <= l.MaxBytes {
		return nil, nil
	}
	// A window another replica opened after this one read its clock may
	// end a little more than a window from now; the wait is never said to
	// be longer than a window.
	retry := min(start.Add(l.Window).Sub(now), l.Window)
	if retry <= 0 {
		retry = time.Second
	}
	if bytes > l.MaxBytes {
		// No wait makes it fit: say so rather than only when to come back.
		r := domain.Refuse(domain.BudgetExhausted,
			"this question is estimated at %d bytes, more than the %d bytes a caller may scan in a window of %d seconds; ask for less (a shorter range, a coarser grain, a filter)",
			bytes, l.MaxBytes, int64(l.Window/time.Second)).WithRetryAfter(retry)
		return &r, nil
	}
	r := domain.Refuse(domain.BudgetExhausted,
		"this caller's budget for the window of %d seconds would be overdrawn: %d of %d questions and %d of %d bytes are spent, and this question is estimated at %d bytes; the window renews in %d seconds",
		int64(l.Window/time.Second), questions, l.MaxQuestions, spent, l.MaxBytes, bytes, int64((retry+time.Second-1)/time.Second)).WithRetryAfter(retry)
	return &r, nil
}

// Debit charges principal's window with bytes and one question; nothing
// when no budget applies.
func (m *Meter) Debit(ctx context.Context, principal domain.Principal, bytes int64, now time.Time) error {
	l, _, ok := m.policy.For(principal)
	if !ok {
		return nil
	}
	if err := m.ledger.Debit(ctx, principal.Subject, now, l.Window, bytes); err != nil {
		return ledgerError(err)
	}
	return nil
}

// Ping is nil when no budget applies or the ledger can be reached (or
// cannot tell).
func (m *Meter) Ping(ctx context.Context) error {
	if !m.policy.Enabled() {
		return nil
	}
	if p, ok := m.ledger.(Pinger); ok {
		if err := p.Ping(ctx); err != nil {
			return ledgerError(err)
		}
	}
	return nil
}

// ErrLedger marks every error of the ledger; the pipeline tells the caller
// the budget cannot be checked, never answers unmetered.
var ErrLedger = errors.New("the budget ledger cannot be reached")

// ledgerError wraps an error of the ledger in ErrLedger and, unless it is
// the end of the caller's context, in domain.ErrUnavailable: a ledger that
// cannot be reached fails closed.
func ledgerError(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, domain.ErrUnavailable) {
		return fmt.Errorf("%w: %w", ErrLedger, err)
	}
	return fmt.Errorf("%w: %w: %w", ErrLedger, domain.ErrUnavailable, err)
}

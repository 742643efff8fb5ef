package kernel

import (
	"context"
	"sync"
)

// Reservation is one query's share of the working set, returned when the
// query ends.
type Reservation struct {
	Budget Budget
	// Ctx, when set, lets Grow wait (until it ends) for memory other
	// queries hold and will give back; nil never waits.
	Ctx  context.Context
	mu   sync.Mutex
	n    int64
	Peak int64
}

// Grow takes n more bytes from the budget, failing when they do not fit
// (after waiting for them, when the budget can and r.Ctx is set).
func (r *Reservation) Grow(n int64) error { return r.grow(true, n) }

// TryGrow is Grow without waiting: a caller that can spill instead tries
// this first.
func (r *Reservation) TryGrow(n int64) error { return r.grow(false, n) }

func (r *Reservation) grow(wait bool, n int64) error {
	if n <= 0 {
		return nil
	}
	var ctx context.Context
	if wait {
		r.mu.Lock()
		ctx = r.Ctx
		r.mu.Unlock()
	}
	if err := r.Budget.Reserve(ctx, r, n); err != nil {
		return err
	}
	r.mu.Lock()
	r.n += n
	r.Peak = max(r.Peak, r.n)
	r.mu.Unlock()
	return nil
}

// within makes Grow's waits end with ctx too (a scan's group context,
// cancelled when one of its workers fails, so that the others stop
// waiting); the returned func restores the context before.
func (r *Reservation) within(ctx context.Context) func() {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.Ctx
	if old == nil {
		return func() {}
	}
	r.Ctx = ctx
	return func() {
		r.mu.Lock()
		r.Ctx = old
		r.mu.Unlock()
	}
}

// Shrink gives back n of the bytes the reservation took.
func (r *Reservation) Shrink(n int64) {
	r.mu.Lock()
	n = min(n, r.n)
	r.n -= n
	r.mu.Unlock()
	if n > 0 {
		r.Budget.Release(n)
	}
}

// Done gives back every byte the reservation took.
func (r *Reservation) Done() {
	r.mu.Lock()
	n := r.n
	r.n = 0
	r.mu.Unlock()
	r.Budget.Release(n)
}

// Budget is the working set a reservation draws on: the engine's cache.
type Budget interface {
	// Reserve takes n bytes for who, failing when they do not fit; with
	// a ctx that is not nil it may first wait (until ctx ends) for bytes
	// that other running queries will give back.
	Reserve(ctx context.Context, who any, n int64) error
	Release(n int64)
}

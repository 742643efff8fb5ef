package gate

import "sync"

// Reservation is one query's share of the working set, returned when the
// query ends.
type Reservation struct {
	Budget Budget
	mu     sync.Mutex
	n      int64
	Peak   int64
}

// Grow takes n more bytes from the budget, failing when they do not fit.
// It never waits: a query that must wait for memory others hold gives
// back all it took first (the budget's refusal says so).
func (r *Reservation) Grow(n int64) error {
	if n <= 0 {
		return nil
	}
	if err := r.Budget.Reserve(n); err != nil {
		return err
	}
	r.mu.Lock()
	r.n += n
	r.Peak = max(r.Peak, r.n)
	r.mu.Unlock()
	return nil
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
	// Reserve takes n bytes, failing when they do not fit.
	Reserve(n int64) error
	Release(n int64)
}

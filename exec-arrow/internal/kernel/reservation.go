package kernel

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

// Done gives back every byte the reservation took.
func (r *Reservation) Done() { r.Budget.Release(r.n) }

// Budget is the working set a reservation draws on: the engine's cache.
type Budget interface {
	Reserve(n int64) error
	Release(n int64)
}

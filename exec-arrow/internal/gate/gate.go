// Package gate lets a question whose memory other running questions hold
// be asked again when one of them ends, instead of being refused while it
// fits alone (docs/operations.md, "Memory under load").
//
// A Gate counts the questions running and wakes those waiting to be asked
// again (AwaitLeave) when one ends, and a background fill (Idle) when none
// runs. No question waits while it holds memory: a reservation that does
// not fit while others run is refused with Busy, the question gives back
// everything it took, and it is asked again once another question has
// ended. Waiting without holding can never close a cycle of questions each
// waiting for another's memory, which holding and waiting can; a question
// that fits the working set alone is therefore always answered once the
// others have ended. A Gate is guarded by its caller's mutex: every method
// is called with it held.
//
// A Reservation is one question's share of the working set: what it took
// from the Budget (the engine's cache), given back when it ends.
package gate

import (
	"context"
	"sync"
	"time"
)

// Busy is a refusal of memory that other running questions hold: the
// question gives back all it took and may be asked again once one of
// them has ended (AwaitLeave).
type Busy struct{ Err error }

// Error is the refusal's message.
func (b Busy) Error() string { return b.Err.Error() }

// Unwrap is the refusal.
func (b Busy) Unwrap() error { return b.Err }

// Gate counts the questions running on one working set.
type Gate struct {
	active  int
	changed chan struct{} // closed by Signal
	left    chan struct{} // closed by Leave
}

// Enter counts a running question.
func (g *Gate) Enter() { g.active++ }

// Leave ends a running question and wakes the waiters.
func (g *Gate) Leave() {
	g.active--
	g.Signal()
	if g.left != nil {
		close(g.left)
		g.left = nil
	}
}

// AwaitLeave waits, with mu released, until a running question ends, and
// reports whether one did before ctx's end or the deadline: a question
// refused with Busy (which gave back all it held) is asked again then. With
// no question running it returns true at once: the memory is free.
func (g *Gate) AwaitLeave(ctx context.Context, mu *sync.Mutex, deadline time.Time) bool {
	if ctx.Err() != nil || !time.Now().Before(deadline) {
		return false
	}
	if g.active == 0 {
		return true
	}
	if g.left == nil {
		g.left = make(chan struct{})
	}
	ch := g.left
	mu.Unlock()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	ok := false
	select {
	case <-ch:
		ok = true
	case <-ctx.Done():
	case <-timer.C:
	}
	mu.Lock()
	return ok
}

// Active is the number of running questions.
func (g *Gate) Active() int { return g.active }

// Signal wakes a background fill waiting in Idle: memory or pins were
// given back, or a question ended.
func (g *Gate) Signal() {
	if g.changed != nil {
		close(g.changed)
		g.changed = nil
	}
}

// wake is the channel the next Signal closes.
func (g *Gate) wake() chan struct{} {
	if g.changed == nil {
		g.changed = make(chan struct{})
	}
	return g.changed
}

// Idle waits, with mu released, until no question runs or ctx ends (its
// error): a background fill gives the cores to questions.
func (g *Gate) Idle(ctx context.Context, mu *sync.Mutex) error {
	for g.active > 0 {
		ch := g.wake()
		mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
		}
		mu.Lock()
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

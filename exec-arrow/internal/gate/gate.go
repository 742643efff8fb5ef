// Package gate lets a reservation of the engine's working set wait for
// memory that running questions will give back, instead of refusing a
// question that fits alone (docs/operations.md, "Memory under load").
//
// A Gate counts the questions running and the owners waiting, and wakes
// the waiters whenever memory or pinned columns are given back. A waiter
// waits only while some other running question is not itself waiting:
// when every running question waits, none would ever give memory back, and
// the newest waiter is refused so that the others can go on. Every wait
// is bounded by its context and a deadline. A Gate is guarded by its
// caller's mutex: every method is called with it held.
package gate

import (
	"context"
	"sync"
	"time"
)

// Busy is a refusal of memory that other running questions held until
// the reservation gave up waiting: the question may be asked again once
// one of them has ended (AwaitLeave).
type Busy struct{ Err error }

// Error is the refusal's message.
func (b Busy) Error() string { return b.Err.Error() }

// Unwrap is the refusal.
func (b Busy) Unwrap() error { return b.Err }

// Gate is the waiting room of one working set.
type Gate struct {
	active  int
	seq     int64
	waiting map[any]*waiter
	changed chan struct{} // closed by Signal
	left    chan struct{} // closed by Leave
}

// waiter is one owner waiting: how many of its goroutines, and when it
// began.
type waiter struct {
	n      int
	ticket int64
}

// Ticket is one reservation's place among the waiters; its zero value is
// ready to use, and Done ends it.
type Ticket struct {
	who any
	w   *waiter
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
// that gave up waiting (and gave back all it held) asks again then. With
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

// Signal wakes every waiter: memory or pins were given back.
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

// Wait waits, with mu released, until the next Signal, ctx's end or the
// deadline, on behalf of who (one running question's owner). It returns
// false without waiting when who should give up: the deadline passed,
// ctx ended, or no other running question could give memory back and who
// is the newest waiter.
func (g *Gate) Wait(ctx context.Context, t *Ticket, who any, mu *sync.Mutex, deadline time.Time) bool {
	if ctx.Err() != nil || !time.Now().Before(deadline) {
		return false
	}
	if g.waiting == nil {
		g.waiting = map[any]*waiter{}
	}
	if t.w == nil {
		w := g.waiting[who]
		if w == nil {
			g.seq++
			w = &waiter{ticket: g.seq}
			g.waiting[who] = w
		}
		w.n++
		t.who, t.w = who, w
	}
	if g.active-len(g.waiting) <= 0 && g.newest(t.w) {
		return false
	}
	ch := g.wake()
	mu.Unlock()
	timer := time.NewTimer(time.Until(deadline))
	select {
	case <-ch:
	case <-ctx.Done():
	case <-timer.C:
	}
	timer.Stop()
	mu.Lock()
	return true
}

// newest reports whether w began waiting after every other waiter.
func (g *Gate) newest(w *waiter) bool {
	for _, o := range g.waiting {
		if o.ticket > w.ticket {
			return false
		}
	}
	return true
}

// Done ends t's wait.
func (g *Gate) Done(t *Ticket) {
	if t.w == nil {
		return
	}
	t.w.n--
	if t.w.n == 0 {
		delete(g.waiting, t.who)
	}
	t.w = nil
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

package inproc

import (
	"context"
	"sync"
	"time"

	"sutura.dev/app"
)

// DefaultEventBuffer is the number of events kept between two DrainEvents
// when Config leaves it zero.
const DefaultEventBuffer = 256

// EventKind names an event.
type EventKind string

// The kinds of events.
const (
	// EventCatalogRepinned: a configured refresh swapped in a bundle with
	// another version or digest; Old and New pin both. Answers after it
	// carry the new pin.
	EventCatalogRepinned EventKind = "catalog_repinned"
	// EventsDropped: Dropped events were dropped because the buffer was
	// full; it comes first in the drain that follows.
	EventsDropped EventKind = "events_dropped"
)

// Event is something that happened outside any call, kept until the
// kernel drains it.
type Event struct {
	Kind    EventKind `json:"kind"`
	Time    time.Time `json:"time"`
	Old     *app.Pin  `json:"old,omitempty"`
	New     *app.Pin  `json:"new,omitempty"`
	Dropped int       `json:"dropped,omitempty"`
}

// DrainEvents returns the events kept since the last drain, oldest first,
// and forgets them; nil when nothing happened. It does not wait. It fails
// only when ctx has ended.
func (c *Connection) DrainEvents(ctx context.Context) ([]Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return c.events.drain(), nil
}

// eventQueue keeps at most max events, dropping the oldest.
type eventQueue struct {
	mu        sync.Mutex
	max       int
	events    []Event
	dropped   int
	firstDrop time.Time
	now       func() time.Time
}

func newEventQueue(max int) *eventQueue { return &eventQueue{max: max, now: time.Now} }

// catalog keeps a catalogue event; it is the subscriber the surface calls.
func (q *eventQueue) catalog(ev app.CatalogEvent) {
	if ev.Kind != app.CatalogRepinned {
		return
	}
	old, nw := ev.Old, ev.New
	q.push(Event{Kind: EventCatalogRepinned, Time: ev.Time, Old: &old, New: &nw})
}

func (q *eventQueue) push(ev Event) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.events) == q.max {
		if q.dropped == 0 {
			q.firstDrop = q.now().UTC()
		}
		q.dropped++
		q.events = append(q.events[:0], q.events[1:]...)
	}
	q.events = append(q.events, ev)
}

func (q *eventQueue) drain() []Event {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.events) == 0 && q.dropped == 0 {
		return nil
	}
	var out []Event
	if q.dropped > 0 {
		out = append(out, Event{Kind: EventsDropped, Time: q.firstDrop, Dropped: q.dropped})
	}
	out = append(out, q.events...)
	q.events, q.dropped = nil, 0
	return out
}

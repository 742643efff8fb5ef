// Package cache holds the embedded engine's loaded columns, keyed by their
// table's file identity, and accounts every byte the engine holds against
// one ceiling (runtime.working_set_max_bytes): cached columns, the
// structures derived from them (column.Derived), the working memory of
// running questions and of the background fill that reads a streamed
// table's columns after its answer.
//
// Eviction works column by column: when a reservation does not fit, the
// least recently used column no running question holds is evicted; a
// background fill in progress is stopped; then, while other questions
// run, the question is refused with gate.Busy, gives back everything it
// holds and is asked again when one of them ends; alone, it is refused
// with resources_exhausted (docs/operations.md, "Memory under load").
package cache

import (
	"context"
	"io/fs"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/gate"
)

// Config is what a cache is built with.
type Config struct {
	// Limit is the working set: the most bytes held at once.
	Limit int64
	// Files are the data files fills read (a fill locates its table's
	// files again and runs only while their identity is the question's).
	Files fs.FS
	// HoldFills keeps queued fills from running until StartFills.
	HoldFills bool
	// Logger receives a fill's failure, which has no caller to be told.
	Logger *slog.Logger
}

// Cache is the engine's cached columns and its working-set accounting. It
// implements gate.Budget. The zero value is not usable; call New.
type Cache struct {
	cfg Config

	mu      sync.Mutex
	used    int64
	peak    int64 // the most used has been, for tests and diagnostics
	evicted int64 // columns evicted to make room, for tests and diagnostics
	clock   int64
	tables  map[string]*tableEntry
	filling *fillJob // the background fill running now, if any

	fills fillQueue
	gate  gate.Gate // running questions, and the questions asked again when one ends

	// reads counts the files opened to read rows, for tests and
	// diagnostics.
	reads atomic.Int64
}

// New returns an empty cache.
func New(cfg Config) *Cache {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Cache{cfg: cfg, tables: map[string]*tableEntry{}}
}

// Stats is what a cache holds and has done, for monitoring, tests and
// diagnostics.
type Stats struct {
	Used    int64 // bytes held now: cached columns, derived structures, working memory
	Limit   int64 // the working set
	Peak    int64 // the most bytes held at once so far
	Evicted int64 // columns evicted to make room so far
	Reads   int64 // data files opened to read rows so far (CountRead)
	Active  int   // questions running now (between Enter and Leave)
	Columns int64 // bytes of the cached columns and their derived structures
	Pinned  int   // cached columns a question or a build holds now
}

// Stats reports the cache's figures now.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := Stats{Used: c.used, Limit: c.cfg.Limit, Peak: c.peak, Evicted: c.evicted,
		Reads: c.reads.Load(), Active: c.gate.Active()}
	for _, t := range c.tables {
		for _, ce := range t.cols {
			s.Columns += ce.bytes
			if ce.pins > 0 {
				s.Pinned++
			}
		}
	}
	return s
}

// CountRead counts one data file opened to read rows (Stats.Reads), by a
// load of the cache or by the engine's streams and checks.
func (c *Cache) CountRead() { c.reads.Add(1) }

// errWorkingSet is the refusal of a reservation that does not fit.
func (c *Cache) errWorkingSet() error {
	return &domain.RefusalError{Reason: domain.Refuse(domain.ResourcesExhausted,
		"the question needs more memory than the engine's working set of %d bytes allows", c.cfg.Limit)}
}

// Reserve accounts n bytes of working memory, evicting unpinned columns
// and stopping a background fill as needed. It never waits while the
// caller holds memory: when the bytes do not fit and another question
// runs, it refuses with gate.Busy, and the caller asks again once one has
// ended (AwaitLeave); alone, a reservation that does not fit is refused
// for good.
func (c *Cache) Reserve(n int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.busyLocked(n, c.reservePreemptingLocked(n, nil))
}

// Release returns n reserved bytes.
func (c *Cache) Release(n int64) {
	c.mu.Lock()
	c.used -= n
	c.gate.Signal()
	c.mu.Unlock()
}

// busyLocked is err, a question's refused reservation of n bytes, as
// gate.Busy when another question runs and n alone would fit: that
// question holds memory this one may have once it ends.
func (c *Cache) busyLocked(n int64, err error) error {
	if err == nil || n > c.cfg.Limit || c.gate.Active() <= 1 {
		return err
	}
	return gate.Busy{Err: err}
}

// reservePreemptingLocked is reserveLocked that, when the bytes do not
// fit, stops a running background fill (which holds memory a question
// needs), waits until it has given its bytes back and tries again. Then,
// if ce is not nil and still cached, the bytes are accounted to it. It
// releases c.mu while it waits.
func (c *Cache) reservePreemptingLocked(n int64, ce *colEntry) error {
	for {
		if ce != nil && ce.dead {
			return nil // an evicted column lives only as long as its questions
		}
		err := c.reserveLocked(n)
		if err == nil {
			if ce != nil {
				ce.bytes += n
			}
			return nil
		}
		if c.filling == nil {
			return err
		}
		f := c.filling
		c.mu.Unlock()
		f.cancel()
		<-f.done
		c.mu.Lock()
	}
}

// reserveLocked accounts n bytes, evicting unpinned columns, least
// recently used first.
func (c *Cache) reserveLocked(n int64) error {
	for c.used+n > c.cfg.Limit {
		victim := c.victimLocked()
		if victim == nil {
			return c.errWorkingSet()
		}
		c.retireColLocked(victim)
		c.evicted++
	}
	c.used += n
	c.peak = max(c.peak, c.used)
	return nil
}

// victimLocked is the least recently used column no question holds.
func (c *Cache) victimLocked() *colEntry {
	var victim *colEntry
	for _, t := range c.tables {
		for _, ce := range t.cols {
			if ce.pins == 0 && (victim == nil || ce.lastUse < victim.lastUse) {
				victim = ce
			}
		}
	}
	return victim
}

// evictableLocked is what reservations could take back now: the bytes
// free and those of unpinned columns.
func (c *Cache) evictableLocked() int64 {
	n := c.cfg.Limit - c.used
	for _, t := range c.tables {
		for _, ce := range t.cols {
			if ce.pins == 0 {
				n += ce.bytes
			}
		}
	}
	return n
}

// Enter and Leave bracket a question: while it runs, a question refused
// for memory waits for it to end and a background fill pauses.
func (c *Cache) Enter() {
	c.mu.Lock()
	c.gate.Enter()
	c.mu.Unlock()
}

// Leave ends the bracket Enter began.
func (c *Cache) Leave() {
	c.mu.Lock()
	c.gate.Leave()
	c.mu.Unlock()
}

// AwaitLeave waits until a running question ends (false: none runs, or
// ctx or the deadline ended first).
func (c *Cache) AwaitLeave(ctx context.Context, deadline time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gate.AwaitLeave(ctx, &c.mu, deadline)
}

// A scan's working memory is reserved from the cache.
var _ gate.Budget = (*Cache)(nil)

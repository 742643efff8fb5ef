package cache

import (
	"context"
	"slices"

	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/format"
)

// Fill is a background read of a streamed table's columns into the cache,
// asked for after the question that streamed them has answered.
type Fill struct {
	Table *files.Table  // the table at the identity the question read
	Wants []format.Want // the columns to cache
	// Days names the time column whose day index the fill builds once
	// the columns are cached, when the question it follows asked for a
	// range of Span days, so that the next such question finds the index
	// (docs/performance.md, "What a warm run reuses"); "" when none could
	// use one.
	Days string
	Span int32
}

// fillJob is a Fill queued or running.
type fillJob struct {
	Fill
	cancel context.CancelFunc
	done   chan struct{}
}

// fillQueue holds the fills waiting to run (guarded by Cache.mu). idle is
// closed, and nil, when no fill is running or waiting to run; fills held
// (Config.HoldFills, until StartFills) wait without making it non-nil.
type fillQueue struct {
	pending []*fillJob
	idle    chan struct{}
	started bool // StartFills was called
}

// Schedule queues f when need bytes (what building its columns holds,
// plus the working memory the question itself took: held, the next such
// question would only evict them again) fit in the working set beside
// what running questions hold. It reports whether f is queued or running:
// false when it does not fit, and the table is streamed every time. A
// fill of the same table and columns already waiting takes f's day
// range when it is the shorter.
func (c *Cache) Schedule(f Fill, need int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if need > c.evictableLocked() {
		return false
	}
	for _, j := range c.fills.pending {
		if j.Table.ID == f.Table.ID && slices.Equal(j.Wants, f.Wants) {
			if f.Days != "" && (j.Days == "" || f.Span < j.Span) {
				j.Days, j.Span = f.Days, f.Span
			}
			return true
		}
	}
	if j := c.filling; j != nil && j.Table.ID == f.Table.ID && slices.Equal(j.Wants, f.Wants) {
		return true
	}
	c.fills.pending = append(c.fills.pending, &fillJob{Fill: f})
	c.runFillsLocked()
	return true
}

// runFillsLocked starts the goroutine that runs the queued fills, unless
// it runs already, none is queued, or fills are held (Config.HoldFills)
// and StartFills has not been called. c.mu is held.
func (c *Cache) runFillsLocked() {
	if c.fills.idle != nil || len(c.fills.pending) == 0 || c.cfg.HoldFills && !c.fills.started {
		return
	}
	c.fills.idle = make(chan struct{})
	go c.runFills()
}

// StartFills lets the fills queued so far, and every later one, run: a
// cache configured with HoldFills queues them until it is called (a
// serving process calls it once its start-up checks pass, just before it
// listens). Without HoldFills it does nothing.
func (c *Cache) StartFills() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fills.started = true
	c.runFillsLocked()
}

// runFills runs the queued fills one after another and exits when none is
// left.
func (c *Cache) runFills() {
	for {
		c.mu.Lock()
		if len(c.fills.pending) == 0 {
			close(c.fills.idle)
			c.fills.idle = nil
			c.mu.Unlock()
			return
		}
		j := c.fills.pending[0]
		c.fills.pending = c.fills.pending[1:]
		ctx, cancel := context.WithCancel(context.Background())
		j.cancel, j.done = cancel, make(chan struct{})
		c.filling = j
		t := c.entryLocked(j.Table)
		c.mu.Unlock()

		// A fill that fails leaves the table streamed; one that panics,
		// too, and is logged: it has no caller to fail.
		if err := format.Guard(func() error { c.fill(ctx, t, j); return nil })(); err != nil {
			c.cfg.Logger.Error("engine: a background cache fill failed", "table", j.Table.Name, "error", err)
		}

		c.mu.Lock()
		c.filling = nil
		c.mu.Unlock()
		cancel()
		close(j.done)
	}
}

// fill loads the job's columns into t unless a question is loading t now
// (it will have them) or the files changed since the question read them.
func (c *Cache) fill(ctx context.Context, t *tableEntry, j *fillJob) {
	if !t.loadMu.TryLock() {
		return
	}
	defer t.loadMu.Unlock()
	tf, err := files.Locate(c.cfg.Files, j.Table.Name)
	if err != nil || tf.ID != j.Table.ID {
		return
	}
	if t.load(ctx, c.cfg.Files, tf, j.Wants, true, nil) != nil {
		return // a fill that fails leaves the table streamed
	}
	c.indexDays(t, j)
}

// indexDays builds, as the end of the fill j, the day index of the time
// column a question it follows read a range of, when that range covers
// under a quarter of the cached column's days (column.FewDays): the first
// cached question that could use the index would otherwise start its
// build and read every row's time itself, the one slow question after a
// fill. The fill, and so Settle, waits for the build; a column evicted
// meanwhile, or an index the working set cannot hold, is left unbuilt.
func (c *Cache) indexDays(t *tableEntry, j *fillJob) {
	if j.Days == "" {
		return
	}
	c.mu.Lock()
	var d *column.Derived
	for _, w := range j.Wants {
		if w.Name == j.Days && !w.ValidOnly {
			if ce := t.lookupLocked(w); ce != nil && !ce.dead {
				d = ce.derived
			}
		}
	}
	segs := t.segs
	c.mu.Unlock()
	if d == nil || d.Days() != nil {
		return
	}
	if zones := d.Zones(segs); column.FewDays(zones, j.Span) {
		d.BuildDays(segs, zones)
		d.AwaitDays()
	}
}

// stopFill stops the background fill of t's table, if one runs: a question
// loading the table does not wait behind it.
func (c *Cache) stopFill(t *tableEntry) {
	c.mu.Lock()
	f := c.filling
	c.mu.Unlock()
	if f != nil && f.Table.Name == t.name {
		f.cancel()
		<-f.done
	}
}

// Settle waits until the background fills queued so far have finished
// (or ctx ends), so the next question over their tables is served from
// the cache. Serving does not need it; tests, benchmarks and a warm-up at
// start do. Fills held until StartFills are not waited for.
func (c *Cache) Settle(ctx context.Context) error {
	c.mu.Lock()
	idle := c.fills.idle
	c.mu.Unlock()
	if idle == nil {
		return nil
	}
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

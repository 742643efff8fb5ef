package engine

import (
	"context"
	"slices"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/fillsize"
	"sutura.dev/exec-arrow/internal/format"
)

// fillJob is a background read of a streamed table's columns into the
// cache, queued after the question that streamed them has answered.
type fillJob struct {
	tf    *files.Table
	wants []format.Want
	// days names the time column whose day index the fill builds once
	// the columns are cached, when a question it follows asked for a
	// range of span days (its shortest), so that the next such question
	// finds the index (indexDays); "" when none could use one.
	days   string
	span   int32
	cancel context.CancelFunc
	done   chan struct{}
}

// fillQueue holds the fills waiting to run (guarded by cache.mu). idle is
// closed, and nil, when no fill is running or waiting to run; fills held
// (Config.HoldFills, until StartFills) wait without making it non-nil.
type fillQueue struct {
	pending []*fillJob
	idle    chan struct{}
	started bool // StartFills was called
}

// scheduleFill queues a background read of the columns q streamed, when
// they would fit in the working set beside what running questions hold
// and the working memory the question itself took (held, the next such
// question would only evict them again). Reading them costs one more pass
// over the files, on one goroutine, after the answer: the first answer
// never waits for the cache.
func (e *Engine) scheduleFill(q *query, working int64) {
	if e.cfg.NoCacheFill {
		return
	}
	need := e.fillBytes(q)
	c := e.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	if need+working > c.evictableLocked() {
		return // it does not fit: this table is streamed every time
	}
	for _, j := range c.fills.pending {
		if j.tf.ID == q.tf.ID && slices.Equal(j.wants, q.baseWants) {
			j.wantDays(q)
			return
		}
	}
	if f := c.filling; f != nil && f.tf.ID == q.tf.ID && slices.Equal(f.wants, q.baseWants) {
		return
	}
	j := &fillJob{tf: q.tf, wants: q.baseWants}
	j.wantDays(q)
	c.fills.pending = append(c.fills.pending, j)
	e.runFillsLocked()
}

// wantDays notes that q, whose columns j will cache, reads a range of its
// time column, whose day index may then spare the next such question a
// test of every cached row's time. c.mu is held.
func (j *fillJob) wantDays(q *query) {
	tc := q.Base[q.TimeSlot]
	if tc.ValidOnly || q.Span <= 0 || tc.Type != domain.TypeDate && tc.Type != domain.TypeTimestamp {
		return
	}
	if j.days == "" || q.Span < j.span {
		j.days, j.span = tc.Name, q.Span
	}
}

// runFillsLocked starts the goroutine that runs the queued fills, unless
// it runs already, none is queued, or fills are held (Config.HoldFills)
// and StartFills has not been called. c.mu is held.
func (e *Engine) runFillsLocked() {
	c := e.cache
	if c.fills.idle != nil || len(c.fills.pending) == 0 || e.cfg.HoldFills && !c.fills.started {
		return
	}
	c.fills.idle = make(chan struct{})
	go e.runFills()
}

// StartFills lets the fills queued so far, and every later one, run: an
// engine configured with HoldFills queues them until it is called (a
// serving process calls it once it listens). Without HoldFills it does
// nothing.
func (e *Engine) StartFills() {
	c := e.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fills.started = true
	e.runFillsLocked()
}

// runFills runs the queued fills one after another and exits when none is
// left.
func (e *Engine) runFills() {
	c := e.cache
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
		t := c.entryLocked(j.tf)
		c.mu.Unlock()

		// A fill that fails leaves the table streamed; one that panics,
		// too, and is logged: it has no caller to fail.
		if err := format.Guard(func() error { e.fill(ctx, t, j); return nil })(); err != nil {
			e.log().Error("engine: a background cache fill failed", "source", e.cfg.Source, "error", err)
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
func (e *Engine) fill(ctx context.Context, t *tableEntry, j *fillJob) {
	if !t.loadMu.TryLock() {
		return
	}
	defer t.loadMu.Unlock()
	tf, err := files.Locate(e.cfg.Files, j.tf.Name)
	if err != nil || tf.ID != j.tf.ID {
		return
	}
	if t.load(ctx, e.cfg.Files, tf, j.wants, true, nil) != nil {
		return // a fill that fails leaves the table streamed
	}
	e.indexDays(t, j)
}

// indexDays builds, as the end of the fill j, the day index of the time
// column a question it follows read a range of, when that range covers
// under a quarter of the cached column's days (column.FewDays): the first
// cached question that could use the index would otherwise start its
// build and read every row's time itself, the one slow question after a
// fill (docs/performance.md, "What a warm run reuses"). The fill, and so
// Settle, waits for the build; a column evicted meanwhile, or an index
// the working set cannot hold, is left unbuilt.
func (e *Engine) indexDays(t *tableEntry, j *fillJob) {
	if j.days == "" {
		return
	}
	c := e.cache
	c.mu.Lock()
	var d *column.Derived
	for _, w := range j.wants {
		if w.Name == j.days && !w.ValidOnly {
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
	if zones := d.Zones(segs); column.FewDays(zones, j.span) {
		d.BuildDays(segs, zones)
		d.AwaitDays()
	}
}

// stopFill stops the background fill of t's table, if one runs: a question
// loading the table does not wait behind it.
func (c *cache) stopFill(t *tableEntry) {
	c.mu.Lock()
	f := c.filling
	c.mu.Unlock()
	if f != nil && f.tf.Name == t.name {
		f.cancel()
		<-f.done
	}
}

// Settle waits until the background fills queued so far have finished
// (or ctx ends), so the next question over their tables is served from
// the cache. Serving does not need it; tests, benchmarks and a warm-up at
// start do. Fills held until StartFills are not waited for.
func (e *Engine) Settle(ctx context.Context) error {
	c := e.cache
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

// fillBytes is what building q's base columns in the cache would hold,
// by what its stream met (fillsize.Seen.Bytes).
func (e *Engine) fillBytes(q *query) int64 {
	if q.seen == nil {
		return 0
	}
	narrow := e.narrowSlots(q)
	slots := make([]fillsize.Slot, len(q.Base))
	for i, c := range q.Base {
		slots[i] = fillsize.Slot{Col: c, Days: i < len(q.baseWants) && q.baseWants[i].Days, Narrow: narrow[i]}
	}
	return q.seen.Bytes(slots)
}

// narrowSlots says, per base slot of q, whether its builder will keep its
// values narrow: an integer column whose every value fits 32 bits, or a
// date column (or a timestamp wanted as days) whose days span at most
// 32,767. In a Parquet file the statistics of every row group tell
// (format.IntsFit32, format.DaysFit16); in a text file, for integers,
// the batches q streamed (none widened), and for days the first and last
// day the start-up checks met in the whole read of the table's text
// files (check.Deferred.TextDays); until that read has ended, they are
// estimated wide. A table of both kinds of file is judged by both, and
// Parquet batches are 64 bits wide, so its integers are estimated wide.
func (e *Engine) narrowSlots(q *query) []bool {
	out := make([]bool, len(q.Base))
	if q.tf == nil {
		return out
	}
	for i, c := range q.Base {
		days := c.Type == domain.TypeDate || i < len(q.baseWants) && q.baseWants[i].Days
		if c.ValidOnly || c.Type != domain.TypeInteger && !days {
			continue
		}
		fit := true
		for _, p := range q.tf.Parts {
			if p.Format != files.FormatParquet {
				if days {
					fit = fit && e.textDaysFit16(q, c.Name)
				} else {
					fit = fit && q.seen != nil && !q.seen.IntsWide(i)
				}
				continue
			}
			md, err := e.footer(p)
			switch {
			case err != nil:
				fit = false
			case days:
				fit = fit && format.DaysFit16(md, c.Name)
			default:
				fit = fit && format.IntsFit32(md, c.Name)
			}
		}
		out[i] = fit
	}
	return out
}

// textDaysFit16 reports whether the days of column name of q's base
// table, over its text files, span at most 32,767, as the start-up
// checks' whole read of them found (a column that held no value fits);
// false while that read has not ended.
func (e *Engine) textDaysFit16(q *query, name string) bool {
	if q.leg == nil {
		return false
	}
	d, ok := e.deferred.TextDays(q.leg.Base.Model, name)
	return ok && int64(d.Hi)-int64(d.Lo) <= 1<<15-1
}

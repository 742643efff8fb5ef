package engine

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/format"
	"sutura.dev/exec-arrow/internal/gate"
)

// cache holds loaded columns, keyed by their table's file identity, and
// accounts every byte the engine holds (cached columns, their derived
// structures, the working memory of running questions and of a background
// fill) against one ceiling. Eviction works column by column: when a
// reservation does not fit, the least recently used column that no running
// question holds is evicted; a background fill in progress is stopped;
// then, while other questions run, the question is refused with
// gate.Busy, gives back everything it holds and is asked again when one
// of them ends (bounded by waitBound and its context); alone, it is
// refused with resources_exhausted.
type cache struct {
	mu      sync.Mutex
	limit   int64
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

// tableEntry is one table as it was at one file identity: the columns read
// from it so far, and what every column of it shares.
type tableEntry struct {
	c    *cache
	name string
	id   string

	loadMu sync.Mutex // serialises loads of new columns into the entry

	// Guarded by c.mu.
	rows   int
	loaded bool
	segs   []column.Segment // the row ranges loads read, set by the first load
	cols   map[format.Want]*colEntry
	types  map[string]domain.ColumnType // inferred types of undeclared columns
	dead   bool                         // replaced by a new identity
}

// colEntry is one cached column and what it costs: its buffers and the
// structures derived from it.
type colEntry struct {
	t       *tableEntry
	w       format.Want
	col     *column.Column
	derived *column.Derived // what is derived from col, accounted to this entry
	bytes   int64
	pins    int
	lastUse int64
	dead    bool // evicted or replaced; its bytes are no longer counted
}

func newCache(limit int64) *cache {
	return &cache{limit: limit, tables: map[string]*tableEntry{}}
}

// errWorkingSet is the refusal of a reservation that does not fit.
func (c *cache) errWorkingSet() error {
	return &domain.RefusalError{Reason: domain.Refuse(domain.ResourcesExhausted,
		"the question needs more memory than the engine's working set of %d bytes allows", c.limit)}
}

// waitBound is the longest a question refused for memory that running
// questions hold (gate.Busy) waits to be asked again.
var waitBound = 30 * time.Second

// Reserve accounts n bytes of working memory, evicting unpinned columns
// and stopping a background fill as needed. It never waits while the
// caller holds memory: when the bytes do not fit and another question
// runs, it refuses with gate.Busy, and the question is asked again once
// one has ended (Engine.execute); alone, a reservation that does not fit
// is refused for good.
func (c *cache) Reserve(n int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.busyLocked(n, c.reservePreemptingLocked(n, nil))
}

// busyLocked is err, a question's refused reservation of n bytes, as
// gate.Busy when another question runs and n alone would fit: that
// question holds memory this one may have once it ends.
func (c *cache) busyLocked(n int64, err error) error {
	if err == nil || n > c.limit || c.gate.Active() <= 1 {
		return err
	}
	return gate.Busy{Err: err}
}

// reservePreemptingLocked is reserveLocked that, when the bytes do not
// fit, stops a running background fill (which holds memory a question
// needs), waits until it has given its bytes back and tries again. Then,
// if ce is not nil and still cached, the bytes are accounted to it. It
// releases c.mu while it waits.
func (c *cache) reservePreemptingLocked(n int64, ce *colEntry) error {
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
func (c *cache) reserveLocked(n int64) error {
	for c.used+n > c.limit {
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
func (c *cache) victimLocked() *colEntry {
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

// evictable is what reservations could take back now: the bytes free and
// those of unpinned columns.
func (c *cache) evictableLocked() int64 {
	n := c.limit - c.used
	for _, t := range c.tables {
		for _, ce := range t.cols {
			if ce.pins == 0 {
				n += ce.bytes
			}
		}
	}
	return n
}

// awaitLeave waits until a running question ends (false: none runs, or
// ctx or the deadline ended first).
func (c *cache) awaitLeave(ctx context.Context, deadline time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gate.AwaitLeave(ctx, &c.mu, deadline)
}

// enter and leave bracket a question: while it runs, a question refused
// for memory waits for it to end and a background fill pauses.
func (c *cache) enter() {
	c.mu.Lock()
	c.gate.Enter()
	c.mu.Unlock()
}

func (c *cache) leave() {
	c.mu.Lock()
	c.gate.Leave()
	c.mu.Unlock()
}

// Release returns n reserved bytes.
func (c *cache) Release(n int64) {
	c.mu.Lock()
	c.used -= n
	c.gate.Signal()
	c.mu.Unlock()
}

func (c *cache) retireColLocked(ce *colEntry) {
	if ce.dead {
		return
	}
	ce.dead = true
	c.used -= ce.bytes
	ce.bytes = 0
	// The table's entry stays, with no column: it keeps what is known of
	// the files (segments, inferred types), and a load in progress into it
	// still caches into the table the engine finds.
	if t := ce.t; t.cols[ce.w] == ce {
		delete(t.cols, ce.w)
	}
}

func (c *cache) retireTableLocked(t *tableEntry) {
	t.dead = true
	for _, ce := range t.cols {
		c.retireColLocked(ce)
	}
	if c.tables[t.name] == t {
		delete(c.tables, t.name)
	}
}

// entry returns the table's entry at the identity of tf, replacing one of
// an older identity.
func (c *cache) entryLocked(tf *files.Table) *tableEntry {
	t := c.tables[tf.Name]
	if t == nil || t.id != tf.ID {
		if t != nil {
			c.retireTableLocked(t)
		}
		t = &tableEntry{c: c, name: tf.Name, id: tf.ID, cols: map[format.Want]*colEntry{}, types: map[string]domain.ColumnType{}}
		c.tables[tf.Name] = t
	}
	return t
}

// ReserveDerived accounts n bytes of a structure derived from the column
// of ce.
func (ce *colEntry) ReserveDerived(n int64) error {
	c := ce.t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.busyLocked(n, c.reservePreemptingLocked(n, ce))
}

// AccountDerived records n bytes already allocated for ce's column (or
// returns them, when n is negative).
func (ce *colEntry) AccountDerived(n int64) {
	c := ce.t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if !ce.dead {
		c.used += n
		ce.bytes += n
	}
}

// Hold pins ce until release, for a structure derived from it in the
// background; ok is false when ce is retired.
func (ce *colEntry) Hold() (release func(), ok bool) {
	c := ce.t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if ce.dead {
		return nil, false
	}
	ce.pins++
	return func() {
		c.mu.Lock()
		ce.pins--
		c.gate.Signal()
		c.mu.Unlock()
	}, true
}

// Retired reports whether ce was evicted or replaced.
func (ce *colEntry) Retired() bool {
	c := ce.t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	return ce.dead
}

// tableView is one question's hold on cached columns of a table: those it
// reads, pinned until release.
type tableView struct {
	entry *tableEntry
	rows  int
	segs  []column.Segment
	cols  map[string]*column.Column
	// derived holds, per column of cols, what is derived from it: the
	// cache entry's, or a combine's own.
	derived map[string]*column.Derived
	pins    []*colEntry
	// fileBytes is what this question read from the table's files to load
	// its columns; zero when they were all cached.
	fileBytes int64
}

// pinLocked pins the cached columns of wants in t and returns the view, or
// nil when one of them is not cached.
func (c *cache) pinLocked(t *tableEntry, wants []format.Want) *tableView {
	if !t.loaded {
		return nil
	}
	v := &tableView{entry: t, rows: t.rows, segs: t.segs, cols: make(map[string]*column.Column, len(wants)),
		derived: make(map[string]*column.Derived, len(wants))}
	var found []*colEntry
	for _, w := range wants {
		ce := t.lookupLocked(w)
		if ce == nil {
			return nil
		}
		found = append(found, ce)
		v.cols[w.Name] = ce.col
		v.derived[w.Name] = ce.derived
	}
	c.clock++
	for _, ce := range found {
		ce.pins++
		ce.lastUse = c.clock
	}
	v.pins = found
	return v
}

// lookupLocked finds the cached column that serves w: the column itself,
// or, for a want of validity only, any column of that name.
func (t *tableEntry) lookupLocked(w format.Want) *colEntry {
	if ce := t.cols[w]; ce != nil {
		return ce
	}
	if !w.ValidOnly {
		return nil
	}
	for k, ce := range t.cols {
		if k.Name == w.Name {
			return ce
		}
	}
	return nil
}

// peek pins the wanted columns of tf when every one is cached, and returns
// nil otherwise: the caller then streams the files.
func (c *cache) peek(tf *files.Table, wants []format.Want) *tableView {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.tables[tf.Name]
	if t == nil || t.id != tf.ID || t.dead {
		return nil
	}
	return c.pinLocked(t, wants)
}

// acquire returns the wanted columns of the table in tf, loading those not
// cached at this file identity, pinned for the caller.
func (c *cache) acquire(ctx context.Context, fsys fs.FS, tf *files.Table, wants []format.Want) (*tableView, error) {
	for range 3 {
		c.mu.Lock()
		t := c.entryLocked(tf)
		if v := c.pinLocked(t, wants); v != nil {
			c.mu.Unlock()
			return v, nil
		}
		c.mu.Unlock()
		v, err := t.loadPinned(ctx, fsys, tf, wants)
		if err != nil || v != nil {
			return v, err
		}
		// A column cached before the load was evicted during it: load
		// again.
	}
	return nil, c.errWorkingSet()
}

// loadPinned loads the wanted columns t lacks and pins all the wanted
// ones as it caches them (so no other reservation evicts them before the
// caller holds them); nil when one cached before was evicted meanwhile.
func (t *tableEntry) loadPinned(ctx context.Context, fsys fs.FS, tf *files.Table, wants []format.Want) (*tableView, error) {
	t.c.stopFill(t)
	t.loadMu.Lock()
	defer t.loadMu.Unlock()
	var v *tableView
	err := t.load(ctx, fsys, tf, wants, false, func() { v = t.c.pinLocked(t, wants) })
	return v, err
}

// release ends a question's hold on the columns. A view of columns the
// cache does not hold (a federated leg's rows) holds nothing.
func (v *tableView) release() {
	if v.entry == nil {
		return
	}
	c := v.entry.c
	c.mu.Lock()
	for _, ce := range v.pins {
		ce.pins--
	}
	c.gate.Signal()
	c.mu.Unlock()
	v.pins = nil
}

// load reads the wanted columns t lacks and caches them, calling pin (when
// not nil) with c.mu held once they are. The caller holds t.loadMu. The memory the builders hold is reserved as it grows; the
// finished columns stay accounted to their entries. A background fill
// reads on one goroutine and never stops another fill to make room.
func (t *tableEntry) load(ctx context.Context, fsys fs.FS, tf *files.Table, wants []format.Want, fill bool, pin func()) error {
	c := t.c
	c.mu.Lock()
	var missing []format.Want
	for _, w := range wants {
		if t.lookupLocked(w) == nil && !slices.Contains(missing, w) {
			missing = append(missing, w)
		}
	}
	loaded := t.loaded
	if len(missing) == 0 && loaded {
		if pin != nil {
			pin()
		}
		c.mu.Unlock()
		return nil
	}
	c.mu.Unlock()
	var reserved int64
	defer func() { c.Release(reserved) }()
	meter := func(total int64) error {
		if fill {
			// A fill pauses while questions run: it gives them the cores.
			c.mu.Lock()
			err := c.gate.Idle(ctx, &c.mu)
			c.mu.Unlock()
			if err != nil {
				return err
			}
		}
		if total <= reserved {
			return nil
		}
		grow := func(n int64) error { return c.Reserve(n) }
		if fill {
			grow = func(n int64) error {
				c.mu.Lock()
				defer c.mu.Unlock()
				return c.reserveLocked(n)
			}
		}
		if err := grow(total - reserved); err != nil {
			return err
		}
		reserved = total
		return nil
	}
	l := format.NewLoader(ctx, fsys, missing, false, meter)
	l.Serial = fill
	for _, p := range tf.Parts {
		c.reads.Add(1)
		if err := l.ReadPart(p); err != nil {
			return err
		}
	}
	if err := l.Tick(); err != nil {
		return err
	}
	byName := l.Columns()
	for _, col := range byName {
		col.DropDictHash() // a cached column's distinct values are counted by code
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.loaded && (l.Rows != t.rows || !slices.Equal(l.Segs, t.segs)) {
		return fmt.Errorf("table %s changed while it was read", tf.Name)
	}
	var total int64
	for _, w := range missing {
		total += byName[w.Name].Bytes
	}
	if t.dead {
		return nil // replaced meanwhile: the columns serve no one
	}
	// The builders' reservation becomes the columns'.
	if total > reserved {
		if err := c.reserveLocked(total - reserved); err != nil {
			if fill {
				return err
			}
			return c.busyLocked(total-reserved, err)
		}
	} else {
		c.used -= reserved - total
	}
	reserved = 0
	t.rows, t.segs, t.loaded = l.Rows, l.Segs, true
	c.clock++
	for _, w := range missing {
		col := byName[w.Name]
		ce := &colEntry{t: t, w: w, col: col, bytes: col.Bytes, lastUse: c.clock}
		ce.derived = column.NewDerived(col, ce)
		if w.Type == domain.TypeUnset {
			t.types[w.Name] = col.Type
		}
		t.cols[w] = ce
	}
	if pin != nil {
		pin()
	}
	return nil
}

// heldIn returns what is derived from c, a column of v (nil when the table
// is streamed): its cache entry's structures, or fresh ones, built on
// demand and accounted to nothing, for a streamed slot's prototype.
func heldIn(v *tableView, c *column.Column) *column.Derived {
	if v != nil {
		if d := v.derived[c.Name]; d != nil && d.Column() == c {
			return d
		}
	}
	return column.NewDerived(c, nil)
}

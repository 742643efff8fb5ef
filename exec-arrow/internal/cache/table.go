package cache

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sync"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/format"
)

// tableEntry is one table as it was at one file identity: the columns read
// from it so far, and what every column of it shares.
type tableEntry struct {
	c    *Cache
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
// structures derived from it. It is the column.Derived's account.
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

func (c *Cache) retireColLocked(ce *colEntry) {
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

func (c *Cache) retireTableLocked(t *tableEntry) {
	t.dead = true
	for _, ce := range t.cols {
		c.retireColLocked(ce)
	}
	if c.tables[t.name] == t {
		delete(c.tables, t.name)
	}
}

// entryLocked returns the table's entry at the identity of tf, replacing
// one of an older identity.
func (c *Cache) entryLocked(tf *files.Table) *tableEntry {
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

// View is one question's hold on columns of a table: the cached ones it
// reads, pinned until Release, or columns the cache does not hold (a
// federated leg's rows, built by the combine), which it holds nothing
// for.
type View struct {
	entry *tableEntry // nil for columns the cache does not hold
	pins  []*colEntry

	Rows int
	Segs []column.Segment
	Cols map[string]*column.Column
	// Derived holds, per column of Cols, what is derived from it: the
	// cache entry's, or a combine's own.
	Derived map[string]*column.Derived
	// FileBytes is what the question read from the table's files to load
	// its columns; zero when they were all cached.
	FileBytes int64
}

// Held returns what is derived from c, a column of v: its cache entry's
// structures, or, when v is nil (the table is streamed) or does not hold
// c, fresh ones, built on demand and accounted to nothing (a streamed
// slot's prototype).
func (v *View) Held(c *column.Column) *column.Derived {
	if v != nil {
		if d := v.Derived[c.Name]; d != nil && d.Column() == c {
			return d
		}
	}
	return column.NewDerived(c, nil)
}

// Release ends a question's hold on the columns.
func (v *View) Release() {
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

// pinLocked pins the cached columns of wants in t and returns the view, or
// nil when one of them is not cached.
func (c *Cache) pinLocked(t *tableEntry, wants []format.Want) *View {
	if !t.loaded {
		return nil
	}
	v := &View{entry: t, Rows: t.rows, Segs: t.segs, Cols: make(map[string]*column.Column, len(wants)),
		Derived: make(map[string]*column.Derived, len(wants))}
	var found []*colEntry
	for _, w := range wants {
		ce := t.lookupLocked(w)
		if ce == nil {
			return nil
		}
		found = append(found, ce)
		v.Cols[w.Name] = ce.col
		v.Derived[w.Name] = ce.derived
	}
	c.clock++
	for _, ce := range found {
		ce.pins++
		ce.lastUse = c.clock
	}
	v.pins = found
	return v
}

// lookupLocked finds the cached column that serves w: the column itself;
// for a want of distinct counts, the text column whole; for a want of
// validity only, any column of that name.
func (t *tableEntry) lookupLocked(w format.Want) *colEntry {
	if ce := t.cols[w]; ce != nil {
		return ce
	}
	if w.Codes {
		whole := w
		whole.Codes = false
		return t.cols[whole]
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

// Peek pins the wanted columns of tf when every one is cached, and returns
// nil otherwise: the caller then streams the files.
func (c *Cache) Peek(tf *files.Table, wants []format.Want) *View {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.tables[tf.Name]
	if t == nil || t.id != tf.ID || t.dead {
		return nil
	}
	return c.pinLocked(t, wants)
}

// Acquire returns the wanted columns of the table in tf, loading those not
// cached at this file identity from fsys, pinned for the caller. A
// background fill of the table is stopped first: the question does not
// wait behind it.
func (c *Cache) Acquire(ctx context.Context, fsys fs.FS, tf *files.Table, wants []format.Want) (*View, error) {
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
func (t *tableEntry) loadPinned(ctx context.Context, fsys fs.FS, tf *files.Table, wants []format.Want) (*View, error) {
	t.c.stopFill(t)
	t.loadMu.Lock()
	defer t.loadMu.Unlock()
	var v *View
	err := t.load(ctx, fsys, tf, wants, false, func() { v = t.c.pinLocked(t, wants) })
	return v, err
}

// load reads the wanted columns t lacks and caches them, calling pin (when
// not nil) with c.mu held once they are. The caller holds t.loadMu. The
// memory the builders hold is reserved as it grows; the finished columns
// stay accounted to their entries. A background fill reads on one
// goroutine, pauses while questions run and never stops another fill to
// make room.
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
	defer l.Close()
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
	byName, err := l.Columns()
	if err != nil {
		return err
	}
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
	t.storeLocked(l.Rows, l.Segs, missing, byName)
	if pin != nil {
		pin()
	}
	return nil
}

// storeLocked caches the columns of wants, found by name in cols, as read
// from t's files in rows rows and segments segs; their bytes are
// accounted already.
func (t *tableEntry) storeLocked(rows int, segs []column.Segment, wants []format.Want, cols map[string]*column.Column) {
	c := t.c
	t.rows, t.segs, t.loaded = rows, segs, true
	c.clock++
	for _, w := range wants {
		col := cols[w.Name]
		ce := &colEntry{t: t, w: w, col: col, bytes: col.Bytes, lastUse: c.clock}
		ce.derived = column.NewDerived(col, ce)
		if w.Type == domain.TypeUnset {
			t.types[w.Name] = col.Type
		}
		t.cols[w] = ce
	}
}

// Put caches cols, built elsewhere, as the table of tf in rows rows read
// in segments segs, each column wanted by its name and type, and accounts
// their bytes, beyond the working set if need be: a table generated in
// memory (tests and benchmarks over more rows than their files hold).
func (c *Cache) Put(tf *files.Table, rows int, segs []column.Segment, cols ...*column.Column) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.entryLocked(tf)
	byName := make(map[string]*column.Column, len(cols))
	wants := make([]format.Want, len(cols))
	for i, col := range cols {
		byName[col.Name] = col
		wants[i] = format.Want{Name: col.Name, Type: col.Type}
		c.used += col.Bytes
	}
	c.peak = max(c.peak, c.used)
	t.storeLocked(rows, segs, wants, byName)
}

// Entry is one cached column as the cache holds it.
type Entry struct {
	Col   *column.Column
	Bytes int64 // the column's buffers and the structures derived from it
	Pins  int   // the questions and builds holding it now
}

// Cached returns the columns of the table named table cached now, by the
// want each serves (nil when none is): for tests and diagnostics.
func (c *Cache) Cached(table string) map[format.Want]Entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.tables[table]
	if t == nil {
		return nil
	}
	out := make(map[format.Want]Entry, len(t.cols))
	for w, ce := range t.cols {
		out[w] = Entry{Col: ce.col, Bytes: ce.bytes, Pins: ce.pins}
	}
	return out
}

// Tables returns the names of the tables the cache holds an entry for.
func (c *Cache) Tables() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(maps.Keys(c.tables))
}

// InferredType returns the type a pass over the files of tf inferred for
// its undeclared column name, remembered at this file identity.
func (c *Cache) InferredType(tf *files.Table, name string) (domain.ColumnType, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	typ, ok := c.entryLocked(tf).types[name]
	return typ, ok
}

// Infer remembers typ as the type of the undeclared column name of tf at
// this file identity (InferredType).
func (c *Cache) Infer(tf *files.Table, name string, typ domain.ColumnType) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entryLocked(tf).types[name] = typ
}

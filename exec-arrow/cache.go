package engine

import (
	"context"
	"fmt"
	"io/fs"
	"sync"
	"sync/atomic"

	"sutura.dev/domain"
)

// cache holds the loaded columns of every table, keyed by the table's file
// identity, and accounts every byte the engine holds (cached columns,
// their derived structures, and the working memory of running queries)
// against one ceiling. When a reservation does not fit, the least recently
// used tables no running query holds are evicted; if it still does not
// fit, the reservation is refused with resources_exhausted.
type cache struct {
	mu     sync.Mutex
	limit  int64
	used   int64
	clock  int64
	tables map[string]*tableEntry

	// reads counts the files read, for tests and diagnostics.
	reads atomic.Int64
}

// tableEntry is one table as it was at one file identity.
type tableEntry struct {
	c    *cache
	name string
	id   string

	loadMu sync.Mutex // serialises loads of new columns into the entry

	// Guarded by c.mu.
	rows    int
	loaded  bool
	cols    map[want]*column
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

// reserve accounts n bytes, evicting unpinned tables as needed.
func (c *cache) reserve(n int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reserveLocked(n)
}

func (c *cache) reserveLocked(n int64) error {
	for c.used+n > c.limit {
		var victim *tableEntry
		for _, e := range c.tables {
			if e.pins == 0 && (victim == nil || e.lastUse < victim.lastUse) {
				victim = e
			}
		}
		if victim == nil {
			return c.errWorkingSet()
		}
		c.retireLocked(victim)
	}
	c.used += n
	return nil
}

// release returns n reserved bytes.
func (c *cache) release(n int64) {
	c.mu.Lock()
	c.used -= n
	c.mu.Unlock()
}

func (c *cache) retireLocked(e *tableEntry) {
	if e.dead {
		return
	}
	e.dead = true
	c.used -= e.bytes
	e.bytes = 0
	if c.tables[e.name] == e {
		delete(c.tables, e.name)
	}
}

// reserveDerived accounts n bytes of a structure derived from a column of e.
func (e *tableEntry) reserveDerived(n int64) error {
	c := e.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.dead {
		return nil // a retired table's columns live only as long as their queries
	}
	if err := c.reserveLocked(n); err != nil {
		return err
	}
	e.bytes += n
	return nil
}

// accountDerived records n bytes already allocated for e.
func (e *tableEntry) accountDerived(n int64) {
	c := e.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if !e.dead {
		c.used += n
		e.bytes += n
	}
}

// retired reports whether e was evicted or replaced.
func (e *tableEntry) retired() bool {
	e.c.mu.Lock()
	defer e.c.mu.Unlock()
	return e.dead
}

// tableView is one query's hold on a table: the columns it needs, pinned
// until release.
type tableView struct {
	entry *tableEntry
	rows  int
	cols  map[string]*column
	// fileBytes is what this query read from the table's files to load
	// its columns; zero when they were all cached.
	fileBytes int64
}

// acquire returns the wanted columns of the table in tf, loading those not
// cached at this file identity.
func (c *cache) acquire(ctx context.Context, fsys fs.FS, tf *tableFiles, wants []want) (*tableView, error) {
	c.mu.Lock()
	e := c.tables[tf.table]
	if e == nil || e.id != tf.id {
		if e != nil {
			c.retireLocked(e)
		}
		e = &tableEntry{c: c, name: tf.table, id: tf.id, cols: map[want]*column{}}
		c.tables[tf.table] = e
	}
	e.pins++
	c.clock++
	e.lastUse = c.clock
	c.mu.Unlock()

	v, err := e.ensure(ctx, fsys, tf, wants)
	if err != nil {
		c.unpin(e)
		return nil, err
	}
	return v, nil
}

func (c *cache) unpin(e *tableEntry) {
	c.mu.Lock()
	e.pins--
	c.mu.Unlock()
}

// release ends a query's hold on the table.
func (v *tableView) release() { v.entry.c.unpin(v.entry) }

// ensure loads the wanted columns e lacks, then returns the view.
func (e *tableEntry) ensure(ctx context.Context, fsys fs.FS, tf *tableFiles, wants []want) (*tableView, error) {
	c := e.c
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	c.mu.Lock()
	var missing []want
	for _, w := range wants {
		if _, ok := e.cols[w]; !ok && !containsWant(missing, w) {
			missing = append(missing, w)
		}
	}
	c.mu.Unlock()
	if len(missing) > 0 || !e.loaded {
		cols, rows, err := c.load(ctx, fsys, tf, missing)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		if e.loaded && rows != e.rows {
			c.mu.Unlock()
			return nil, fmt.Errorf("table %s changed while it was read", tf.table)
		}
		var total int64
		for _, col := range cols {
			total += col.bytes
		}
		if !e.dead {
			if err := c.reserveLocked(total); err != nil {
				c.mu.Unlock()
				return nil, err
			}
			e.bytes += total
		}
		e.rows, e.loaded = rows, true
		for w, col := range cols {
			col.owner = e
			e.cols[w] = col
		}
		c.mu.Unlock()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v := &tableView{entry: e, rows: e.rows, cols: make(map[string]*column, len(wants))}
	for _, w := range wants {
		v.cols[w.name] = e.cols[w]
	}
	return v, nil
}

func containsWant(ws []want, w want) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

// load reads the wanted columns of every part of tf. The memory the
// builders hold is reserved as it grows and released when load returns;
// the caller accounts the finished columns.
func (c *cache) load(ctx context.Context, fsys fs.FS, tf *tableFiles, wants []want) (map[want]*column, int, error) {
	var reserved int64
	defer func() { c.release(reserved) }()
	meter := func(total int64) error {
		if total <= reserved {
			return nil
		}
		if err := c.reserve(total - reserved); err != nil {
			return err
		}
		reserved = total
		return nil
	}
	l := newLoader(ctx, fsys, wants, false, meter)
	for _, p := range tf.parts {
		c.reads.Add(1)
		if err := l.readPart(p); err != nil {
			return nil, 0, err
		}
	}
	if err := l.tick(); err != nil {
		return nil, 0, err
	}
	byName := l.columns()
	out := make(map[want]*column, len(wants))
	for _, w := range wants {
		out[w] = byName[w.name]
	}
	return out, l.rows, nil
}

package column

import (
	"sync"
	"sync/atomic"
)

// Owner is what the derived structures of a cached column are accounted
// to: the cache entry that holds the column and its Derived. It is how a
// derived build asks the working set for room without the column package
// knowing the cache.
type Owner interface {
	// ReserveDerived accounts n bytes, failing when they do not fit.
	ReserveDerived(n int64) error
	// AccountDerived records n bytes already allocated (negative: given
	// back).
	AccountDerived(n int64)
	// Retired reports whether the column was evicted or replaced.
	Retired() bool
	// Hold keeps the column from eviction until release is called, for a
	// structure built in the background; ok is false when it is retired.
	Hold() (release func(), ok bool)
}

// Derived holds what is derived from one column on demand: its day zones,
// day index, group codes, byte-order ranks, dictionary lookup and join
// indexes. The
// column does not hold it; whoever holds the column does (the cache entry
// of a cached column, a combine for the columns it builds), and its bytes
// are accounted to that Owner.
//
// Each structure is built under its own lock, once, and kept only when
// the build succeeded: a cancelled or refused build is retried by the
// next query.
type Derived struct {
	col   *Column
	owner Owner // nil: nothing is accounted

	zoneOnce sync.Once
	zoneList []DayZone // per-segment day ranges of a time column; see Zones

	daysOnce sync.Once
	days     atomic.Pointer[DayIndex] // a time column's rows by day; see BuildDays
	daysDone chan struct{}            // closed when the build BuildDays started ends

	codesMu  sync.Mutex
	codes    *CodeSet
	rankMu   sync.Mutex
	rank     []int32 // text: byte-order rank of each dictionary entry
	lookupMu sync.Mutex
	lookup   map[string]int32 // text: dictionary entry → index
	joinMu   sync.Mutex
	join     *JoinIndex
	rendered map[string]int32 // rows by canonical rendering, for joins across types
	// fromDict caches, for a text column joined to another text column,
	// the joined table's row per dictionary index of this column.
	fromMu   sync.Mutex
	fromDict map[*Derived][]int32
	// joined caches what joins through this column's table find per row
	// or per key (RowsTo, Composed), by the key columns they join.
	joined map[[2]*Derived][]int32
}

// NewDerived returns the (empty, built on demand) derived structures of c,
// accounted to owner when it is not nil.
func NewDerived(c *Column, owner Owner) *Derived {
	return &Derived{col: c, owner: owner}
}

// Column is the column the structures are derived from.
func (d *Derived) Column() *Column { return d.col }

// reserve accounts n bytes of a derived structure to the owner, failing
// when the working set cannot hold them.
func (d *Derived) reserve(n int64) error {
	if d.owner == nil {
		return nil
	}
	return d.owner.ReserveDerived(n)
}

// account records n bytes already allocated for a derived structure.
func (d *Derived) account(n int64) {
	if d.owner != nil {
		d.owner.AccountDerived(n)
	}
}

// unreserve returns bytes reserved for a derived structure that was not
// built.
func (d *Derived) unreserve(n int64) {
	if d.owner != nil {
		d.owner.AccountDerived(-n)
	}
}

package engine

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"sutura.dev/domain"
)

// column is one loaded column of a table: its resolved type and its values
// as one contiguous Arrow array. The physical array per type is:
//
//	integer           *array.Int64
//	float, decimal    *array.Float64
//	boolean           *array.Boolean
//	date              *array.Date32
//	timestamp         *array.Int64 (microseconds since 1970-01-01T00:00:00Z)
//	text              *array.Dictionary (int32 indices over a string dictionary)
//
// A column is immutable once built; the derived structures (group codes,
// byte-order ranks, join indexes) are built lazily, once, and accounted
// against the working set through the table entry that owns the column.
type column struct {
	id   uint64 // unique per column, for per-batch caches (dictMap)
	name string
	typ  domain.ColumnType
	arr  arrow.Array
	n    int

	// Typed views of arr's buffers, set by newColumn.
	valid    []byte // validity bitmap, nil when the column has no nulls
	ints     []int64
	floats   []float64
	days     []arrow.Date32
	bools    *array.Boolean
	boolBits []byte   // boolean: the value bitmap
	idx      []int32  // text: dictionary index per row
	dict     []string // text: the dictionary

	bytes int64 // buffer bytes of arr

	// validOnly marks a column read for its validity alone (the input of
	// count or is_not_null): valid is set, the values are not.
	validOnly bool

	owner owner // the cache entry, for accounting derived structures; nil for a streamed batch

	zoneOnce sync.Once
	zoneList []dayZone // per-segment day ranges of a time column; see zones

	// Derived structures, each built under its own lock and kept only
	// when the build succeeded: a cancelled or refused build is retried by
	// the next query.
	codesMu  sync.Mutex
	codes    *codeSet
	rankMu   sync.Mutex
	rank     []int32 // text: byte-order rank of each dictionary entry
	lookupMu sync.Mutex
	lookup   map[string]int32 // text: dictionary entry → index
	joinMu   sync.Mutex
	join     *joinIndex
	rendered map[string]int32 // rows by canonical rendering, for joins across types
	// fromDict caches, for a text column joined to another text column,
	// the joined table's row per dictionary index of this column.
	fromMu   sync.Mutex
	fromDict map[*column][]int32
}

// newColumn wraps arr (whose data offset must be 0) as a column of type typ.
func newColumn(name string, typ domain.ColumnType, arr arrow.Array) *column {
	c := &column{name: name, typ: typ, arr: arr, n: arr.Len(), id: columnIDs.Add(1)}
	if arr.NullN() > 0 {
		c.valid = arr.NullBitmapBytes()
	}
	switch a := arr.(type) {
	case *array.Int64:
		c.ints = a.Int64Values()
	case *array.Float64:
		c.floats = a.Float64Values()
	case *array.Boolean:
		c.bools = a
		c.boolBits = a.Data().Buffers()[1].Bytes()
	case *array.Date32:
		c.days = a.Date32Values()
	case *array.Dictionary:
		c.idx = a.Indices().(*array.Int32).Int32Values()
		d := a.Dictionary().(*array.String)
		c.dict = make([]string, d.Len())
		for i := range c.dict {
			c.dict[i] = d.Value(i)
		}
	}
	c.bytes = arrayBytes(arr.Data())
	return c
}

// arrayBytes is the size of the buffers of d, its children and dictionary.
func arrayBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, ch := range d.Children() {
		n += arrayBytes(ch)
	}
	if d.DataType().ID() == arrow.DICTIONARY {
		n += arrayBytes(d.Dictionary())
	}
	return n
}

// isValid reports whether row r holds a value.
func (c *column) isValid(r int32) bool {
	return c.valid == nil || bitutil.BitIsSet(c.valid, int(r))
}

// numeric reports whether the column holds numbers sum and avg accept.
func (c *column) numeric() bool {
	switch c.typ {
	case domain.TypeInteger, domain.TypeFloat, domain.TypeDecimal:
		return true
	}
	return false
}

// cell returns the canonical cell of row r.
func (c *column) cell(r int32) domain.Cell {
	if r < 0 || !c.isValid(r) {
		return domain.Null()
	}
	switch c.typ {
	case domain.TypeInteger:
		return domain.Int(c.ints[r])
	case domain.TypeFloat, domain.TypeDecimal:
		return domain.Float(c.floats[r])
	case domain.TypeBoolean:
		return domain.Bool(c.bools.Value(int(r)))
	case domain.TypeDate:
		return domain.DateCell(domain.Date(c.days[r]))
	case domain.TypeTimestamp:
		return domain.Text(renderTimestamp(c.ints[r]))
	}
	return domain.Text(c.dict[c.idx[r]])
}

// renderTimestamp is the canonical text of a timestamp: RFC 3339 in UTC
// with the shortest fraction of a second.
func renderTimestamp(us int64) string {
	return time.UnixMicro(us).UTC().Format(time.RFC3339Nano)
}

// dayOfMicros is the UTC date of a timestamp in microseconds.
func dayOfMicros(us int64) int32 {
	const perDay = 86400 * 1000 * 1000
	d := us / perDay
	if us%perDay < 0 {
		d--
	}
	return int32(d)
}

// ranks returns, for a text column, the byte-order rank of each dictionary
// entry, so min, max and ordering compare small integers.
func (c *column) ranks() []int32 {
	c.rankMu.Lock()
	defer c.rankMu.Unlock()
	if c.rank == nil {
		order := make([]int32, len(c.dict))
		for i := range order {
			order[i] = int32(i)
		}
		sort.Slice(order, func(a, b int) bool { return c.dict[order[a]] < c.dict[order[b]] })
		c.rank = make([]int32, len(c.dict))
		for r, i := range order {
			c.rank[i] = int32(r)
		}
		c.account(int64(8 * len(c.dict)))
	}
	return c.rank
}

// dictLookup returns the index of every dictionary entry of a text column.
func (c *column) dictLookup() (map[string]int32, error) {
	c.lookupMu.Lock()
	defer c.lookupMu.Unlock()
	if c.lookup == nil {
		if err := c.reserve(int64(len(c.dict)) * 48); err != nil {
			return nil, err
		}
		m := make(map[string]int32, len(c.dict))
		for i, s := range c.dict {
			m[s] = int32(i)
		}
		c.lookup = m
	}
	return c.lookup, nil
}

// reserve accounts n bytes of a derived structure of c to its table entry,
// failing when the working set cannot hold them.
func (c *column) reserve(n int64) error {
	if c.owner == nil {
		return nil
	}
	return c.owner.reserveDerived(n)
}

// account records n bytes already allocated for a derived structure.
func (c *column) account(n int64) {
	if c.owner != nil {
		c.owner.accountDerived(n)
	}
}

// codeSet is the dictionary encoding of a column used as a group key or a
// count_distinct input: codes[r] is 0 for null and 1+k for the k-th
// distinct value; values[k] is its cell and order[k] its ascending rank.
type codeSet struct {
	codes  []int32
	values []domain.Cell
	order  []int32
}

// card is the number of distinct non-null values.
func (s *codeSet) card() int { return len(s.values) }

// groupCodes returns the column's code set, building it once.
func (c *column) groupCodes(ctx context.Context) (*codeSet, error) {
	c.codesMu.Lock()
	defer c.codesMu.Unlock()
	if c.codes == nil {
		size := int64(4 * c.n)
		if err := c.reserve(size); err != nil {
			return nil, err
		}
		s, err := buildCodes(ctx, c)
		if err != nil {
			c.unreserve(size)
			return nil, err
		}
		c.codes = s
		c.account(int64(len(s.values)) * 48)
	}
	return c.codes, nil
}

// unreserve returns bytes reserved for a derived structure that was not
// built.
func (c *column) unreserve(n int64) {
	if c.owner != nil {
		c.owner.accountDerived(-n)
	}
}

// checkEvery is how many rows a derived build handles between checks of
// the context.
const checkEvery = 1 << 16

func buildCodes(ctx context.Context, c *column) (*codeSet, error) {
	s := &codeSet{codes: make([]int32, c.n)}
	switch c.typ {
	case domain.TypeText:
		for r, i := range c.idx {
			if c.isValid(int32(r)) {
				s.codes[r] = i + 1
			}
		}
		s.values = make([]domain.Cell, len(c.dict))
		for i, v := range c.dict {
			s.values[i] = domain.Text(v)
		}
		rk := c.ranks()
		s.order = append([]int32(nil), rk...)
		return s, nil
	case domain.TypeBoolean:
		for r := 0; r < c.n; r++ {
			if c.isValid(int32(r)) {
				if c.bools.Value(r) {
					s.codes[r] = 2
				} else {
					s.codes[r] = 1
				}
			}
		}
		s.values = []domain.Cell{domain.Bool(false), domain.Bool(true)}
		s.order = []int32{0, 1}
		return s, nil
	case domain.TypeFloat, domain.TypeDecimal:
		seen := map[float64]int32{}
		var vals []float64
		for r, v := range c.floats {
			if r%checkEvery == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if !c.isValid(int32(r)) {
				continue
			}
			if v == 0 {
				v = 0 // one code for +0 and -0
			}
			k, ok := seen[v]
			if !ok {
				vals = append(vals, v)
				k = int32(len(vals))
				seen[v] = k
			}
			s.codes[r] = k
		}
		s.values = make([]domain.Cell, len(vals))
		for i, v := range vals {
			s.values[i] = domain.Float(v)
		}
		s.order = rankOf(len(vals), func(a, b int) bool { return vals[a] < vals[b] })
		return s, nil
	}
	// integer, date, timestamp: int64 keys
	get := func(r int) int64 {
		if c.typ == domain.TypeDate {
			return int64(c.days[r])
		}
		return c.ints[r]
	}
	seen := map[int64]int32{}
	var vals []int64
	for r := 0; r < c.n; r++ {
		if r%checkEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !c.isValid(int32(r)) {
			continue
		}
		v := get(r)
		k, ok := seen[v]
		if !ok {
			vals = append(vals, v)
			k = int32(len(vals))
			seen[v] = k
		}
		s.codes[r] = k
	}
	s.values = make([]domain.Cell, len(vals))
	for i, v := range vals {
		switch c.typ {
		case domain.TypeDate:
			s.values[i] = domain.DateCell(domain.Date(v))
		case domain.TypeTimestamp:
			s.values[i] = domain.Text(renderTimestamp(v))
		default:
			s.values[i] = domain.Int(v)
		}
	}
	s.order = rankOf(len(vals), func(a, b int) bool { return vals[a] < vals[b] })
	return s, nil
}

// rankOf returns the ascending rank of each of n items ordered by less.
func rankOf(n int, less func(a, b int) bool) []int32 {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return less(order[a], order[b]) })
	rank := make([]int32, n)
	for r, i := range order {
		rank[i] = int32(r)
	}
	return rank
}

// columnIDs numbers columns, so per-batch caches (dictMap) can tell one
// batch's dictionary from the next without comparing addresses the
// collector may reuse.
var columnIDs atomic.Uint64

// chunkRows is the most rows one batch holds: small enough that a worker
// checks the context within milliseconds, large enough that per-batch
// overhead vanishes.
const chunkRows = 1 << 16

// owner is what a cached column's derived structures are accounted to:
// the cache entry that holds the column. It is how a derived build asks
// the working set for room without the column knowing the cache.
type owner interface {
	// reserveDerived accounts n bytes, failing when they do not fit.
	reserveDerived(n int64) error
	// accountDerived records n bytes already allocated (negative: given back).
	accountDerived(n int64)
	// retired reports whether the column was evicted or replaced.
	retired() bool
}

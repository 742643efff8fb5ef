package column

import (
	"context"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"sutura.dev/domain"
)

// Column is one loaded column of a table: its resolved type and its values
// as one contiguous Arrow array. The physical array per type is:
//
//	integer           *array.Int32 when every value fits 32 bits, as a
//	                  builder makes it, else *array.Int64
//	float             *array.Float64
//	decimal           *array.Int64 (the coefficient at Scale) when every
//	                  value fits in 64 bits, else *array.Decimal128
//	boolean           *array.Boolean
//	date              *array.Uint16 (days since DayBase, 32,768 days
//	                  before the first) when every day fits that, as a
//	                  builder makes it, else *array.Date32
//	timestamp         *array.Int64 (microseconds since 1970-01-01T00:00:00Z)
//	text              *array.Dictionary (uint8 indices over a string
//	                  dictionary of at most 256 entries, as a builder
//	                  makes it, else int32 indices)
//
// A column is immutable once built. What is derived from it (group codes,
// byte-order ranks, join indexes, day zones) is not part of it: a Derived
// holds it, owned by whoever holds the column (the cache entry).
type Column struct {
	ID   uint64 // unique per column, for per-batch caches (dictMap)
	Name string
	Type domain.ColumnType
	Arr  arrow.Array
	N    int

	// Typed views of arr's buffers, set by New.
	Valid []byte // validity bitmap, nil when the column has no nulls
	Ints  []int64
	// Ints32 is an integer column's values when they are int32 (every
	// one fits, Ints nil): half the memory. Int reads either; a loop
	// over many rows is written once for both (the Integer constraint).
	Ints32 []int32
	Floats []float64
	Days   []arrow.Date32
	// Days16 is a date column's days when they are held narrow: row r's
	// day is DayBase + Days16[r] (Days nil), half the memory. Day reads
	// either; a loop over many rows is written once for both (the
	// DayValue constraint), its first day less DayBase.
	Days16   []uint16
	DayBase  int32
	Bools    *array.Boolean
	BoolBits []byte  // boolean: the value bitmap
	Idx      []int32 // text: dictionary index per row, when they are int32
	// Idx8 is a text column's dictionary index per row when they are
	// uint8 (a dictionary of at most 256 entries, Idx nil): a quarter of
	// the memory. Index reads either; a loop over many rows is written
	// once for both (the Index constraint).
	Idx8 []uint8
	Dict []string // text: the dictionary
	// DictHash, when set, is distinct.HashString of each Dict entry (the
	// builder that interned them kept it, and Bytes counts it); nil means
	// unknown.
	DictHash []uint64
	// Decimal: the values are coefficients at Scale fractional digits, in
	// Ints, or in Dec when one of them needs more than 64 bits.
	Scale int32
	Dec   []decimal128.Num
	// Spec is a decimal column's declared precision and scale (a
	// prototype's, passed to its builders).
	Spec DecimalSpec

	Bytes int64 // buffer bytes of arr

	// ValidOnly marks a column read for its validity alone (the input of
	// count or is_not_null): valid is set, the values are not.
	ValidOnly bool
}

// New wraps arr (whose data offset must be 0) as a column of type typ.
func New(name string, typ domain.ColumnType, arr arrow.Array) *Column {
	c := &Column{Name: name, Type: typ, Arr: arr, N: arr.Len(), ID: ColumnIDs.Add(1)}
	if arr.NullN() > 0 {
		c.Valid = arr.NullBitmapBytes()
	}
	switch a := arr.(type) {
	case *array.Int64:
		c.Ints = a.Int64Values()
	case *array.Int32:
		c.Ints32 = a.Int32Values()
	case *array.Decimal128:
		c.Dec = a.Values()
		c.Scale = a.DataType().(*arrow.Decimal128Type).Scale
	case *array.Float64:
		c.Floats = a.Float64Values()
	case *array.Boolean:
		c.Bools = a
		if vals := a.Data().Buffers()[1]; vals != nil { // none in an empty array
			c.BoolBits = vals.Bytes()
		}
	case *array.Date32:
		c.Days = a.Date32Values()
	case *array.Uint16:
		c.Days16 = a.Uint16Values()
	case *array.Dictionary:
		switch ix := a.Indices().(type) {
		case *array.Int32:
			c.Idx = ix.Int32Values()
		case *array.Uint8:
			c.Idx8 = ix.Uint8Values()
		}
		d := a.Dictionary().(*array.String)
		c.Dict = make([]string, d.Len())
		for i := range c.Dict {
			c.Dict[i] = d.Value(i)
		}
	}
	c.Bytes = ArrayBytes(arr.Data())
	return c
}

// DropDictHash forgets DictHash and its bytes: a column kept, rather
// than scanned once, is counted distinct through its codes, and need not
// hold eight bytes a value for it.
func (c *Column) DropDictHash() {
	if c.DictHash != nil {
		c.Bytes -= int64(8 * cap(c.DictHash))
		c.DictHash = nil
	}
}

// DictBytes is the size of a text column's dictionary entries, summed.
func (c *Column) DictBytes() int {
	n := 0
	for _, s := range c.Dict {
		n += len(s)
	}
	return n
}

// ArrayBytes is the size of the buffers of d, its children and dictionary.
func ArrayBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(max(b.Len(), cap(b.Buf()))) // what the buffer holds, not only what it uses
		}
	}
	for _, ch := range d.Children() {
		n += ArrayBytes(ch)
	}
	if d.DataType().ID() == arrow.DICTIONARY {
		n += ArrayBytes(d.Dictionary())
	}
	return n
}

// DayValue is the set of widths a date column's days come in.
type DayValue interface{ ~uint16 | ~int32 }

// Day is row r's day, of a date column.
func (c *Column) Day(r int32) int32 {
	if c.Days16 != nil {
		return c.DayBase + int32(c.Days16[r])
	}
	return int32(c.Days[r])
}

// HasDays reports whether c holds a day for each of its rows (a date
// column whose values are loaded).
func (c *Column) HasDays() bool {
	if c.Days16 != nil {
		return len(c.Days16) >= c.N
	}
	return c.Days != nil && len(c.Days) >= c.N
}

// Integer is the set of widths an integer column's values come in.
type Integer interface{ ~int32 | ~int64 }

// Int is row r's value, of an integer, timestamp or 64-bit decimal
// column.
func (c *Column) Int(r int32) int64 {
	if c.Ints32 != nil {
		return int64(c.Ints32[r])
	}
	return c.Ints[r]
}

// HasInts reports whether c holds an integer value for each of its rows
// (in Ints or Ints32).
func (c *Column) HasInts() bool {
	if c.Ints32 != nil {
		return len(c.Ints32) >= c.N
	}
	return len(c.Ints) >= c.N
}

// Index is the set of widths a text column's dictionary indexes come in.
type Index interface{ ~uint8 | ~int32 }

// Index is row r's dictionary index, of a text column.
func (c *Column) Index(r int32) int32 {
	if c.Idx8 != nil {
		return int32(c.Idx8[r])
	}
	return c.Idx[r]
}

// Indexed reports whether c holds a dictionary index for each of its
// rows (a text column whose values are loaded).
func (c *Column) Indexed() bool {
	if c.Idx8 != nil {
		return len(c.Idx8) >= c.N
	}
	return len(c.Idx) >= c.N
}

// IsValid reports whether row r holds a value.
func (c *Column) IsValid(r int32) bool {
	return c.Valid == nil || bitutil.BitIsSet(c.Valid, int(r))
}

// Numeric reports whether the column holds numbers sum and avg accept.
func (c *Column) Numeric() bool {
	switch c.Type {
	case domain.TypeInteger, domain.TypeFloat, domain.TypeDecimal:
		return true
	}
	return false
}

// Cell returns the canonical cell of row r.
func (c *Column) Cell(r int32) domain.Cell {
	if r < 0 || !c.IsValid(r) {
		return domain.Null()
	}
	switch c.Type {
	case domain.TypeInteger:
		return domain.Int(c.Int(r))
	case domain.TypeFloat:
		return domain.Float(c.Floats[r])
	case domain.TypeDecimal:
		return c.DecAt(r).Cell(c.Scale)
	case domain.TypeBoolean:
		return domain.Bool(c.Bools.Value(int(r)))
	case domain.TypeDate:
		return domain.DateCell(domain.Date(c.Day(r)))
	case domain.TypeTimestamp:
		return domain.Text(RenderTimestamp(c.Ints[r]))
	}
	return domain.Text(c.Dict[c.Index(r)])
}

// RenderTimestamp is the canonical text of a timestamp: RFC 3339 in UTC
// with the shortest fraction of a second.
func RenderTimestamp(us int64) string {
	return time.UnixMicro(us).UTC().Format(time.RFC3339Nano)
}

// DayOfMicros is the UTC date of a timestamp in microseconds.
func DayOfMicros(us int64) int32 {
	const perDay = 86400 * 1000 * 1000
	d := us / perDay
	if us%perDay < 0 {
		d--
	}
	return int32(d)
}

// Ranks returns, for a text column, the byte-order rank of each dictionary
// entry, so min, max and ordering compare small integers.
func (d *Derived) Ranks() []int32 {
	c := d.col
	d.rankMu.Lock()
	defer d.rankMu.Unlock()
	if d.rank == nil {
		order := make([]int32, len(c.Dict))
		for i := range order {
			order[i] = int32(i)
		}
		sort.Slice(order, func(a, b int) bool { return c.Dict[order[a]] < c.Dict[order[b]] })
		d.rank = make([]int32, len(c.Dict))
		for r, i := range order {
			d.rank[i] = int32(r)
		}
		d.account(int64(8 * len(c.Dict)))
	}
	return d.rank
}

// DictLookup returns the index of every dictionary entry of a text column.
func (d *Derived) DictLookup() (map[string]int32, error) {
	c := d.col
	d.lookupMu.Lock()
	defer d.lookupMu.Unlock()
	if d.lookup == nil {
		if err := d.reserve(int64(len(c.Dict)) * 48); err != nil {
			return nil, err
		}
		m := make(map[string]int32, len(c.Dict))
		for i, s := range c.Dict {
			m[s] = int32(i)
		}
		d.lookup = m
	}
	return d.lookup, nil
}

// CodeSet is the dictionary encoding of a column used as a group key or a
// count_distinct input: row r's code, Codes[r]+Plus, is 0 for null and
// 1+k for the k-th distinct value, of N. A text column with no null
// lends its dictionary indexes as Codes, with Plus 1, and takes no memory
// for them; so does a 32-bit integer column with no null whose values
// span little more than its rows, with Plus 1 less its least value and N
// the span (spanCodes); otherwise Plus is 0 and Codes are the set's own.
// Values
// (value k's cell) and Order (value k's ascending rank) are built the
// first time they are asked for, and accounted then: a count_distinct
// asks for neither, and over tens of millions of distinct texts they
// would take more time and memory than its codes (sorting 40 M session
// ids took over a minute).
//
// Codes8, when set, holds the codes in a byte a row instead (Codes is
// nil): a narrow text column's indexes, lent, or the set's own codes
// when every one fits. Code reads either.
type CodeSet struct {
	Codes  []int32
	Codes8 []uint8
	Plus   int32
	N      int

	values     func() []domain.Cell
	valuesOnce sync.Once
	vals       []domain.Cell
	order      func() []int32
	orderOnce  sync.Once
	ord        []int32
}

// Code is row r's code: 0 for null, 1+k for the k-th distinct value.
func (s *CodeSet) Code(r int32) int32 {
	if s.Codes8 != nil {
		return int32(s.Codes8[r]) + s.Plus
	}
	return s.Codes[r] + s.Plus
}

// Card is the number of distinct non-null values.
func (s *CodeSet) Card() int { return s.N }

// Values returns the cell of each value, building them once.
func (s *CodeSet) Values() []domain.Cell {
	s.valuesOnce.Do(func() {
		if s.values != nil {
			s.vals, s.values = s.values(), nil
		}
	})
	return s.vals
}

// Order returns the ascending rank of each value, building it once.
func (s *CodeSet) Order() []int32 {
	s.orderOnce.Do(func() {
		if s.order != nil {
			s.ord, s.order = s.order(), nil
		}
	})
	return s.ord
}

// GroupCodes returns the column's code set, building it once.
func (d *Derived) GroupCodes(ctx context.Context) (*CodeSet, error) {
	d.codesMu.Lock()
	defer d.codesMu.Unlock()
	if c := d.col; d.codes == nil && c.Type == domain.TypeText && c.Valid == nil && c.Indexed() {
		// The indexes, lent: each code less one.
		s := &CodeSet{Plus: 1}
		if c.Idx8 != nil {
			s.Codes8 = c.Idx8[:c.N]
		} else {
			s.Codes = c.Idx[:c.N]
		}
		s.lazily(d, len(c.Dict), 0, func(k int) domain.Cell { return domain.Text(c.Dict[k]) }, d.Ranks)
		d.codes = s
	}
	if c := d.col; d.codes == nil && c.Type == domain.TypeInteger && c.Valid == nil && c.Ints32 != nil && c.N > 0 {
		d.codes = spanCodes(d, c)
	}
	if d.codes == nil {
		size := int64(4 * d.col.N)
		if narrowCodes(d.col) {
			size = int64(d.col.N)
		}
		if err := d.reserve(size); err != nil {
			return nil, err
		}
		s, err := buildCodes(ctx, d)
		if err != nil {
			d.unreserve(size)
			return nil, err
		}
		d.codes = s
	}
	return d.codes, nil
}

// spanCodes lends a 32-bit integer column with no null its values as
// codes, each less its least value plus one, when they span at most four
// times its rows (ids, mostly): no code is built. Its N is then the span,
// an upper bound of the distinct values; the codes of the values no row
// holds are never met. Nil when the span is wider.
func spanCodes(d *Derived, c *Column) *CodeSet {
	vals := c.Ints32[:c.N]
	lo, hi := vals[0], vals[0]
	for _, v := range vals {
		lo, hi = min(lo, v), max(hi, v)
	}
	span := int64(hi) - int64(lo) + 1
	if span > 4*int64(c.N)+1024 || lo == math.MinInt32 {
		return nil
	}
	s := &CodeSet{Codes: vals, Plus: 1 - lo}
	s.lazily(d, int(span), 0, func(k int) domain.Cell { return domain.Int(int64(lo) + int64(k)) }, func() []int32 {
		ord := make([]int32, span) // the values in order: the codes are
		for k := range ord {
			ord[k] = int32(k)
		}
		return ord
	})
	return s
}

// lazily sets what s's Values and Order build when first asked for: the
// n cells cell gives, accounted to d, and the ranks order gives. kept is
// what the two hold until then (the distinct values they read, unless
// the column's own), accounted now.
func (s *CodeSet) lazily(d *Derived, n int, kept int64, cell func(k int) domain.Cell, order func() []int32) {
	s.N = n
	d.account(kept)
	s.values = func() []domain.Cell {
		out := make([]domain.Cell, n)
		for k := range out {
			out[k] = cell(k)
		}
		d.account(int64(n) * 48)
		return out
	}
	s.order = order
}

// textCodes sets codes[r] to 1 + row r's dictionary index, or 0 when
// it is null (codes as long as the column; the indexes fit).
func textCodes[C Index](codes []C, c *Column) {
	if c.Idx8 != nil {
		textCodesOf(codes, c.Idx8[:c.N], c.Valid)
	} else {
		textCodesOf(codes, c.Idx[:c.N], c.Valid)
	}
}

func textCodesOf[C, I Index](codes []C, idx []I, valid []byte) {
	for r, i := range idx {
		if valid == nil || bitutil.BitIsSet(valid, r) {
			codes[r] = C(i) + 1
		}
	}
}

// CheckEvery is how many rows a derived build handles between checks of
// the context.
const CheckEvery = 1 << 16

// narrowCodes reports whether every code of c fits a byte: a boolean's,
// or a text column's of at most 255 values (code 0 is null).
func narrowCodes(c *Column) bool {
	return c.Type == domain.TypeBoolean || c.Type == domain.TypeText && len(c.Dict) <= 255
}

func buildCodes(ctx context.Context, d *Derived) (*CodeSet, error) {
	c := d.col
	s := &CodeSet{}
	if narrowCodes(c) {
		s.Codes8 = make([]uint8, c.N)
	} else {
		s.Codes = make([]int32, c.N)
	}
	switch c.Type {
	case domain.TypeText:
		if s.Codes8 != nil {
			textCodes(s.Codes8, c)
		} else {
			textCodes(s.Codes, c)
		}
		s.lazily(d, len(c.Dict), 0, func(k int) domain.Cell { return domain.Text(c.Dict[k]) }, d.Ranks)
		return s, nil
	case domain.TypeBoolean:
		for r := 0; r < c.N; r++ {
			if c.IsValid(int32(r)) {
				s.Codes8[r] = 1 + uint8(BitOf(c.Bools.Value(r)))
			}
		}
		s.lazily(d, 2, 0, func(k int) domain.Cell { return domain.Bool(k == 1) }, func() []int32 { return []int32{0, 1} })
		return s, nil
	case domain.TypeDecimal:
		return buildDecimalCodes(ctx, d, s)
	case domain.TypeFloat:
		vals, err := distinctByMap(ctx, d, s.Codes, func(r int32) float64 {
			if v := c.Floats[r]; v != 0 {
				return v
			}
			return 0 // one code for +0 and -0
		})
		if err != nil {
			return nil, err
		}
		s.lazily(d, len(vals), int64(8*len(vals)), func(k int) domain.Cell { return domain.Float(vals[k]) },
			func() []int32 { return RankOf(len(vals), func(a, b int) bool { return vals[a] < vals[b] }) })
		return s, nil
	}
	if c.Type == domain.TypeInteger && c.Ints32 != nil {
		if ok, err := spanNullCodes(ctx, d, c, s); ok || err != nil {
			return s, err
		}
	}
	// integer, date, timestamp: int64 keys
	get := c.Int
	if c.Type == domain.TypeDate {
		get = func(r int32) int64 { return int64(c.Day(r)) }
	}
	vals, err := distinctByMap(ctx, d, s.Codes, get)
	if err != nil {
		return nil, err
	}
	cell := func(k int) domain.Cell {
		switch c.Type {
		case domain.TypeDate:
			return domain.DateCell(domain.Date(vals[k]))
		case domain.TypeTimestamp:
			return domain.Text(RenderTimestamp(vals[k]))
		}
		return domain.Int(vals[k])
	}
	s.lazily(d, len(vals), int64(8*len(vals)), cell, func() []int32 { return RankOf(len(vals), func(a, b int) bool { return vals[a] < vals[b] }) })
	return s, nil
}

// distinctByMap numbers the values key gives for the valid rows of d's
// column, in the order first met: codes[r] is 1 + the value's place in the
// list it returns, 0 for a null. The map and the list are reserved to d as
// they grow, at what a value may take in them at most (the map's slot at
// its lowest load, the list with its spare room and its copy), and given
// back at the end: a column of many distinct values is refused the working
// set (the question then streams) instead of passing it unaccounted. What
// the list keeps is the caller's to account.
func distinctByMap[K comparable](ctx context.Context, d *Derived, codes []int32, key func(r int32) K) ([]K, error) {
	c := d.col
	var zero K
	size := int64(unsafe.Sizeof(zero))
	per := ((size+4+7)&^7+1)*16/7 + 3*size
	seen := map[K]int32{}
	var vals []K
	room, held := 0, int64(0)
	defer func() { d.unreserve(held) }()
	for r := 0; r < c.N; r++ {
		if r%CheckEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !c.IsValid(int32(r)) {
			continue
		}
		v := key(int32(r))
		k, ok := seen[v]
		if !ok {
			if len(vals) == room {
				step := max(room/4, 1<<12) // a quarter more: reserved at most that past the need
				if err := d.reserve(int64(step) * per); err != nil {
					return nil, err
				}
				room, held = room+step, held+int64(step)*per
			}
			vals = append(vals, v)
			k = int32(len(vals))
			seen[v] = k
		}
		codes[r] = k
	}
	return vals, nil
}

// spanNullCodes codes a 32-bit integer column by offset, as spanCodes
// lends one with no null: codes[r] is its value less the least plus one,
// 0 for a null, when the values span at most four times its rows; false
// (the codes untouched) otherwise. A text column cached as numbers
// (number.Builder) that holds a null is coded so: a map of its millions
// of numbers would take far more than the codes.
func spanNullCodes(ctx context.Context, d *Derived, c *Column, s *CodeSet) (bool, error) {
	vals := c.Ints32[:c.N]
	lo, hi := int64(math.MaxInt32), int64(math.MinInt32)
	for r, v := range vals {
		if c.IsValid(int32(r)) {
			lo, hi = min(lo, int64(v)), max(hi, int64(v))
		}
	}
	span := hi - lo + 1
	if lo > hi || span > 4*int64(c.N)+1024 || s.Codes == nil {
		return false, nil
	}
	for r, v := range vals {
		if r%CheckEvery == 0 && ctx.Err() != nil {
			return false, ctx.Err()
		}
		if c.IsValid(int32(r)) {
			s.Codes[r] = int32(int64(v) - lo + 1)
		}
	}
	s.lazily(d, int(span), 0, func(k int) domain.Cell { return domain.Int(lo + int64(k)) }, func() []int32 {
		ord := make([]int32, span) // the values in order: the codes are
		for k := range ord {
			ord[k] = int32(k)
		}
		return ord
	})
	return true, nil
}

// RankOf returns the ascending rank of each of n items ordered by less.
func RankOf(n int, less func(a, b int) bool) []int32 {
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

// ColumnIDs numbers columns, so per-batch caches (dictMap) can tell one
// batch's dictionary from the next without comparing addresses the
// collector may reuse.
var ColumnIDs atomic.Uint64

// ChunkRows is the most rows one batch holds: small enough that a worker
// checks the context within milliseconds, large enough that per-batch
// overhead vanishes.
const ChunkRows = 1 << 16

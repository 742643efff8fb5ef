package column

import (
	"math"
	"slices"
	"sutura.dev/exec-arrow/internal/grow"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/i128"
)

// ArrayAppender is the optional ability of a builder to take a whole
// Arrow array of its own type in one step, without converting value by
// value. Parquet columns arrive as such arrays, so a cold read costs
// little more than decoding the file.
type ArrayAppender interface {
	// appendArray appends arr and reports true, or reports false when
	// arr's type needs the value-by-value conversion.
	AppendArray(arr arrow.Array) bool
}

func (b *IntBuilder) AppendArray(arr arrow.Array) bool {
	a, ok := arr.(*array.Int64)
	if !ok || b.Typ == domain.TypeTimestamp {
		return false
	}
	if !b.check {
		putAll(b, a.Int64Values())
		b.Mask.addArray(arr)
	}
	return true
}

func (b *dateBuilder) AppendArray(arr arrow.Array) bool {
	a, ok := arr.(*array.Date32)
	if !ok {
		return false
	}
	if !b.check {
		putDays(b, a.Date32Values(), 0)
		b.mask.addArray(arr)
	}
	return true
}

func (b *boolBuilder) AppendArray(arr arrow.Array) bool {
	a, ok := arr.(*array.Boolean)
	if !ok {
		return false
	}
	if !b.check {
		for i := 0; i < a.Len(); i++ {
			b.vals.push(a.Value(i))
		}
		b.mask.addArray(arr)
	}
	return true
}

// AppendArray maps a dictionary-encoded text array through its dictionary
// once per chunk instead of hashing every value.
func (b *textBuilder) AppendArray(arr arrow.Array) bool {
	a, ok := arr.(*array.Dictionary)
	if !ok {
		return false
	}
	dict, ok := a.Dictionary().(*array.String)
	if !ok {
		return false
	}
	if b.check {
		return true
	}
	codes := make([]int32, dict.Len())
	for k := range codes {
		codes[k] = -1 // empty text is null
		if dict.IsValid(k) && dict.Value(k) != "" {
			code, ok := b.intern(dict.Value(k))
			if !ok {
				return false // the values, one by one, meet ErrTextTooLarge
			}
			codes[k] = code
		}
	}
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) || codes[a.GetValueIndex(i)] < 0 {
			b.AppendNull()
			continue
		}
		b.put(codes[a.GetValueIndex(i)])
		b.mask.add(true)
	}
	return true
}

// wrap makes an Arrow array of type dt over a builder's values without
// copying them: the builder is done with them, and copying ten million
// values costs more than decoding them did.
func wrap(dt arrow.DataType, values []byte, n int, m *nullMask) arrow.Array {
	var validity *memory.Buffer
	if v := m.validity(); v != nil {
		validity = memory.NewBufferBytes(v)
	}
	data := array.NewData(dt, n, []*memory.Buffer{validity, memory.NewBufferBytes(values)}, nil, m.nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// Reserver is the optional ability of a builder to make room for n more
// values before they arrive, when the reader knows how many there are;
// ReserveBytes is what that room costs it (with the validity a null would
// start), so the room can be metered against the working set before it
// is taken.
type Reserver interface {
	Reserve(n int)
	ReserveBytes(n int) int64
}

// Resetter is the optional ability of a builder to start again empty
// and keep its values' memory, for a caller that builds a column per
// block and drops it before the next: the column Finish returned shares
// that memory and is overwritten by what is appended after Reset. Memory
// a builder takes fresh costs a page fault on first touch, so reuse pays.
// The integer (and timestamp) and date builders have it: the late split
// reuses its time column's, and a worker streaming text blocks its
// columns'.
type Resetter interface {
	Reset()
}

func (b *IntBuilder) Reset() { b.v32, b.Vals = b.v32[:0], b.Vals[:0]; b.Mask.reset() }
func (b *dateBuilder) Reset() {
	b.d16, b.vals, b.based = b.d16[:0], b.vals[:0], false
	b.probed, b.repeated = 0, 0
	b.mask.reset()
}

// widened is a builder's narrow values in a slice of a wider type, with
// the room they had reserved: what a builder that started narrow holds
// once a value does not fit.
func widened[W, N interface{ ~uint8 | ~int32 | ~int64 }](narrow []N) []W {
	out := grow.To([]W(nil), cap(narrow))[:len(narrow)]
	for i, v := range narrow {
		out[i] = W(v)
	}
	return out
}

func (b *IntBuilder) Reserve(n int) {
	if b.narrow {
		b.v32 = grow.To(b.v32, n)
	} else {
		b.Vals = grow.To(b.Vals, n)
	}
	b.Mask.Reserve(n)
}
func (b *floatBuilder) Reserve(n int) { b.vals = grow.To(b.vals, n); b.mask.Reserve(n) }
func (b *dateBuilder) Reserve(n int) {
	if b.narrow {
		b.d16 = grow.To(b.d16, n)
	} else {
		b.vals = grow.To(b.vals, n)
	}
	b.mask.Reserve(n)
}
func (b *boolBuilder) Reserve(n int) { b.vals.grow(n); b.mask.Reserve(n) }
func (b *textBuilder) Reserve(n int) {
	if b.wide {
		b.idx = grow.To(b.idx, n)
	} else {
		b.idx8 = grow.To(b.idx8, n)
	}
	b.mask.Reserve(n)
}
func (b *IntBuilder) ReserveBytes(n int) int64 {
	if b.narrow {
		return 4*int64(n) + maskBytes(n)
	}
	return 8*int64(n) + maskBytes(n)
}
func (b *floatBuilder) ReserveBytes(n int) int64 { return 8*int64(n) + maskBytes(n) }
func (b *dateBuilder) ReserveBytes(n int) int64 {
	if b.narrow {
		return 2*int64(n) + maskBytes(n)
	}
	return 4*int64(n) + maskBytes(n)
}
func (b *boolBuilder) ReserveBytes(n int) int64 { return 2 * maskBytes(n) }
func (b *textBuilder) ReserveBytes(n int) int64 {
	if b.wide {
		return 4*int64(n) + maskBytes(n)
	}
	return int64(n) + maskBytes(n)
}

// ColumnAppender is the optional ability of a builder to take a decoded
// batch column of its declared type whole (a page decoder's: values of
// null rows zero, Valid nil when no row is null, text as indexes into
// its Dict with empty text already null). A cache filled this way holds
// exactly what one filled value by value through AppendArrow holds.
type ColumnAppender interface {
	// AppendColumn appends c's N rows. A value the builder refuses
	// stops it at that value; row is its row within c, and the rows
	// before it are appended.
	AppendColumn(c *Column) (row int, err error)
}

// AppendColumn appends an integer or timestamp batch column.
func (b *IntBuilder) AppendColumn(c *Column) (int, error) {
	if c.Type != b.Typ || !c.HasInts() {
		return 0, ErrNotType{b.Typ}
	}
	if !b.check {
		if c.Ints32 != nil {
			putAll(b, c.Ints32[:c.N])
		} else if b.narrow {
			putAll(b, c.Ints[:c.N])
		} else {
			b.Vals = append(b.Vals, c.Ints[:c.N]...)
		}
		b.Mask.addBits(c.Valid, c.N)
	}
	return 0, nil
}

// AppendColumn appends a float batch column.
func (b *floatBuilder) AppendColumn(c *Column) (int, error) {
	if c.Type != domain.TypeFloat || len(c.Floats) < c.N {
		return 0, ErrNotType{b.typ}
	}
	if !b.check {
		b.vals = append(b.vals, c.Floats[:c.N]...)
		b.mask.addBits(c.Valid, c.N)
	}
	return 0, nil
}

// AppendColumn appends a date batch column.
func (b *dateBuilder) AppendColumn(c *Column) (int, error) {
	if c.Type != domain.TypeDate || !c.HasDays() {
		return 0, ErrNotType{domain.TypeDate}
	}
	if !b.check {
		if c.Days16 != nil {
			putDays(b, c.Days16[:c.N], c.DayBase)
		} else {
			putDays(b, c.Days[:c.N], 0)
		}
		b.mask.addBits(c.Valid, c.N)
	}
	return 0, nil
}

// AppendColumn appends a boolean batch column.
func (b *boolBuilder) AppendColumn(c *Column) (int, error) {
	if c.Type != domain.TypeBoolean || len(c.BoolBits) < (c.N+7)/8 {
		return 0, ErrNotType{domain.TypeBoolean}
	}
	if !b.check {
		from := b.vals.n
		b.vals.pushBits(c.BoolBits, c.N)
		if c.Valid != nil { // a null's value is false
			for i := range c.N {
				if !c.IsValid(int32(i)) {
					bitutil.ClearBit(b.vals.b, from+i)
				}
			}
		}
		b.mask.addBits(c.Valid, c.N)
	}
	return 0, nil
}

// AppendColumn appends a text batch column: a dictionary met again (the
// same column chunk's, by the batch column's ID) is mapped through the
// codes it got the first time, each of its entries interned once; the
// entries of any other dictionary (PLAIN values) are interned as their
// rows use them.
func (b *textBuilder) AppendColumn(c *Column) (int, error) {
	if c.Type != domain.TypeText || !c.Indexed() {
		return 0, ErrNotType{domain.TypeText}
	}
	if b.check {
		return 0, nil
	}
	var codes []int32
	if b.dictID != 0 && c.ID == b.dictID && len(c.Dict) == len(b.dictCodes) {
		codes = b.dictCodes
	} else {
		codes = make([]int32, len(c.Dict))
		for k := range codes {
			codes[k] = -1 // not interned yet
		}
	}
	if len(c.Dict) < aheadDict || c.Idx == nil {
		return b.appendCoding(c, codes)
	}
	if !b.wide {
		b.widen() // a batch of a thousand values: the column's pass a byte
	}
	// Rows are appended with their codes; a value not coded yet is marked
	// -2 and its rows hold that until the batch's new values, in the
	// order the rows meet them, are coded together (internAll looks
	// ahead in a large dictionary). A batch of values all coded is read
	// once.
	start := len(b.idx)
	b.idx = slices.Grow(b.idx, c.N)
	b.fresh = b.fresh[:0]
	for i, k := range c.Idx[:c.N] {
		if !c.IsValid(int32(i)) {
			b.idx = append(b.idx, 0)
			continue
		}
		if codes[k] == -1 {
			codes[k] = -2
			b.fresh = append(b.fresh, k)
		}
		b.idx = append(b.idx, codes[k])
	}
	if len(b.fresh) > 0 {
		b.strs = slices.Grow(b.strs[:0], len(b.fresh))
		for _, k := range b.fresh {
			b.strs = append(b.strs, c.Dict[k])
		}
		b.got = slices.Grow(b.got[:0], len(b.fresh))[:len(b.fresh)]
		n := b.internAll(b.strs, b.got)
		for j, k := range b.fresh[:n] {
			codes[k] = b.got[j]
		}
		clear(b.strs) // no batch's text kept past it
		rows := c.N
		if n < len(b.fresh) {
			// Only the rows before the first of value n's stay, as value
			// by value would have left them.
			for i, k := range c.Idx[:c.N] {
				if k == b.fresh[n] && c.IsValid(int32(i)) {
					rows = i
					break
				}
			}
			b.idx = b.idx[:start+rows]
		}
		for j, code := range b.idx[start:] {
			if code < 0 {
				b.idx[start+j] = codes[c.Idx[j]]
			}
		}
		if n < len(b.fresh) {
			b.mask.addBits(c.Valid, rows)
			return rows, ErrTextTooLarge
		}
	}
	b.mask.addBits(c.Valid, c.N)
	b.dictID, b.dictCodes = c.ID, codes
	return 0, nil
}

// aheadDict is the smallest batch dictionary whose new values
// AppendColumn codes together (internAll): a small one's are coded as
// their rows meet them, in the one pass over the rows, which a second
// pass would slow by a quarter.
const aheadDict = 1024

// appendCoding is AppendColumn of a batch whose values are coded as its
// rows meet them.
func (b *textBuilder) appendCoding(c *Column, codes []int32) (int, error) {
	if c.Idx8 != nil {
		return appendCoded(b, c, c.Idx8[:c.N], codes)
	}
	return appendCoded(b, c, c.Idx[:c.N], codes)
}

// appendCoded is appendCoding over the batch's indexes idx: into the
// builder's byte indexes until a row's code passes a byte, widened from
// that row on.
func appendCoded[I Index](b *textBuilder, c *Column, idx []I, codes []int32) (int, error) {
	r := 0
	var err error
	if !b.wide {
		b.idx8 = slices.Grow(b.idx8, len(idx))
		if r, err = codeRows(b, &b.idx8, c, idx, 0, codes, math.MaxUint8); err == nil && r < len(idx) {
			b.widen() // row r's code passes a byte
		}
	}
	if b.wide && err == nil {
		b.idx = slices.Grow(b.idx, len(idx)-r)
		r, err = codeRows(b, &b.idx, c, idx, r, codes, math.MaxInt32)
	}
	if err != nil {
		b.mask.addBits(c.Valid, r)
		return r, err
	}
	b.mask.addBits(c.Valid, c.N)
	b.dictID, b.dictCodes = c.ID, codes
	return 0, nil
}

// codeRows appends to dst the codes of c's rows from on (their indexes
// idx), interning each value the first time a row meets it, until a row
// whose code passes most. It returns the first row not appended (len(idx)
// when all were), with ErrTextTooLarge when that row's value does not fit
// the dictionary.
func codeRows[O, I Index](b *textBuilder, dst *[]O, c *Column, idx []I, from int, codes []int32, most int32) (int, error) {
	out := *dst
	for r := from; r < len(idx); r++ {
		if !c.IsValid(int32(r)) {
			out = append(out, 0)
			continue
		}
		k := idx[r]
		code := codes[k]
		if code < 0 {
			var ok bool
			if code, ok = b.intern(c.Dict[k]); !ok {
				*dst = out
				return r, ErrTextTooLarge
			}
			codes[k] = code
		}
		if code > most {
			*dst = out
			return r, nil
		}
		out = append(out, O(code))
	}
	*dst = out
	return len(idx), nil
}

// AppendColumn appends a decimal batch column (coefficients in Ints at
// c.Scale): whole when they are at the builder's scale and it holds
// 64-bit coefficients (the decoder checked them against the declared
// precision), value by value through AppendDecimal otherwise.
func (b *DecBuilder) AppendColumn(c *Column) (int, error) {
	if c.Type != domain.TypeDecimal || len(c.Ints) < c.N || c.Dec != nil {
		return 0, ErrNotType{domain.TypeDecimal}
	}
	if b.check {
		return 0, nil
	}
	if c.Scale == b.scale && b.hi == nil {
		b.lo = append(b.lo, c.Ints[:c.N]...)
		b.mask.addBits(c.Valid, c.N)
		return 0, nil
	}
	for i, v := range c.Ints[:c.N] {
		if !c.IsValid(int32(i)) {
			b.AppendNull()
			continue
		}
		if err := b.AppendDecimal(i128.Of(v), c.Scale); err != nil {
			return i, err
		}
	}
	return 0, nil
}

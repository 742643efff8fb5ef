package column

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"sutura.dev/domain"
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

// addArray records arr's validity.
func (m *nullMask) addArray(arr arrow.Array) {
	if arr.NullN() == 0 && m.valid == nil {
		m.n += arr.Len()
		return
	}
	for i := 0; i < arr.Len(); i++ {
		m.add(arr.IsValid(i))
	}
}

// AddValid records n more values, none of them null.
func (m *nullMask) AddValid(n int) {
	if m.valid != nil {
		for range n {
			m.valid = append(m.valid, true)
		}
	}
	m.n += n
}

func (b *IntBuilder) AppendArray(arr arrow.Array) bool {
	a, ok := arr.(*array.Int64)
	if !ok || b.Typ == domain.TypeTimestamp {
		return false
	}
	if !b.check {
		b.Vals = append(b.Vals, a.Int64Values()...)
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
		b.vals = append(b.vals, a.Date32Values()...)
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
			b.vals = append(b.vals, a.Value(i))
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
			codes[k] = b.intern(dict.Value(k))
		}
	}
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) || codes[a.GetValueIndex(i)] < 0 {
			b.AppendNull()
			continue
		}
		b.idx = append(b.idx, codes[a.GetValueIndex(i)])
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
		bits := make([]byte, bitutil.BytesForBits(int64(n)))
		for i, ok := range v {
			if ok {
				bitutil.SetBit(bits, i)
			}
		}
		validity = memory.NewBufferBytes(bits)
	}
	data := array.NewData(dt, n, []*memory.Buffer{validity, memory.NewBufferBytes(values)}, nil, m.nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// Reserver is the optional ability of a builder to make room for n more
// values before they arrive, when the reader knows how many there are;
// rowBytes is what one value costs it, so the room can be metered against
// the working set before it is taken.
type Reserver interface {
	Reserve(n int)
	RowBytes() int64
}

func (m *nullMask) Reserve(n int) {
	if m.valid != nil {
		m.valid = slices.Grow(m.valid, n)
	}
}
func (b *IntBuilder) Reserve(n int)     { b.Vals = slices.Grow(b.Vals, n); b.Mask.Reserve(n) }
func (b *floatBuilder) Reserve(n int)   { b.vals = slices.Grow(b.vals, n); b.mask.Reserve(n) }
func (b *dateBuilder) Reserve(n int)    { b.vals = slices.Grow(b.vals, n); b.mask.Reserve(n) }
func (b *boolBuilder) Reserve(n int)    { b.vals = slices.Grow(b.vals, n); b.mask.Reserve(n) }
func (b *textBuilder) Reserve(n int)    { b.idx = slices.Grow(b.idx, n); b.mask.Reserve(n) }
func (b *IntBuilder) RowBytes() int64   { return 9 }
func (b *floatBuilder) RowBytes() int64 { return 9 }
func (b *dateBuilder) RowBytes() int64  { return 5 }
func (b *boolBuilder) RowBytes() int64  { return 2 }
func (b *textBuilder) RowBytes() int64  { return 5 }

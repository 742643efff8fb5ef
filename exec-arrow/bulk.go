package engine

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"sutura.dev/domain"
)

// arrayAppender is the optional ability of a builder to take a whole
// Arrow array of its own type in one step, without converting value by
// value. Parquet columns arrive as such arrays, so a cold read costs
// little more than decoding the file.
type arrayAppender interface {
	// appendArray appends arr and reports true, or reports false when
	// arr's type needs the value-by-value conversion.
	appendArray(arr arrow.Array) bool
}

// addArray records arr's validity.
func (m *nullMask) addArray(arr arrow.Array) {
	n := arr.Len()
	start := len(m.valid)
	m.valid = append(m.valid, make([]bool, n)...)
	valid := m.valid[start:]
	if arr.NullN() == 0 {
		for i := range valid {
			valid[i] = true
		}
		return
	}
	for i := range valid {
		valid[i] = arr.IsValid(i)
	}
	m.nulls += arr.NullN()
}

func (b *intBuilder) appendArray(arr arrow.Array) bool {
	a, ok := arr.(*array.Int64)
	if !ok || b.typ == domain.TypeTimestamp {
		return false
	}
	if !b.check {
		b.vals = append(b.vals, a.Int64Values()...)
		b.mask.addArray(arr)
	}
	return true
}

func (b *dateBuilder) appendArray(arr arrow.Array) bool {
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

func (b *boolBuilder) appendArray(arr arrow.Array) bool {
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

// appendArray maps a dictionary-encoded text array through its dictionary
// once per chunk instead of hashing every value.
func (b *textBuilder) appendArray(arr arrow.Array) bool {
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
			b.appendNull()
			continue
		}
		b.idx = append(b.idx, codes[a.GetValueIndex(i)])
		b.mask.add(true)
	}
	return true
}

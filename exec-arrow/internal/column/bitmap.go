package column

import (
	"slices"
	"sutura.dev/exec-arrow/internal/grow"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// bitmap is a growing run of bits in Arrow's layout (bit i of a byte is
// value 8k+i): a builder's validity or boolean values, an eighth of a
// byte a value, handed to the column it finishes without a copy. Its
// bytes cover exactly its n bits, and the bits past n are zero.
type bitmap struct {
	b []byte
	n int
}

// bitBytes is the bytes n bits take.
func bitBytes(n int) int { return (n + 7) >> 3 }

// grow makes room for n more bits.
func (m *bitmap) grow(n int) {
	m.b = grow.To(m.b, bitBytes(m.n+n)-len(m.b))
}

// push appends v.
func (m *bitmap) push(v bool) {
	if m.n&7 == 0 {
		m.b = append(m.b, 0)
	}
	m.b[m.n>>3] |= byte(BitOf(v)) << (m.n & 7)
	m.n++
}

// pushN appends n bits of v.
func (m *bitmap) pushN(v bool, n int) {
	m.b = grown(m.b, bitBytes(m.n+n)-len(m.b))
	if v {
		bitutil.SetBitsTo(m.b, int64(m.n), int64(n), true)
	}
	m.n += n
}

// pushBits appends the first n bits of src.
func (m *bitmap) pushBits(src []byte, n int) {
	m.b = grown(m.b, bitBytes(m.n+n)-len(m.b))
	bitutil.CopyBitmap(src, 0, n, m.b, m.n)
	m.n += n
}

// get reports bit i.
func (m *bitmap) get(i int) bool { return bitutil.BitIsSet(m.b, i) }

// nullMask records validity while building; shared by the typed builders.
// The bitmap starts at the first null, as most columns have none.
type nullMask struct {
	n     int    // values recorded
	valid bitmap // per value, once has
	has   bool
	nulls int
	room  int // values reserved for (see Reserve): the capacity valid starts with
}

// maskBytes is the room the validity of n values takes, metered with a
// builder's values in case a null comes.
func maskBytes(n int) int64 { return int64(bitBytes(n)) }

// firstNull starts valid at the first null, with room for the values
// reserved, or for more values.
func (m *nullMask) firstNull(more int) {
	room := m.room
	if room < m.n+more {
		room = max(m.n+more, 2*m.n)
	}
	m.valid = bitmap{b: make([]byte, 0, bitBytes(room))}
	m.valid.pushN(true, m.n)
	m.has = true
}

func (m *nullMask) add(ok bool) {
	if !ok && !m.has {
		m.firstNull(1)
	}
	if m.has {
		m.valid.push(ok)
	}
	m.n++
	if !ok {
		m.nulls++
	}
}

// isValid reports whether value i is present.
func (m *nullMask) isValid(i int) bool { return !m.has || m.valid.get(i) }

// validity is the validity bitmap in Arrow's layout, nil when no value is
// null; a column keeps it, so room grown past an eighth more than it
// uses is given back (a copy of an eighth of a byte a row).
func (m *nullMask) validity() []byte {
	if m.nulls == 0 {
		return nil
	}
	if b := m.valid.b; cap(b)-len(b) > len(b)/8 {
		m.valid.b = slices.Clip(slices.Clone(b))
	}
	return m.valid.b
}

// size is the bytes the mask holds.
func (m *nullMask) size() int64 { return int64(len(m.valid.b)) }

// addNulls records n nulls.
func (m *nullMask) addNulls(n int) {
	if !m.has {
		m.firstNull(n)
	}
	m.valid.pushN(false, n)
	m.n += n
	m.nulls += n
}

// AddValid records n more values, none of them null.
func (m *nullMask) AddValid(n int) {
	if m.has {
		m.valid.pushN(true, n)
	}
	m.n += n
}

// addArray records arr's validity.
func (m *nullMask) addArray(arr arrow.Array) {
	if arr.NullN() == 0 && !m.has {
		m.n += arr.Len()
		return
	}
	for i := 0; i < arr.Len(); i++ {
		m.add(arr.IsValid(i))
	}
}

// addBits records the validity of n values from a bitmap (nil: all
// valid).
func (m *nullMask) addBits(valid []byte, n int) {
	nulls := 0
	if valid != nil {
		nulls = n - bitutil.CountSetBits(valid, 0, n)
	}
	if nulls == 0 {
		m.AddValid(n)
		return
	}
	if !m.has {
		m.firstNull(n)
	}
	m.valid.pushBits(valid, n)
	m.n += n
	m.nulls += nulls
}

// reset forgets the values recorded; a validity bitmap made again at the
// next null takes the room the last one had.
func (m *nullMask) reset() {
	m.room = max(m.room, 8*cap(m.valid.b))
	m.n, m.nulls, m.valid, m.has = 0, 0, bitmap{}, false
}

// Reserve makes room for n more values' validity: now when a null was
// seen, else at the first null, if any (the builders meter that room with
// their values, maskBytes).
func (m *nullMask) Reserve(n int) {
	if m.has {
		m.valid.grow(n)
		return
	}
	m.room = max(m.room, m.n+n)
}

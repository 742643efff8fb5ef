package column

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

// TestIntegersNarrowThenWide: an integer column's values take four
// bytes while every one fits 32 bits and eight from the first that does
// not, value by value, from Arrow arrays and from batch columns of
// either width, keeping and metering the room reserved; a timestamp's
// take eight from the start.
func TestIntegersNarrowThenWide(t *testing.T) {
	b := NewBuilder(domain.TypeInteger, false).(*IntBuilder)
	b.Reserve(100)
	require.Equal(t, int64(400+13), b.ReserveBytes(100))
	require.NoError(t, b.AppendInt(math.MaxInt32))
	require.NoError(t, b.AppendInt(math.MinInt32))
	b.AppendNull()
	_, err := b.AppendColumn(&Column{Type: domain.TypeInteger, N: 2, Ints32: []int32{5, -5}})
	require.NoError(t, err)
	require.True(t, b.narrow)
	require.Equal(t, 100, cap(b.v32), "the room reserved")
	before := b.Size()
	ab := array.NewInt64Builder(memory.DefaultAllocator)
	ab.AppendValues([]int64{6, math.MaxInt32 + 1, 7}, nil)
	require.True(t, b.AppendArray(ab.NewArray()))
	require.False(t, b.narrow)
	require.Equal(t, 100, cap(b.Vals), "the room reserved, kept")
	require.Equal(t, before+4*5+8*3+4*(100-8), b.Size(), "the room left metered at its new width")
	_, err = b.AppendColumn(&Column{Type: domain.TypeInteger, N: 1, Ints32: []int32{9}})
	require.NoError(t, err)
	c := b.Finish("i")
	require.Nil(t, c.Ints32)
	want := []int64{math.MaxInt32, math.MinInt32, 0, 5, -5, 6, math.MaxInt32 + 1, 7, 9}
	require.Equal(t, want, c.Ints)
	require.False(t, c.IsValid(2))

	small := NewBuilder(domain.TypeInteger, false)
	_, err = small.(ColumnAppender).AppendColumn(&Column{Type: domain.TypeInteger, N: 3, Ints: []int64{1, -2, 3}})
	require.NoError(t, err)
	c = small.Finish("i")
	require.Nil(t, c.Ints)
	require.Equal(t, []int32{1, -2, 3}, c.Ints32)
	require.Equal(t, arrow.PrimitiveTypes.Int32, c.Arr.DataType())
	require.Equal(t, int64(-2), c.Int(1))
	require.Equal(t, domain.Cell(domain.Int(3)), c.Cell(2))

	ts := NewBuilder(domain.TypeTimestamp, false).(*IntBuilder)
	require.Equal(t, int64(800+13), ts.ReserveBytes(100))
	require.NoError(t, ts.AppendMicros(1))
	require.NotNil(t, ts.Finish("t").Ints)
}

// TestDatesNarrowThenWide: a date column's days take two bytes, offsets
// from a base 32,768 days before its first, and four from the first day
// past them (either side), value by value and from batch columns of
// either width, keeping and metering the room reserved; nulls before the
// first day and after the widening stay null.
func TestDatesNarrowThenWide(t *testing.T) {
	b := NewBuilder(domain.TypeDate, false).(*dateBuilder)
	b.Reserve(100)
	require.Equal(t, int64(200+13), b.ReserveBytes(100))
	b.AppendNull()
	require.NoError(t, b.AppendDate(20_000))
	require.NoError(t, b.AppendDate(20_000-32_768))
	require.NoError(t, b.AppendDate(20_000+32_767))
	_, err := b.AppendColumn(&Column{Type: domain.TypeDate, N: 2, Days16: []uint16{0, 10}, DayBase: 20_000})
	require.NoError(t, err)
	require.True(t, b.narrow)
	require.Equal(t, 100, cap(b.d16), "the room reserved")
	before := b.Size()
	_, err = b.AppendColumn(&Column{Type: domain.TypeDate, N: 3, Days: []arrow.Date32{19_000, -40_000, 5}})
	require.NoError(t, err)
	require.False(t, b.narrow, "a day 60,000 before the first widens")
	require.Equal(t, 100, cap(b.vals), "the room reserved, kept")
	require.Equal(t, before+2*6+4*3+2*(100-9)+1, b.Size(), "the room left metered at its new width (and a ninth bit of validity)")
	b.AppendNull()
	c := b.Finish("d")
	require.Nil(t, c.Days16)
	want := []int32{0, 20_000, 20_000 - 32_768, 20_000 + 32_767, 20_000, 20_010, 19_000, -40_000, 5, 0}
	for r, d := range want {
		if r == 0 || r == len(want)-1 {
			require.False(t, c.IsValid(int32(r)), "row %d", r)
			continue
		}
		require.Equal(t, d, c.Day(int32(r)), "row %d", r)
	}

	small := NewBuilder(domain.TypeDate, false)
	for _, s := range []string{"2024-01-01", "1970-01-01", "2100-12-31"} {
		require.NoError(t, small.AppendText(s))
	}
	c = small.Finish("d")
	require.Nil(t, c.Days)
	require.Len(t, c.Days16, 3)
	require.Equal(t, "1970-01-01", c.Cell(1).Render())
	require.Equal(t, "2100-12-31", c.Cell(2).Render())
	require.Equal(t, DayZone{Min: 0, Max: c.Day(2)}, ZoneOf(c, 0, 3))
}

// TestDaysFit16AgreesWithTheBuilder: days at most 32,767 apart stay two
// bytes each in whatever order the builder meets them, as DaysFit16
// says; one day more widens them when the first day met is the earliest,
// so the bound cannot be wider.
func TestDaysFit16AgreesWithTheBuilder(t *testing.T) {
	const lo = int32(-40_000)
	for _, span := range []int32{0, 1, 1<<15 - 1, 1 << 15, 1<<16 + 5} {
		for k, order := range [][]int32{{lo, lo + span}, {lo + span, lo}, {lo + span/2, lo, lo + span}} {
			b := NewBuilder(domain.TypeDate, false)
			for _, d := range order {
				require.NoError(t, b.AppendDate(d))
			}
			c := b.Finish("d")
			switch {
			case DaysFit16(lo, lo+span):
				assert.NotNil(t, c.Days16, "span %d, order %v: narrow", span, order)
			case k == 0:
				assert.Nil(t, c.Days16, "span %d, earliest first: wide", span)
			}
			for i, d := range order {
				require.Equal(t, d, c.Day(int32(i)))
			}
		}
	}
	assert.True(t, DaysFit16(1, 0), "no day at all fits")
}

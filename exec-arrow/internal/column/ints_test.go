package column

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
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

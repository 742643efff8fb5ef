package i128

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func big128(t *testing.T, s string) Int {
	v, ok := new(big.Int).SetString(s, 10)
	require.True(t, ok)
	x, ok := FromBig(v)
	require.True(t, ok)
	return x
}

// TestI128: 38 digits fit and 39 do not; sums past 64 bits and past
// 127 are told; comparisons across scales are exact.
func TestI128(t *testing.T) {
	max38 := big128(t, "99999999999999999999999999999999999999")
	assert.True(t, max38.Fits())
	_, ok := max38.MulPow10(1)
	assert.False(t, ok, "39 digits")
	v, ok := big128(t, "-12345").MulPow10(30)
	require.True(t, ok)
	assert.Equal(t, "-12345000000000000000000000000000000", v.Big().String())
	_, ok = big128(t, "12345").MulPow10(34)
	assert.False(t, ok)

	sum := Of(-1).AddInt64(-9223372036854775808)
	assert.Equal(t, "-9223372036854775809", sum.Big().String())
	assert.False(t, sum.IsInt64())
	top := Int{Lo: ^uint64(0), Hi: 1<<63 - 1}
	_, ok = top.Add(Of(1))
	assert.False(t, ok, "past 2^127")
	assert.Equal(t, -1, Of(-5).Cmp(Of(3)))
	assert.Equal(t, 1, CompareScaled(Of(15), 1, Of(1), 0))
	assert.Equal(t, 0, CompareScaled(Of(150), 2, Of(15), 1))
	assert.Equal(t, "-0.05", Of(-5).Cell(2).Render())
}

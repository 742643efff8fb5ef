package exact

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/i128"
)

// TestTwoSumRowsWithinOneRounding: small values added to a large one,
// which a plain sum loses one by one, summed in two orders by
// TwoSumRows (two lanes) and by TwoSum one at a time, are the exact sum
// rounded once; a plain sum of the same values is not.
func TestTwoSumRowsWithinOneRounding(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	vals := []float64{1e16}
	for range 10_000 {
		vals = append(vals, 0.1+rng.Float64()*0.5, -3e-4)
	}
	vals = append(vals, 7)
	exactSum := new(big.Float).SetPrec(2_000)
	plain := 0.0
	for _, v := range vals {
		exactSum.Add(exactSum, new(big.Float).SetPrec(2_000).SetFloat64(v))
		plain += v
	}
	want, _ := exactSum.Float64()
	rows := make([]int32, len(vals))
	for i := range rows {
		rows[i] = int32(i)
	}
	s, c := TwoSumRows(0, 0, vals, rows)
	assert.Equal(t, want, s+c, "two lanes")
	for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
		rows[i], rows[j] = rows[j], rows[i]
	}
	s, c = TwoSumRows(0, 0, vals, rows)
	assert.Equal(t, want, s+c, "the other order")
	s, c = 0, 0
	for _, v := range vals {
		s, c = TwoSum(s, c, v)
	}
	assert.Equal(t, want, s+c, "one at a time")
	assert.NotEqual(t, want, plain, "the values must defeat a plain sum, or the test proves nothing")
}

// TestDecimalsAcrossScales: batches at two scales sum, keep their minima
// and maxima and merge at the finer scale, exactly; a sum past 38 digits
// has no value.
func TestDecimalsAcrossScales(t *testing.T) {
	col := func(scale int32, vals ...int64) *column.Column {
		return &column.Column{N: len(vals), Ints: vals, Scale: scale}
	}
	rows := []int32{0, 1, 2}
	gids := []int32{0, 1, 0}
	var sum Decimals
	sum.Grow(2)
	sum.Sum(col(1, 15, -7, 20), rows, gids, false, false)   // 1.5, -0.7, 2.0
	sum.Sum(col(3, 1, 2, 3), rows, gids, false, false)      // 0.001, 0.002, 0.003
	sum.Sum(col(2, 100, 0, 1), rows[:1], gids, false, true) // 1.00 in group 0
	x, sc, ok := sum.Value(0)
	require.True(t, ok)
	assert.Equal(t, "4.504", x.Cell(sc).Render(), "1.5 + 2.0 + 0.001 + 0.003 + 1.00")
	x, sc, ok = sum.Value(1)
	require.True(t, ok)
	assert.Equal(t, "-0.698", x.Cell(sc).Render())

	var most, merged Decimals
	most.Grow(1)
	n := []int64{0}
	most.MinMax(col(2, 150, 999, -3), rows, []int32{0, 0, 0}, n, true)
	assert.Equal(t, int64(3), n[0])
	merged.Grow(1)
	merged.MergeMinMax(&most, 0, 0, true, true)
	other := Decimals{}
	other.Grow(1)
	other.MinMax(col(4, 99_901), rows[:1], gids, []int64{0}, true) // 9.9901
	merged.MergeMinMax(&other, 0, 0, false, true)
	x, sc, ok = merged.Value(0)
	require.True(t, ok)
	assert.Equal(t, "9.9901", x.Cell(sc).Render())

	var big Decimals
	big.Grow(1)
	huge := i128.Pow10(37)
	for range 20 {
		big.MergeSum(&Decimals{v: []i128.Int{huge}, scaled: true}, 0, 0)
	}
	_, _, ok = big.Value(0)
	assert.False(t, ok, "2 × 10^38 has no value in 38 digits")
}

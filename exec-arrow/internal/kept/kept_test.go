package kept_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/exec-arrow/internal/kept"
)

// TestFlagsCountedExtremesTaken: Fill sets every flag, Count counts them
// at any length, Buckets counts kept rows per bucket, and ExtremeOne and
// Extreme take the minimum and maximum of the kept values alone (none
// when none is kept), against the values one by one.
func TestFlagsCountedExtremesTaken(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 7, 8, 9, 1_000, 4_099} {
		f := make([]uint8, n)
		kept.Fill(f)
		assert.Equal(t, int64(n), kept.Count(f), "length %d", n)
		for i := range f {
			f[i] = uint8(rng.IntN(2))
		}
		var want int64
		for _, k := range f {
			want += int64(k)
		}
		assert.Equal(t, want, kept.Count(f), "length %d", n)
	}
	const n = 3_000
	vals, keep, bucket := make([]int64, n), make([]uint8, n), make([]int32, n)
	days := make([]uint16, n)
	for i := range vals {
		vals[i], keep[i] = rng.Int64N(1_000_000)-500_000, uint8(rng.IntN(3)/2)
		days[i] = uint16(100 + rng.IntN(21))
	}
	of := make([]int32, 21)
	for d := range of {
		of[d] = int32(d / 7)
	}
	hc := make([]int64, 3)
	kept.Buckets(bucket, hc, days, 100, of, keep)
	wantHC := make([]int64, 3)
	lows, highs := []int64{math.MaxInt64, math.MaxInt64, math.MaxInt64}, []int64{math.MinInt64, math.MinInt64, math.MinInt64}
	low, high := int64(math.MaxInt64), int64(math.MinInt64)
	for i, v := range vals {
		b := of[days[i]-100]
		require.Equal(t, b, bucket[i])
		if keep[i] == 1 {
			wantHC[b]++
			lows[b], highs[b] = min(lows[b], v), max(highs[b], v)
			low, high = min(low, v), max(high, v)
		}
	}
	assert.Equal(t, wantHC, hc)
	assert.Equal(t, low, kept.ExtremeOne(vals, keep, math.MaxInt64, false))
	assert.Equal(t, high, kept.ExtremeOne(vals, keep, math.MinInt64, true))
	assert.Equal(t, int64(math.MinInt64), kept.ExtremeOne(vals, make([]uint8, n), math.MinInt64, true), "none kept")
	hs := []int64{math.MaxInt64, math.MaxInt64, math.MaxInt64}
	kept.Extreme(hs, vals, bucket, keep, math.MaxInt64, false)
	assert.Equal(t, lows, hs)
	hs = []int64{math.MinInt64, math.MinInt64, math.MinInt64}
	kept.Extreme(hs, vals, bucket, keep, math.MinInt64, true)
	assert.Equal(t, highs, hs)
}

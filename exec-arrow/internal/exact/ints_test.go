package exact_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/exec-arrow/internal/exact"
)

// TestIntegerSumsAsRowByRow: each integer sum equals the kept values
// added one by one in int64, and tells an overflow exactly when an
// addition passes int64 — in a register (SumKeptOne), per bucket
// (SumKept), under one metric's mask bit (SumMasked) and per group and
// mask combination (SumCombos, whose masks holding a metric add up to
// SumMasked's sum).
func TestIntegerSumsAsRowByRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	const n, groups, metrics = 5_000, 3, 3
	vals := make([]int64, n)
	keep := make([]uint8, n)
	bucket, rows, gids := make([]int32, n), make([]int32, n/2), make([]int32, n/2)
	mask := make([]uint64, n/2)
	for i := range vals {
		vals[i] = rng.Int64N(2_000_001) - 1_000_000
		keep[i] = uint8(rng.IntN(2))
		bucket[i] = int32(rng.IntN(groups))
	}
	for k := range rows {
		rows[k], gids[k], mask[k] = int32(2*k+rng.IntN(2)), int32(rng.IntN(groups)), uint64(rng.IntN(1<<metrics))
	}

	var want int64
	wantBy := make([]int64, groups)
	for i, v := range vals {
		if keep[i] == 1 {
			want += v
			wantBy[bucket[i]] += v
		}
	}
	got, ovf := exact.SumKeptOne(vals, keep)
	assert.Equal(t, want, got)
	assert.GreaterOrEqual(t, ovf, int64(0), "no overflow")
	by := make([]int64, groups)
	assert.GreaterOrEqual(t, exact.SumKept(by, vals, bucket, keep), int64(0))
	assert.Equal(t, wantBy, by)

	combos := make([]int64, groups<<metrics)
	assert.GreaterOrEqual(t, exact.SumCombos(combos, vals, rows, gids, mask, metrics), int64(0))
	for m := range metrics {
		want := make([]int64, groups)
		for k, r := range rows {
			if mask[k]>>m&1 == 1 {
				want[gids[k]] += vals[r]
			}
		}
		got := make([]int64, groups)
		assert.GreaterOrEqual(t, exact.SumMasked(got, vals, rows, gids, mask, m), int64(0))
		assert.Equal(t, want, got, "metric %d", m)
		fromCombos := make([]int64, groups)
		for g := range groups {
			for mk := range 1 << metrics {
				if mk>>m&1 == 1 {
					fromCombos[g] += combos[g<<metrics|mk]
				}
			}
		}
		assert.Equal(t, want, fromCombos, "metric %d from its combinations", m)
	}

	// Two kept values that pass int64 together: told by each sum; the
	// same two with one not kept: not told.
	big := []int64{math.MaxInt64 - 5, 10, -3}
	_, ovf = exact.SumKeptOne(big, []uint8{1, 1, 1})
	assert.Negative(t, ovf, "an addition passed int64")
	s, ovf := exact.SumKeptOne(big, []uint8{1, 0, 1})
	assert.GreaterOrEqual(t, ovf, int64(0))
	assert.Equal(t, int64(math.MaxInt64-8), s)
	require.Negative(t, exact.SumKept(make([]int64, 1), big, []int32{0, 0, 0}, []uint8{1, 1, 0}))
	require.Negative(t, exact.SumMasked(make([]int64, 1), big, []int32{0, 1}, []int32{0, 0}, []uint64{1, 1}, 0))
	require.Negative(t, exact.SumCombos(make([]int64, 2), big, []int32{0, 1}, []int32{0, 0}, []uint64{1, 1}, 1))
	_, o := exact.AddInt(math.MinInt64, -1)
	require.Negative(t, o)
}

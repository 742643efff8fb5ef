package exact

import "sutura.dev/exec-arrow/internal/column"

// Integer sums are exact in any order while no addition passes int64;
// each loop here returns the overflow bits of its additions (AddInt's),
// which a sum ORs and is refused for when any is set, never wrapped.

// AddInt is a+v and, in the sign bit of its second result, whether the
// addition passed int64 (both operands' signs differ from the sum's). An
// integer sum ORs these and is refused when any is set, never wrapped.
func AddInt(a, v int64) (sum, overflow int64) {
	sum = a + v
	return sum, (a ^ sum) & (v ^ sum)
}

// SumKept adds vals[i] to sums[bucket[i]] where keep[i] is 1, and
// returns the overflow bits of the additions.
func SumKept[T column.Integer](sums []int64, vals []T, bucket []int32, keep []uint8) int64 {
	var ovf int64
	for i, v := range vals {
		var o int64
		sums[bucket[i]], o = AddInt(sums[bucket[i]], int64(v)&-int64(keep[i]))
		ovf |= o
	}
	return ovf
}

// SumKeptOne is SumKept of a batch in one bucket: the sum of vals[i]
// where keep[i] is 1, and the overflow bits of the additions. Not inlined:
// inside the direct kernel its sum lived on the stack.
//
//go:noinline
func SumKeptOne[T column.Integer](vals []T, keep []uint8) (sum, ovf int64) {
	keep = keep[:len(vals)]
	for i, v := range vals {
		var o int64
		sum, o = AddInt(sum, int64(v)&-int64(keep[i]))
		ovf |= o
	}
	return sum, ovf
}

// SumMasked adds vals[rows[k]] to sums[gids[k]] where mask[k] holds
// metric m, and returns the overflow bits of the additions.
func SumMasked[T column.Integer](sums []int64, vals []T, rows, gids []int32, mask []uint64, m int) int64 {
	var ovf int64
	for k, r := range rows {
		g := gids[k]
		var o int64
		sums[g], o = AddInt(sums[g], int64(vals[r])&-int64(mask[k]>>m&1))
		ovf |= o
	}
	return ovf
}

// SumCombos adds vals[rows[k]] to sums[gids[k]<<nm|mask[k]] and returns
// the overflow bits of the additions.
func SumCombos[T column.Integer](sums []int64, vals []T, rows, gids []int32, mask []uint64, nm int) int64 {
	var ovf int64
	for k, r := range rows {
		i := int(gids[k])<<nm | int(mask[k])
		var o int64
		sums[i], o = AddInt(sums[i], int64(vals[r]))
		ovf |= o
	}
	return ovf
}

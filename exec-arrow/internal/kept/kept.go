// Package kept holds the loops over a batch's rows flagged by keep
// bytes, one per row, 1 when the row counts and 0 when it does not, as
// the direct kernel aggregates them (docs/architecture.md): flags set and
// counted, kept rows counted per bucket, and the minimum or maximum of
// the kept values. Each runs without a branch a
// row: the rows a filter keeps, and the times of rows in no order, would
// make every branch a coin toss.
package kept

import (
	"encoding/binary"
	"math/bits"

	"sutura.dev/exec-arrow/internal/column"
)

// Fill sets every byte of b to 1, by copies that double: a loop a byte at
// a time was a sixth of the direct kernel.
func Fill(b []uint8) {
	if len(b) == 0 {
		return
	}
	b[0] = 1
	for n := 1; n < len(b); n *= 2 {
		copy(b[n:], b[:n])
	}
}

// Count is how many of b's bytes (each 0 or 1) are 1, eight at a time.
func Count(b []uint8) int64 {
	var c int
	for len(b) >= 8 {
		c += bits.OnesCount64(binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	for _, k := range b {
		c += int(k)
	}
	return int64(c)
}

// Buckets sets bucket[i] to the bucket of day days[i] (of[day - start]),
// every day in the range, and counts in hc the kept rows of each bucket.
func Buckets[D column.DayValue](bucket []int32, hc []int64, days []D, start int32, of []int32, keep []uint8) {
	for i, d := range days {
		bk := of[int32(d)-start]
		bucket[i] = bk
		hc[bk] += int64(keep[i])
	}
}

// ExtremeOne is the minimum (isMax: maximum) of vals[i] where keep[i] is
// 1, none when none is; a row left out counts as none.
//
//go:noinline
func ExtremeOne[T column.Integer](vals []T, keep []uint8, none int64, isMax bool) int64 {
	keep = keep[:len(vals)]
	m := none
	if isMax {
		for i, v := range vals {
			k := -int64(keep[i]) // all ones when kept
			m = max(m, int64(v)&k|none&^k)
		}
		return m
	}
	for i, v := range vals {
		k := -int64(keep[i])
		m = min(m, int64(v)&k|none&^k)
	}
	return m
}

// Extreme is ExtremeOne per bucket: hs[bucket[i]] takes vals[i] where
// keep[i] is 1.
func Extreme[T column.Integer](hs []int64, vals []T, bucket []int32, keep []uint8, none int64, isMax bool) {
	for i, v := range vals {
		k := -int64(keep[i])
		x, bk := int64(v)&k|none&^k, bucket[i]
		if isMax {
			hs[bk] = max(hs[bk], x)
		} else {
			hs[bk] = min(hs[bk], x)
		}
	}
}

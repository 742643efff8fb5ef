package column

import (
	"cmp"
	"math"

	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// DayZone is the smallest and largest day of one segment of a time column
// (nulls ignored). A segment with no value has min > max.
type DayZone struct{ Min, Max int32 }

// Within reports whether the zone holds a day and all its days are in
// [first, end).
func (z DayZone) Within(first, end int32) bool {
	return z.Min <= z.Max && z.Min >= first && z.Max < end
}

// Zones returns the day range of every segment of a cached date or
// timestamp column, computed once per column. Questions read a bounded
// range, and tables are usually stored roughly in time order, so whole
// segments outside the range are skipped without touching their rows, as
// Parquet row-group statistics skip row groups when the table is streamed.
func (d *Derived) Zones(segs []Segment) []DayZone {
	d.zoneOnce.Do(func() {
		z := make([]DayZone, len(segs))
		for k, s := range segs {
			z[k] = ZoneOf(d.col, s.Lo, s.Hi)
		}
		d.zoneList = z
	})
	return d.zoneList
}

// Segment is a run of a table's rows that is read, cached and scanned as
// one batch: at most ChunkRows rows of one Parquet row group, or one block
// of ChunkRows rows of a CSV or NDJSON part. group numbers the row group
// (or block) across the table's parts, in file order.
//
// Every producer gives group g to worker g mod P (P is Config.Parallelism)
// and each worker reads its groups in order, so a question sums its rows
// in the same order, and gets the same bits, whether they come from the
// files or from the cache.
type Segment struct{ Lo, Hi, Group int }

// ZoneOf is the day range of rows [lo, hi) of a time column.
func ZoneOf(c *Column, lo, hi int) DayZone {
	if c.Days16 != nil {
		return dayZone(c.Days16[lo:hi], c.DayBase, c.Valid, lo)
	}
	if c.Days != nil {
		return dayZone(c.Days[lo:hi], 0, c.Valid, lo)
	}
	z := DayZone{Min: 1<<31 - 1, Max: -1 << 31}
	// A day is a monotonic function of a time: the extremes of the times
	// give the zone's.
	lowest, highest, seen := int64(math.MaxInt64), int64(math.MinInt64), false
	if c.Valid == nil {
		for _, us := range c.Ints[lo:hi] {
			lowest, highest = min(lowest, us), max(highest, us)
		}
		seen = hi > lo
	} else {
		lowest, highest, seen = extremesValid(c.Ints[lo:hi], c.Valid, lo)
	}
	if seen {
		z.Min, z.Max = DayOfMicros(lowest), DayOfMicros(highest)
	}
	return z
}

// ChunkStats are a column chunk's statistics as a filter reads them: its
// smallest and largest value (texts in byte order, or integers) and
// whether it may hold a null (an empty text is one).
type ChunkStats struct {
	Text     bool
	Lo, Hi   string
	ILo, IHi int64
	Nulls    bool
}

// dayZone is the day range of days (each base more than its value), the
// rows from lo of a date column whose validity is valid.
func dayZone[T DayValue](days []T, base int32, valid []byte, lo int) DayZone {
	z := DayZone{Min: 1<<31 - 1, Max: -1 << 31}
	if valid == nil {
		if len(days) == 0 {
			return z
		}
		least, most := days[0], days[0]
		for _, d := range days {
			least, most = min(least, d), max(most, d)
		}
		return DayZone{Min: base + int32(least), Max: base + int32(most)}
	}
	if least, most, seen := extremesValid(days, valid, lo); seen {
		z = DayZone{Min: base + int32(least), Max: base + int32(most)}
	}
	return z
}

// extremesValid is the least and greatest of vals over the rows (from
// lo) valid marks, and whether it marks one. Where a byte of valid
// starts, its eight rows are compared with no test of their bits when
// all are valid, and skipped when none is: a column mostly valid, or
// mostly null (a ship date before shipping), is not tested a bit a row.
func extremesValid[T cmp.Ordered](vals []T, valid []byte, lo int) (least, most T, seen bool) {
	f := 0 // the first valid row
	for f < len(vals) && !bitutil.BitIsSet(valid, lo+f) {
		if (lo+f)&7 == 0 && f+8 <= len(vals) && valid[(lo+f)>>3] == 0 {
			f += 8
			continue
		}
		f++
	}
	if f == len(vals) {
		return least, most, false
	}
	least, most = vals[f], vals[f]
	i := f + 1
	for ; i < len(vals) && (lo+i)&7 != 0; i++ {
		if bitutil.BitIsSet(valid, lo+i) {
			least, most = min(least, vals[i]), max(most, vals[i])
		}
	}
	for ; i+8 <= len(vals); i += 8 {
		switch b := valid[(lo+i)>>3]; b {
		case 0:
		case 0xff:
			for _, v := range vals[i : i+8] {
				least, most = min(least, v), max(most, v)
			}
		default:
			for j, v := range vals[i : i+8] {
				if b>>j&1 != 0 {
					least, most = min(least, v), max(most, v)
				}
			}
		}
	}
	for ; i < len(vals); i++ {
		if bitutil.BitIsSet(valid, lo+i) {
			least, most = min(least, vals[i]), max(most, vals[i])
		}
	}
	return least, most, true
}

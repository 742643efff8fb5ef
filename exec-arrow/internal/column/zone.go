package column

import (
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
	z := DayZone{Min: 1<<31 - 1, Max: -1 << 31}
	if c.Days != nil && c.Valid == nil {
		for _, d := range c.Days[lo:hi] {
			z.Min, z.Max = min(z.Min, int32(d)), max(z.Max, int32(d))
		}
		return z
	}
	if c.Days != nil {
		for i := lo; i < hi; i++ {
			if bitutil.BitIsSet(c.Valid, i) {
				z.Min, z.Max = min(z.Min, int32(c.Days[i])), max(z.Max, int32(c.Days[i]))
			}
		}
		return z
	}
	// A day is a monotonic function of a time: the extremes of the times
	// give the zone's.
	lowest, highest, seen := int64(math.MaxInt64), int64(math.MinInt64), false
	if c.Valid == nil {
		for _, us := range c.Ints[lo:hi] {
			lowest, highest = min(lowest, us), max(highest, us)
		}
		seen = hi > lo
	} else {
		for i := lo; i < hi; i++ {
			if bitutil.BitIsSet(c.Valid, i) {
				lowest, highest, seen = min(lowest, c.Ints[i]), max(highest, c.Ints[i]), true
			}
		}
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

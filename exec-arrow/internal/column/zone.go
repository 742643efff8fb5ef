package column

import "github.com/apache/arrow-go/v18/arrow/bitutil"

// DayZone is the smallest and largest day of one segment of a time column
// (nulls ignored). A segment with no value has min > max.
type DayZone struct{ Min, Max int32 }

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
	for i := lo; i < hi; i++ {
		if c.Valid != nil && !bitutil.BitIsSet(c.Valid, i) {
			continue
		}
		var d int32
		if c.Days != nil {
			d = int32(c.Days[i])
		} else {
			d = DayOfMicros(c.Ints[i])
		}
		z.Min, z.Max = min(z.Min, d), max(z.Max, d)
	}
	return z
}

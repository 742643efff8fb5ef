package engine

import "github.com/apache/arrow-go/v18/arrow/bitutil"

// dayZone is the smallest and largest day of one segment of a time column
// (nulls ignored). A segment with no value has min > max.
type dayZone struct{ min, max int32 }

// zones returns the day range of every segment of a cached date or
// timestamp column, computed once per column. Questions read a bounded
// range, and tables are usually stored roughly in time order, so whole
// segments outside the range are skipped without touching their rows, as
// Parquet row-group statistics skip row groups when the table is streamed.
func (c *column) zones(segs []segment) []dayZone {
	c.zoneOnce.Do(func() {
		z := make([]dayZone, len(segs))
		for k, s := range segs {
			z[k] = zoneOf(c, s.lo, s.hi)
		}
		c.zoneList = z
	})
	return c.zoneList
}

// segment is a run of a table's rows that is read, cached and scanned as
// one batch: at most chunkRows rows of one Parquet row group, or one block
// of chunkRows rows of a CSV or NDJSON part. group numbers the row group
// (or block) across the table's parts, in file order.
//
// Every producer gives group g to worker g mod P (P is Config.Parallelism)
// and each worker reads its groups in order, so a question sums its rows
// in the same order, and gets the same bits, whether they come from the
// files or from the cache.
type segment struct{ lo, hi, group int }

// zoneOf is the day range of rows [lo, hi) of a time column.
func zoneOf(c *column, lo, hi int) dayZone {
	z := dayZone{min: 1<<31 - 1, max: -1 << 31}
	if c.days != nil && c.valid == nil {
		for _, d := range c.days[lo:hi] {
			z.min, z.max = min(z.min, int32(d)), max(z.max, int32(d))
		}
		return z
	}
	for i := lo; i < hi; i++ {
		if c.valid != nil && !bitutil.BitIsSet(c.valid, i) {
			continue
		}
		var d int32
		if c.days != nil {
			d = int32(c.days[i])
		} else {
			d = dayOfMicros(c.ints[i])
		}
		z.min, z.max = min(z.min, d), max(z.max, d)
	}
	return z
}

package engine

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

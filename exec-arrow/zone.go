package engine

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// dayZone is the smallest and largest day of one chunk of a time column
// (nulls ignored). A chunk with no value has min > max.
type dayZone struct{ min, max int32 }

// zones returns the per-chunk day range of a date or timestamp column,
// computed once per cached column. Questions read a bounded range, and
// tables are usually stored roughly in time order, so whole chunks outside
// the range are skipped without touching their rows.
func (c *column) zones() []dayZone {
	c.zoneOnce.Do(func() {
		n := (c.n + chunkRows - 1) / chunkRows
		z := make([]dayZone, n)
		for k := range z {
			lo, hi := k*chunkRows, min((k+1)*chunkRows, c.n)
			mn, mx := int32(math.MaxInt32), int32(math.MinInt32)
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
				mn, mx = min(mn, d), max(mx, d)
			}
			z[k] = dayZone{mn, mx}
		}
		c.zoneList = z
	})
	return c.zoneList
}

// chunksInRange lists the chunks of the base table that may hold a row of
// the question's range, in order.
func (q *query) chunksInRange() []int {
	zones := q.time.zones()
	end := q.start + int32(q.span)
	out := make([]int, 0, len(zones))
	for k, z := range zones {
		if z.min <= z.max && z.max >= q.start && z.min < end {
			out = append(out, k)
		}
	}
	return out
}

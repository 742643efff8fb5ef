package column

import (
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/i128"
	"sutura.dev/exec-arrow/internal/parse"
)

// DayIndexes counts the day indexes built in the process, for tests.
var DayIndexes atomic.Int64

// DayIndex holds, for each segment of a cached time column with no null,
// the segment's rows ordered by day (and by row within a day), so that a
// range of a few days out of many is read row by row in those days alone
// rather than by testing every row's time: what a range over times stored
// in no order needs (docs/performance.md, "What a warm run reuses").
type DayIndex struct {
	segs []dayRows
}

// dayRows is one segment's index: rows[offs[d-min]:offs[d-min+1]] are the
// rows (offsets from the segment's first) of day d, for min ≤ d ≤ the
// segment's last day; offs is nil for a segment not indexed.
type dayRows struct {
	min  int32
	offs []int32
	rows []uint16
}

// Select writes to sel and bucket the rows of segment k (whose first row
// is lo, of n rows) whose day is in [first, end), each with bucket
// of[day-first], and returns how many, when they are under a quarter of
// the segment's rows. They come in day order, each day's rows in row
// order, unless inRowOrder asks for row order — the order a test of every
// row's time gives, which a term whose answer depends on the order of its
// rows needs (a float sum). ok is false, and nothing is written,
// otherwise or when the segment is not indexed: testing every row's time
// is then as fast, and keeps the rows in order.
func (x *DayIndex) Select(k, lo, n int, first, end int32, of, sel, bucket []int32, inRowOrder bool) (m int, ok bool) {
	s := &x.segs[k]
	if s.offs == nil {
		return 0, false
	}
	a, b := max(first, s.min)-s.min, min(end, s.min+int32(len(s.offs))-1)-s.min
	if a >= b {
		return 0, true
	}
	if 4*int(s.offs[b]-s.offs[a]) >= n {
		return 0, false
	}
	if !inRowOrder {
		for d := a; d < b; d++ {
			bk := of[d+s.min-first]
			for _, r := range s.rows[s.offs[d]:s.offs[d+1]] {
				sel[m], bucket[m] = int32(lo)+int32(r), bk
				m++
			}
		}
		return m, true
	}
	// The days' rows mark a bitmap of the segment, read back in order;
	// bucket[r] holds row r's bucket meanwhile, and is compacted as the
	// rows are read (the m-th row read is row m or after it).
	var marked [ChunkRows / 64]uint64
	for d := a; d < b; d++ {
		bk := of[d+s.min-first]
		for _, r := range s.rows[s.offs[d]:s.offs[d+1]] {
			marked[r>>6] |= 1 << (r & 63)
			bucket[r] = bk
		}
	}
	for w, word := range marked[:(n+63)/64] {
		for ; word != 0; word &= word - 1 {
			r := w<<6 + bits.TrailingZeros64(word)
			sel[m], bucket[m] = int32(lo+r), bucket[r]
			m++
		}
	}
	return m, true
}

// FewDays reports whether a range of span days covers under a quarter of
// the days of zones: only then can a day index spare a scan of their
// segments.
func FewDays(zones []DayZone, span int32) bool {
	lo, hi := int64(math.MaxInt32), int64(math.MinInt32)
	for _, z := range zones {
		if z.Max >= z.Min {
			lo, hi = min(lo, int64(z.Min)), max(hi, int64(z.Max))
		}
	}
	return hi >= lo && 4*int64(span) < hi-lo+1
}

// Days returns the day index of a cached date or timestamp column when
// BuildDays has built it, else nil.
func (d *Derived) Days() *DayIndex { return d.days.Load() }

// BuildDays starts building the column's day index over segs (whose
// zones are zones), once, in the background: the question that asks reads
// the rows as before, and those after it read them through the index
// (Days), so no answer waits for it. The owner holds the column for the
// build. A segment is indexed when it holds at most ChunkRows rows and
// spans at most as many days as rows; no index is built when the column
// holds a null, or when the working set cannot hold two bytes a row and
// four a day.
func (d *Derived) BuildDays(segs []Segment, zones []DayZone) {
	d.daysOnce.Do(func() {
		d.daysDone = make(chan struct{})
		c := d.col
		release, ok := func() {}, true
		if d.owner != nil {
			release, ok = d.owner.Hold()
		}
		if !ok || c.Valid != nil || (!c.HasDays() && len(c.Ints) < c.N) || len(zones) != len(segs) {
			close(d.daysDone)
			return
		}
		go func() {
			defer close(d.daysDone)
			defer release()
			if x := buildDays(d, segs, zones); x != nil {
				d.days.Store(x)
				DayIndexes.Add(1)
			}
		}()
	})
}

// AwaitDays waits for the build BuildDays started to end (at once when
// none was started): for tests.
func (d *Derived) AwaitDays() {
	d.daysOnce.Do(func() {
		d.daysDone = make(chan struct{})
		close(d.daysDone)
	})
	<-d.daysDone
}

// buildDays builds the day index of d's column, or returns nil when the
// working set cannot hold it.
func buildDays(d *Derived, segs []Segment, zones []DayZone) *DayIndex {
	c := d.col
	size := int64(2 * c.N)
	for k, s := range segs {
		if indexed(s, zones[k]) {
			size += 4 * int64(zones[k].Max-zones[k].Min+2)
		}
	}
	if d.reserve(size) != nil {
		return nil
	}
	x := &DayIndex{segs: make([]dayRows, len(segs))}
	rows := make([]uint16, c.N)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(segs)) {
		wg.Go(func() {
			scratch := make([]int32, ChunkRows)
			for k := int(next.Add(1)) - 1; k < len(segs); k = int(next.Add(1)) - 1 {
				if s := segs[k]; indexed(s, zones[k]) {
					x.segs[k] = indexSegment(c, s, zones[k], rows[s.Lo:s.Hi], scratch)
				}
			}
		})
	}
	wg.Wait()
	return x
}

// indexed reports whether a segment is small enough to index.
func indexed(s Segment, z DayZone) bool {
	n := s.Hi - s.Lo
	return n > 0 && n <= ChunkRows && z.Max >= z.Min && int64(z.Max)-int64(z.Min) < int64(n)
}

// indexSegment orders segment s's rows by day into rows (a counting
// sort), with scratch room for a day per row.
func indexSegment(c *Column, s Segment, z DayZone, rows []uint16, scratch []int32) dayRows {
	offs := make([]int32, z.Max-z.Min+2)
	days := scratch[:s.Hi-s.Lo]
	if c.Days16 != nil {
		for i, d := range c.Days16[s.Lo:s.Hi] {
			days[i] = int32(d) - (z.Min - c.DayBase)
		}
	} else if c.Days != nil {
		for i, d := range c.Days[s.Lo:s.Hi] {
			days[i] = int32(d) - z.Min
		}
	} else {
		for i, us := range c.Ints[s.Lo:s.Hi] {
			days[i] = DayOfMicros(us) - z.Min
		}
	}
	for _, d := range days {
		offs[d+1]++
	}
	for i := 1; i < len(offs); i++ {
		offs[i] += offs[i-1]
	}
	next := append([]int32(nil), offs[:len(offs)-1]...)
	for i, d := range days {
		rows[next[d]] = uint16(i)
		next[d]++
	}
	return dayRows{min: z.Min, offs: offs, rows: rows}
}

// daysBuilder builds a timestamp column as the UTC day of each value: a
// date column, four bytes a row where the timestamps take eight. It serves
// a time column read only to place rows in a range and a bucket, which the
// day decides: a range is whole days and the finest grain a day
// (docs/performance.md, "Time columns cached as days, text codes lent").
// It accepts what a timestamp column's builder accepts, and refuses what
// that refuses with the same error.
type daysBuilder struct{ dateBuilder }

// NewDaysBuilder returns the builder of a timestamp column kept as days.
func NewDaysBuilder(check bool) Builder { return &daysBuilder{newDateBuilder(check)} }

func (b *daysBuilder) AppendText(s string) error {
	us, ok := parse.Micros(s)
	if !ok {
		return ErrNotType{domain.TypeTimestamp}
	}
	return b.push(DayOfMicros(us))
}

func (b *daysBuilder) AppendInt(int64) error     { return ErrNotType{domain.TypeTimestamp} }
func (b *daysBuilder) AppendFloat(float64) error { return ErrNotType{domain.TypeTimestamp} }
func (b *daysBuilder) AppendDecimal(i128.Int, int32) error {
	return ErrNotType{domain.TypeTimestamp}
}
func (b *daysBuilder) AppendBool(bool) error       { return ErrNotType{domain.TypeTimestamp} }
func (b *daysBuilder) AppendMicros(us int64) error { return b.push(DayOfMicros(us)) }

// AppendArray declines every array: its values come one by one, as a
// timestamp builder's do.
func (b *daysBuilder) AppendArray(arrow.Array) bool { return false }

// AppendColumn appends the days of a timestamp batch column.
func (b *daysBuilder) AppendColumn(c *Column) (int, error) {
	if c.Type != domain.TypeTimestamp || len(c.Ints) < c.N {
		return 0, ErrNotType{domain.TypeTimestamp}
	}
	if !b.check {
		if b.narrow {
			b.d16 = slices.Grow(b.d16, c.N)
		} else {
			b.vals = slices.Grow(b.vals, c.N)
		}
		for _, us := range c.Ints[:c.N] {
			b.put(DayOfMicros(us))
		}
		b.mask.addBits(c.Valid, c.N)
	}
	return 0, nil
}

package kernel

import (
	"context"
	"math/bits"
	"slices"
	"sync/atomic"

	"sutura.dev/exec-arrow/internal/column"
)

// Batch is a run of base-table rows as the aggregation kernels read them:
// one column per slot of the question (Query.Base) over rows [lo, hi). A
// batch streamed from a file holds columns of its own rows (lo is 0); a
// batch of cached columns holds the whole columns and a segment's range,
// so the kernels index both alike.
type Batch struct {
	Lo, Hi int
	Group  int
	Cols   []*column.Column
	// OneBucket says every row is in the range, in bucket: the time
	// column is not read (and may be nil).
	OneBucket bool
	Bucket    int32
	// Zone, when set, is the zone of a time slot's column over the batch,
	// found once by the producer for its own skipping: a union places its
	// members by it (memberZones) without scanning the column again.
	Zone func(slot int) (column.DayZone, bool)
	// Meets, when set on a union's batch, says per member whether its
	// range may hold a row of the batch (MembersMeeting): a member that
	// may not picks no row and reads none of its columns, so a producer
	// need not decode the slots only such members read (NeedSlots), and
	// leaves them nil.
	Meets []bool
	// inside says every row's time is in the range and none is null
	// (known from a cached segment's zone): the time column only gives
	// each row its bucket.
	inside bool
	// days, when set, holds the rows of this cached segment (segment
	// seg) by day: a range holding few of them reads those alone
	// (Query.selectByDayOf), in day order when every term is order-free
	// (anyOrder), else in row order.
	days     *column.DayIndex
	seg      int
	anyOrder bool
	// picked, when set, is what a Selector found for this batch (the
	// rows that may count, their buckets and metric masks): chunk starts
	// from it instead of selecting again.
	picked *picked
	// members, in a union's batch, holds each member's batch as its
	// selector picked it (Selector.Rows of a union).
	members []Batch
	// shared, in a union member's batch tested row by row, holds the
	// rows in its range as the first member with its time column and
	// range to select found them; picks, those of them passing its early
	// filters as the first member with its range and early filters found
	// them; keeps, the rows passing its filters as the first member with
	// its filters found them (memberShares).
	shared *sharedRange
	within *sharedRange // the rows found for this batch in a range holding its own
	picks  *sharedRange
	keeps  *sharedKeep
}

// picked is a Selector's result for one batch, in the selector's
// buffers (valid until its next Rows call).
type picked struct {
	sel, bucket []int32
	mask        []uint64 // set when masked
	masked      bool
}

// Producer yields the base-table rows of one question as batches. It is
// the seam between where rows come from and the aggregation: the cache
// (cachedProducer), Parquet row groups (parquetProducer), CSV and NDJSON
// blocks (textProducer), and any other source of rows — a federated
// combine's partials arriving from another data system — that can present
// them as typed columns. The aggregation (query.chunk, the kernels of
// agg.go, partial merging) is the same for all of them.
type Producer interface {
	// run feeds the workers, when the producer needs a goroutine of its
	// own to (a dispatcher reading a file in order); it returns when all
	// is fed, or at the first error.
	Run(ctx context.Context) error
	// scan reads worker w's share of the batches (the groups g with
	// g mod P = w, in order; when every term is order-free, those the
	// worker takes first), calling each for every batch that may hold a
	// row of the question's range, until each returns an error.
	Scan(ctx context.Context, w int, each func(*Batch) error) error
	// close releases what the producer holds and reports what only the
	// end of the rows can tell; it is called once, after run and every
	// scan have returned.
	Close() error
}

// cachedProducer scans cached columns segment by segment, skipping the
// segments whose zone (day range of the time column) misses the range.
type cachedProducer struct {
	q     *Query
	segs  []column.Segment
	zones []column.DayZone
	cols  []*column.Column
	// days is the time column's rows by day, when it has them
	// (column.Derived.Days).
	days *column.DayIndex
	// claim: every term is order-free with no bound on integer sums
	// (Query.OrderFree), so a worker takes the next segment left (next
	// counts those taken) instead of its groups g mod P: a worker that
	// starts late or meets denser segments leaves no core idle at the end.
	claim bool
	next  atomic.Int64
}

// NewCachedProducer scans the cached columns of q's base slots (held by
// name, with their day zones) segment by segment.
func NewCachedProducer(q *Query, held map[string]*column.Derived, segs []column.Segment) Producer {
	cols := make([]*column.Column, len(q.Base))
	for i, proto := range q.Base {
		cols[i] = held[proto.Name].Column()
	}
	unbounded := func(int) bool { return false }
	t := held[q.Base[q.TimeSlot].Name]
	p := &cachedProducer{q: q, segs: segs, cols: cols, zones: t.Zones(segs), claim: q.OrderFree(unbounded)}
	if !q.Base[q.TimeSlot].ValidOnly && column.FewDays(p.zones, q.Span) {
		if p.days = t.Days(); p.days == nil {
			t.BuildDays(segs, p.zones) // for the questions after this one
		}
	}
	return p
}

func (p *cachedProducer) Scan(ctx context.Context, w int, each func(*Batch) error) error {
	if p.q.ShareCodes { // every worker reads every batch, for its share of the codes
		for i := range p.segs {
			if err := p.segment(ctx, i, each); err != nil {
				return err
			}
		}
		return nil
	}
	if p.claim {
		for i := int(p.next.Add(1)) - 1; i < len(p.segs); i = int(p.next.Add(1)) - 1 {
			if err := p.segment(ctx, i, each); err != nil {
				return err
			}
		}
		return nil
	}
	for i, s := range p.segs {
		if s.Group%p.q.Parallel != w {
			continue
		}
		if err := p.segment(ctx, i, each); err != nil {
			return err
		}
	}
	return nil
}

// segment hands segment i to each when its zone may hold a row of the
// range.
func (p *cachedProducer) segment(ctx context.Context, i int, each func(*Batch) error) error {
	if !p.q.Meets(p.zones[i]) {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s := p.segs[i]
	b := &Batch{Lo: s.Lo, Hi: s.Hi, Group: s.Group, Cols: p.cols, days: p.days, seg: i, anyOrder: p.claim}
	if p.cols[p.q.TimeSlot].Valid == nil {
		b.Bucket, b.OneBucket = p.q.OneBucket(p.zones[i])
		b.inside = p.zones[i].Within(p.q.Start, p.q.Start+p.q.Span)
	}
	return each(b)
}

func (p *cachedProducer) Run(context.Context) error { return nil }

func (p *cachedProducer) Close() error { return nil }

// OneBucket reports whether every day of a zone (of a time column with no
// null) is in the range and in one bucket, and which.
func (q *Query) OneBucket(z column.DayZone) (int32, bool) {
	if q.union() {
		return 0, false
	}
	lo, hi := z.Min-q.Start, z.Max-q.Start
	if z.Min > z.Max || lo < 0 || hi >= q.Span || q.BucketOf[lo] != q.BucketOf[hi] {
		return 0, false
	}
	return q.BucketOf[lo], true
}

// Meets reports whether a zone of the time column may hold a row of the
// question's range. A union's member whose time column is another
// (TimeSlots) may hold one in any zone of it: MeetsAt knows them all.
func (q *Query) Meets(z column.DayZone) bool {
	if !q.union() {
		return z.Min <= z.Max && z.Max >= q.Start && z.Min < q.Start+q.Span
	}
	return q.MeetsAt(func(s int) (column.DayZone, bool) { return z, s == q.TimeSlot })
}

// MeetsAt reports whether rows whose time columns have the zones zone
// gives (per slot of TimeSlots; false when it does not know one, an
// empty zone for a column of nulls) may hold a row of the question's
// range, or of some member's.
func (q *Query) MeetsAt(zone func(slot int) (column.DayZone, bool)) bool {
	if !q.union() {
		z, ok := zone(q.TimeSlot)
		return !ok || q.Meets(z)
	}
	return slices.ContainsFunc(q.Members, func(mb Member) bool {
		z, ok := zone(mb.timeSlot())
		return !ok || mb.Q.Meets(z)
	})
}

// InRange sets bit r of keep (cleared first) for each row r whose time
// falls in the question's range (a union's: some member's, each by its
// own time column), and returns how many it set; a null time is in no
// range. time gives the time column of each slot of TimeSlots: when the
// range holds its whole zone and it has no null, every row is in without
// a test. A producer parsing text splits a record's other fields only for
// those rows, which are all the rows a Selector may pick.
func (q *Query) InRange(time func(slot int) *column.Column, keep []byte) int {
	members := q.Members
	if !q.union() {
		members = []Member{{Q: q}}
	}
	slots := q.TimeSlots()
	zones := make([]column.DayZone, len(slots)) // of each time column, once
	for i, s := range slots {
		t := time(s)
		zones[i] = column.ZoneOf(t, 0, t.N)
	}
	for _, mb := range members {
		s := mb.timeSlot()
		t, z := time(s), zones[slices.Index(slots, s)]
		if t.Valid == nil && z.Within(mb.Q.Start, mb.Q.Start+mb.Q.Span) {
			for i := range keep {
				keep[i] = 0xff
			}
			if t.N%8 != 0 {
				keep[t.N>>3] = 1<<(t.N%8) - 1
			}
			return t.N
		}
	}
	clear(keep)
	for _, mb := range members {
		mb.Q.inRange(time(mb.timeSlot()), keep)
	}
	n := 0
	for _, b := range keep {
		n += bits.OnesCount8(b)
	}
	return n
}

// inRange adds to keep the rows of the time column t in q's range; a null
// time is in none.
func (q *Query) inRange(t *column.Column, keep []byte) {
	start, span := q.Start, uint32(q.Span)
	first, length := int64(start)*perDay, uint64(span)*perDay
	for i := range keep { // eight rows' bits in a register, one store
		var b byte
		if lo, hi := 8*i, min(8*i+8, t.N); t.Days16 != nil {
			for j, d := range t.Days16[lo:hi] {
				b |= byte(column.BitOf(uint32(int32(d)-(start-t.DayBase)) < span)) << j
			}
		} else if t.Days != nil {
			for j, d := range t.Days[lo:hi] {
				b |= byte(column.BitOf(uint32(int32(d)-start) < span)) << j
			}
		} else {
			for j, us := range t.Ints[lo:hi] {
				b |= byte(column.BitOf(uint64(us-first) < length)) << j
			}
		}
		if t.Valid != nil { // a null time is in no range
			b &= t.Valid[i]
		}
		keep[i] |= b
	}
}

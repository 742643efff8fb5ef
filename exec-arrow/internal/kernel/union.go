package kernel

import (
	"math/bits"
	"slices"

	"sutura.dev/exec-arrow/internal/column"
)

// Member is one question of a union (Query.Members): its bound query,
// whose slots are its own, and per slot of it the slot of the union's
// base it reads.
type Member struct {
	Q     *Query
	Slots []int
}

// A union is a Query with Members: several questions over one base table,
// scanned together (ScanAll). Its Base holds every slot any member reads,
// its TimeSlot the first member's time column; the others may read
// another (TimeSlots has them all). It has no range, filters or metrics
// of its own. A producer asks it as it asks one question, and each answer
// is a union's:
//
//   - Meets, MeetsAt, InRange and MayCount: a zone, row or row group any
//     member may count a row of, each by its own time column;
//   - OneBucket: never (the members' buckets differ); each member's
//     batch is placed by its own zone (memberZones);
//   - OrderFree: when every member's answer is;
//   - SelectSlots and NewSelector: the slots every member's selection
//     reads, and the rows any member keeps.
//
// A batch of the union reaches each member as a batch of its own slots,
// with the rows its own selector picked: the answers are those of the
// members scanned alone.

// union reports whether q is a union.
func (q *Query) union() bool { return len(q.Members) > 0 }

// timeSlot is the slot of the union's base that holds the member's time
// column.
func (mb Member) timeSlot() int {
	if mb.Slots == nil {
		return mb.Q.TimeSlot
	}
	return mb.Slots[mb.Q.TimeSlot]
}

// TimeSlots are the slots of the time columns q reads: its TimeSlot, and
// a union's members' others after it, once each. A producer decodes them
// first, to skip what no member's range holds (MeetsAt, InRange).
func (q *Query) TimeSlots() []int {
	slots := []int{q.TimeSlot}
	for _, mb := range q.Members {
		if s := mb.timeSlot(); !slices.Contains(slots, s) {
			slots = append(slots, s)
		}
	}
	return slots
}

// member is the batch of member i of a union over the union's batch b:
// the one its selector picked, when the union selected b's rows, or one
// of b's columns in the member's slots, in buf. Either way its columns
// are b's as they are now (a producer decodes more after selecting).
// Built here, it is placed by the zone of its own time column over b
// (zs, one worker's; nil: not placed): no row in its range, every row in
// it, or every row in one of its buckets, as a batch of the member's own
// question would be.
func (q *Query) member(i int, b *Batch, buf *Batch, zs *memberZones) *Batch {
	mb := q.Members[i]
	if mb.Slots == nil {
		return b
	}
	out := buf
	if b.members != nil {
		out = &b.members[i]
	} else {
		*out = Batch{Lo: b.Lo, Hi: b.Hi, Group: b.Group, Cols: out.Cols}
	}
	if cap(out.Cols) < len(mb.Slots) {
		out.Cols = make([]*column.Column, len(mb.Slots))
	}
	out.Cols = out.Cols[:len(mb.Slots)]
	for s, u := range mb.Slots {
		out.Cols[s] = b.Cols[u]
	}
	if b.members == nil {
		if b.Meets != nil && !b.Meets[i] {
			out.picked = &none
		} else {
			zs.place(i, mb, b, out)
		}
	}
	return out
}

// MembersMeeting is MeetsAt member by member: per member of union q,
// whether the zone of its time column (zone; not known: it may) meets its
// range, in meets' memory. It is nil when every member's does, or q is
// not a union: a batch whose Meets it is has every member's columns.
func (q *Query) MembersMeeting(zone func(slot int) (column.DayZone, bool), meets []bool) []bool {
	if !q.union() {
		return nil
	}
	meets, all := meets[:0], true
	for _, mb := range q.Members {
		z, ok := zone(mb.timeSlot())
		m := !ok || mb.Q.Meets(z)
		meets, all = append(meets, m), all && m
	}
	if all {
		return nil
	}
	return meets
}

// NeedSlots says, per slot of union q's base, whether a member that
// meets a batch (meets, as MembersMeeting gives) reads it, or it is a
// time slot (decoded first, to find the zones), in need's memory; nil
// when meets is: every slot is needed.
func (q *Query) NeedSlots(meets []bool, need []bool) []bool {
	if meets == nil {
		return nil
	}
	need = slices.Grow(need[:0], len(q.Base))[:len(q.Base)]
	clear(need)
	for _, s := range q.TimeSlots() {
		need[s] = true
	}
	for i, mb := range q.Members {
		switch {
		case !meets[i]:
		case mb.Slots == nil: // it reads the union's own slots
			return nil
		default:
			for _, s := range mb.Slots {
				need[s] = true
			}
		}
	}
	return need
}

// none is what a member's selector picks from a batch none of whose rows
// is in its range.
var none picked

// memberZones is one worker's placing of a union's members by the zone of
// their time column over each batch: on a file sorted by time, most of a
// union's members (anchors over a year or a month, with a question over
// another range) have no row in a batch, or all of them, and the rows of
// those are neither tested for the range nor, for the first, for the
// filters. A member whose zones neither left out a batch nor held one
// whole for memberZoneTries batches (times in no order) is not placed on
// this worker again, and a zone is found once a batch for each time
// column (the producer's, Batch.Zone, when it found them).
type memberZones struct {
	tried, paid []int
	slots       []int // the time slots whose zone this batch has
	zones       []column.DayZone
}

// memberZoneTries is how many batches a member is placed by its zone on
// one worker before it is no longer, unless one placing paid.
const memberZoneTries = 16

func newMemberZones(q *Query) *memberZones {
	return &memberZones{tried: make([]int, len(q.Members)), paid: make([]int, len(q.Members))}
}

// next starts a batch: the zones found for the last are dropped.
func (zs *memberZones) next() {
	if zs != nil {
		zs.slots, zs.zones = zs.slots[:0], zs.zones[:0]
	}
}

// place sets out, member i's batch over the union's batch b, by the zone
// of the member's time column over b: when no row is in its range, its
// pick is none; when the column has no null and every row is in the
// range, out is inside it, and in one bucket when every row's is one.
func (zs *memberZones) place(i int, mb Member, b, out *Batch) {
	if zs == nil || zs.tried[i] >= memberZoneTries && zs.paid[i] == 0 {
		return
	}
	s := mb.timeSlot()
	t := b.Cols[s]
	if t == nil {
		return
	}
	var z column.DayZone
	if b.Zone != nil {
		z, _ = b.Zone(s)
	} else {
		j := slices.Index(zs.slots, s)
		if j < 0 {
			j = len(zs.slots)
			zs.slots, zs.zones = append(zs.slots, s), append(zs.zones, column.ZoneOf(t, b.Lo, b.Hi))
		}
		z = zs.zones[j]
	}
	zs.tried[i]++
	if !mb.Q.Meets(z) { // a null time is in no range
		out.picked = &none
		zs.paid[i]++
		return
	}
	if t.Valid != nil {
		return
	}
	if out.inside = z.Within(mb.Q.Start, mb.Q.Start+mb.Q.Span); out.inside {
		out.Bucket, out.OneBucket = mb.Q.OneBucket(z)
		zs.paid[i]++
	}
}

// mapped turns a function of a union's slots into one of member mb's.
func mapped[T any](mb Member, f func(slot int) T) func(slot int) T {
	if mb.Slots == nil {
		return f
	}
	return func(s int) T { return f(mb.Slots[s]) }
}

// unionSlots is SelectSlots of a union: its time slots, then every slot
// a member's selection reads, once.
func (q *Query) unionSlots() []int {
	slots := q.TimeSlots()
	for _, mb := range q.Members {
		for _, s := range mb.Q.SelectSlots() {
			if mb.Slots != nil {
				s = mb.Slots[s]
			}
			if !slices.Contains(slots, s) {
				slots = append(slots, s)
			}
		}
	}
	return slots
}

// unionRows is Selector.Rows of a union: each member's selector picks the
// rows of its batch (kept in b for the member's aggregation), and the
// union's are the rows any of them picked, in order.
func (sl *Selector) unionRows(b *Batch) []int32 {
	q, s := sl.q, sl.s
	if sl.members == nil {
		sl.members = make([]*Selector, len(q.Members))
		qs := make([]*Query, len(q.Members))
		for i, mb := range q.Members {
			qs[i] = mb.Q
		}
		sl.lent = rowsFor(qs)
		for i, mb := range q.Members {
			sl.members[i] = &Selector{q: mb.Q, s: pickScratch(mb.Q, sl.lent)}
		}
		sl.batches = make([]Batch, len(q.Members))
		sl.zones = newMemberZones(q)
		sl.shares = newMemberShares(q)
	}
	n := b.Hi
	words := s.keys[:(n+63)/64]
	clear(words)
	sl.zones.next()
	sl.shares.next()
	for _, i := range sl.shares.order {
		b.members = nil // member builds the batch in sl.batches[i]
		mb := q.member(i, b, &sl.batches[i], sl.zones)
		if mb.picked == &none {
			continue
		}
		sl.shares.lend(i, mb)
		for _, r := range sl.members[i].Rows(mb) {
			words[r>>6] |= 1 << (r & 63)
		}
	}
	b.members = sl.batches
	out := s.sel[:0]
	for w, word := range words {
		for word != 0 {
			out = append(out, int32(w<<6+bits.TrailingZeros64(word)))
			word &= word - 1
		}
	}
	return out
}

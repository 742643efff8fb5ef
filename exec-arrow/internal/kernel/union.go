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
//   - OneBucket: never (the members' buckets differ);
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
func (q *Query) member(i int, b *Batch, buf *Batch) *Batch {
	mb := q.Members[i]
	if mb.Slots == nil {
		return b
	}
	out := buf
	if b.members != nil {
		out = &b.members[i]
	} else {
		*out = Batch{Lo: b.Lo, Hi: b.Hi, Group: b.Group, Cols: out.Cols, OneBucket: b.OneBucket, Bucket: b.Bucket}
	}
	if cap(out.Cols) < len(mb.Slots) {
		out.Cols = make([]*column.Column, len(mb.Slots))
	}
	out.Cols = out.Cols[:len(mb.Slots)]
	for s, u := range mb.Slots {
		out.Cols[s] = b.Cols[u]
	}
	return out
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
		for i, mb := range q.Members {
			sl.members[i] = mb.Q.NewSelector()
		}
		sl.batches = make([]Batch, len(q.Members))
	}
	n := b.Hi
	words := s.keys[:(n+63)/64]
	clear(words)
	for i := range q.Members {
		b.members = nil // member builds the batch in sl.batches[i]
		mb := q.member(i, b, &sl.batches[i])
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

// Package intern numbers the distinct texts of a column in the order
// they first arrive, keeping their bytes end to end in one buffer that
// becomes an Arrow string array as it is, and each text's hash for the
// distinct sets (docs/performance.md).
package intern

import (
	"math"
	"math/bits"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"sutura.dev/exec-arrow/internal/distinct"
	"sutura.dev/exec-arrow/internal/grow"
)

// Table numbers the distinct texts of a column in the order they first
// arrive. Their bytes lie end to end in one buffer, which becomes the value
// buffer of the column's Arrow dictionary as it is (no text is copied
// twice, none is allocated on its own), and each keeps its hash
// (distinct.HashString), which the column carries for the distinct sets
// that would otherwise hash every row's text again.
//
// The table is open addressing with linear probing: a slot holds the high
// 32 bits of a text's hash beside its code + 1 (0 is an empty slot), so a
// probe compares bytes only when those bits match.
type Table struct {
	data   []byte
	offs   []int32 // text k is data[offs[k]:offs[k+1]]; offs[0] = 0
	hashes []uint64
	slots  []uint64
	mask   uint64
	sink   uint64 // what internAll's look-ahead loaded
}

// MaxBytes is the most bytes of distinct text one table can hold: an
// Arrow string array's offsets are 32-bit. Tests lower it; nothing else
// sets it.
var MaxBytes = math.MaxInt32 // tests lower it

// Reserve makes room for d distinct texts of n bytes in all (a hint).
func (t *Table) Reserve(d, n int) {
	if t.slots != nil || d <= 0 {
		return
	}
	t.grow(d)
	t.offs = make([]int32, 1, d+1)
	t.hashes = make([]uint64, 0, d)
	if n > 0 {
		t.data = make([]byte, 0, min(n, MaxBytes))
	}
}

// grow sizes the table for d texts at most half full, re-placing those it
// holds.
func (t *Table) grow(d int) {
	n := 16
	for n < 2*d {
		n *= 2
	}
	slots := takeSlots(n)
	mask := uint64(n - 1)
	for k, h := range t.hashes {
		i := h & mask
		for slots[i] != 0 {
			i = (i + 1) & mask
		}
		slots[i] = h>>32<<32 | uint64(k+1)
	}
	giveSlots(t.slots)
	t.slots, t.mask = slots, mask
}

// A streamed block's table is built again for every block of a column,
// and fresh memory costs the first touch of each of its pages, where a
// table used before is only cleared: tables of 2^minPooled to 2^maxPooled
// slots (32 KiB to 2 MiB) are kept for the next block of their size. A
// smaller one stays in the processor's caches anyway; a larger one (a
// whole cached column's) is left to the collector.
const minPooled, maxPooled = 12, 18

var slotPools [maxPooled + 1]sync.Pool // *[]uint64 of 2^k slots

// takeSlots returns an empty table of n slots (a power of two).
func takeSlots(n int) []uint64 {
	k := bits.TrailingZeros(uint(n))
	if k < minPooled || k > maxPooled {
		return grow.To([]uint64(nil), n)[:n] // a large one on huge pages
	}
	if p, ok := slotPools[k].Get().(*[]uint64); ok {
		clear(*p)
		return *p
	}
	return make([]uint64, n)
}

// giveSlots keeps a table for takeSlots, when it is of a pooled size.
func giveSlots(s []uint64) {
	if k := bits.TrailingZeros(uint(len(s))); len(s) > 0 && k >= minPooled && k <= maxPooled {
		slotPools[k].Put(&s)
	}
}

// room makes room for one more text of n bytes, doubling what is full
// (grow.To, on huge pages once large), not append's quarter, which for a
// dictionary of tens of millions of values copied and first touched its
// arrays several times over (page faults were a third of a 100 M-row
// fill's time).
func (t *Table) room(n int) {
	if cap(t.data)-len(t.data) < n {
		t.data = grow.To(t.data, max(n, min(cap(t.data), MaxBytes-len(t.data))))
	}
	if len(t.offs) == cap(t.offs) {
		t.offs = grow.To(t.offs, max(1, cap(t.offs)))
	}
	if len(t.hashes) == cap(t.hashes) {
		t.hashes = grow.To(t.hashes, max(1, cap(t.hashes)))
	}
}

// Len is the number of distinct texts.
func (t *Table) Len() int { return len(t.hashes) }

// Intern returns the code of s, adding s when new; ok is false, and
// nothing is added, when s would take the texts past MaxBytes.
func (t *Table) Intern(s string) (code int32, ok bool) {
	if t.slots == nil {
		t.Reserve(8, 0)
	}
	return t.internHashed(s, distinct.HashString(s))
}

// internHashed is Intern of s whose hash (distinct.HashString) is h.
func (t *Table) internHashed(s string, h uint64) (code int32, ok bool) {
	tag := h >> 32 << 32
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		x := t.slots[i]
		if x == 0 {
			break
		}
		if x&^(1<<32-1) == tag {
			k := int32(x) - 1
			if string(t.data[t.offs[k]:t.offs[k+1]]) == s {
				return k, true
			}
		}
	}
	if len(t.data)+len(s) > MaxBytes {
		return 0, false
	}
	code = int32(len(t.hashes))
	if cap(t.data)-len(t.data) < len(s) || len(t.hashes) == cap(t.hashes) || len(t.offs) == cap(t.offs) {
		t.room(len(s))
	}
	t.data = append(t.data, s...)
	t.offs = append(t.offs, int32(len(t.data)))
	t.hashes = append(t.hashes, h)
	if 2*len(t.hashes) > len(t.slots) {
		t.grow(len(t.hashes))
	} else {
		i := h & t.mask
		for t.slots[i] != 0 {
			i = (i + 1) & t.mask
		}
		t.slots[i] = tag | uint64(code+1)
	}
	return code, true
}

// ahead is how many texts internAll looks ahead: it loads the table slot
// of the text that far on, and the offset of what half as far on a slot
// holds, while it codes this one.
const ahead = 16

// InternAll interns ss in order, as intern of each would, setting codes[i]
// to the code of ss[i]; hs is scratch of len(ss) for their hashes. While
// it codes one text it loads what the texts after it will read (ahead),
// so that the cache misses of a large table (tens of millions of
// distinct values, a miss for the slot and one for the offsets each)
// overlap instead of following one another: 1.4-1.5× faster on 3.2 M
// distinct values (BenchmarkInternAll). n is how many it coded: fewer than
// len(ss) when ss[n] would take the texts past MaxBytes.
func (t *Table) InternAll(ss []string, codes []int32, hs []uint64) (n int) {
	if t.slots == nil {
		t.Reserve(8, 0)
	}
	for i, s := range ss {
		hs[i] = distinct.HashString(s)
	}
	var sink uint64
	for i, s := range ss {
		if j := i + ahead; j < len(ss) {
			sink += t.slots[hs[j]&t.mask]
		}
		if j := i + ahead/2; j < len(ss) {
			if x := t.slots[hs[j]&t.mask]; x != 0 {
				sink += uint64(t.offs[int32(x)-1])
			}
		}
		code, ok := t.internHashed(s, hs[i])
		if !ok {
			return i
		}
		codes[i] = code
	}
	t.sink = sink // kept, so the loads are not left out
	return len(ss)
}

// Trim gives back the room doubling left spare (room) in an array of at
// least grow.HugeMin bytes, when it is more than an eighth of what the array
// holds: the column keeps, and the cache counts, about what its
// dictionary holds. One copy of the final size, where growing by a
// quarter made several.
func (t *Table) Trim() {
	t.data = trimmed(t.data)
	t.offs = trimmed(t.offs)
	t.hashes = trimmed(t.hashes)
}

func trimmed[T any](s []T) []T {
	var zero T
	if cap(s)-len(s) <= len(s)/8 || uintptr(cap(s))*unsafe.Sizeof(zero) < grow.HugeMin {
		return s
	}
	return append(grow.To([]T(nil), len(s)), s...)
}

// Strings returns the Arrow string array of the texts in code order, over
// the table's own bytes; the table is not used after it.
func (t *Table) Strings() arrow.Array {
	if t.offs == nil {
		t.offs = []int32{0}
	}
	data := t.data
	if data == nil {
		data = []byte{}
	}
	offs := arrow.Int32Traits.CastToBytes(t.offs)
	d := array.NewData(arrow.BinaryTypes.String, len(t.hashes),
		[]*memory.Buffer{nil, memory.NewBufferBytes(offs), memory.NewBufferBytes(data)}, nil, 0, 0)
	defer d.Release()
	giveSlots(t.slots)
	t.slots = nil
	return array.MakeFromData(d)
}

// Hashes are the texts' hashes (distinct.HashString), by code.
func (t *Table) Hashes() []uint64 { return t.hashes }

// Text is a copy of the text of code k.
func (t *Table) Text(k int) string { return string(t.data[t.offs[k]:t.offs[k+1]]) }

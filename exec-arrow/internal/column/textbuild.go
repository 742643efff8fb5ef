package column

import (
	"errors"
	"math"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/i128"
	"sutura.dev/exec-arrow/internal/intern"
)

// textBuilder builds text columns dictionary-encoded.
//
// The indexes start a byte a row (idx8) and are widened to int32 (idx)
// when the dictionary passes 256 values: a column of countries or
// device classes takes a quarter of the memory, from the first row.
type textBuilder struct {
	check bool
	in    intern.Table
	bytes int64
	idx8  []uint8
	idx   []int32
	wide  bool // idx holds the indexes, idx8 none
	// roomTo is cap(idx) when widened: the room up to it was metered at
	// a byte a row (ReserveBytes), and now takes four (Size).
	roomTo int
	mask   nullMask
	// The codes of the last batch column's dictionary (see AppendColumn).
	dictID    uint64
	dictCodes []int32
	// AppendColumn's scratch: a batch's values not coded yet, their codes
	// and hashes.
	fresh  []int32
	strs   []string
	got    []int32
	hashes []uint64
}

// ErrTextTooLarge is the problem of a text column whose distinct values
// pass the 2 GiB an Arrow string array can hold.
var ErrTextTooLarge = errors.New("a text column's distinct values pass 2 GiB")

func (b *textBuilder) AppendNull() {
	if !b.check {
		b.put(0)
		b.mask.add(false)
	}
}

// put appends index k, widening the indexes first when k passes a byte.
func (b *textBuilder) put(k int32) {
	if !b.wide {
		if k <= math.MaxUint8 {
			b.idx8 = append(b.idx8, uint8(k))
			return
		}
		b.widen()
	}
	b.idx = append(b.idx, k)
}

// widen moves the indexes from idx8 to idx, keeping the room reserved.
func (b *textBuilder) widen() {
	b.idx = widened[int32](b.idx8)
	b.roomTo = cap(b.idx)
	b.idx8, b.wide = nil, true
}

func (b *textBuilder) AppendText(s string) error {
	if b.check {
		return nil
	}
	k, ok := b.intern(s)
	if !ok {
		return ErrTextTooLarge
	}
	b.put(k)
	b.mask.add(true)
	return nil
}

// Distinct is the number of distinct values the builder holds.
func (b *textBuilder) Distinct() int { return b.in.Len() }

// TakeCodes hands over what the builder holds, for a builder that goes
// on without its dictionary (number.Builder): each row's dictionary code
// (0 for a null) in the memory, and with the room, the builder reserved;
// the rows' validity (nil when none is null); and each value of the
// dictionary, by code, to each. The builder is empty after.
func (b *textBuilder) TakeCodes(each func(code int, s string)) (codes []int32, valid []byte) {
	if !b.wide {
		b.widen()
	}
	codes, valid = b.idx, b.mask.validity()
	for k := range b.in.Len() {
		each(k, b.in.Text(k))
	}
	*b = textBuilder{}
	return codes, valid
}

// DictReserver is a text builder, whose dictionary can be sized ahead.
type DictReserver interface {
	// ReserveDict sizes the dictionary for d distinct values of n bytes
	// in all (a hint: a stream's last block of the same column held as
	// many), so that a column of many distinct values does not grow its
	// table and its bytes step by step.
	ReserveDict(d, n int)
}

func (b *textBuilder) ReserveDict(d, n int) {
	if !b.check {
		b.in.Reserve(d, n)
	}
}

// dictEntryBytes is what a distinct value holds besides its bytes: its
// offset, hash and table slots while building, its string header in the
// column's Dict after.
const dictEntryBytes = 48

// intern returns the dictionary code of s, adding it when new (the
// table copies its bytes: the reader's buffer is not ours to keep); ok
// is false when the dictionary cannot hold it (ErrTextTooLarge).
func (b *textBuilder) intern(s string) (int32, bool) {
	n := b.in.Len()
	k, ok := b.in.Intern(s)
	if ok && b.in.Len() > n {
		b.bytes += int64(len(s)) + dictEntryBytes
	}
	return k, ok
}

// internAll sets codes[i] to the dictionary code of ss[i], adding those
// that are new (intern.Table.InternAll); n is how many it coded, fewer than
// len(ss) when ss[n] meets ErrTextTooLarge.
func (b *textBuilder) internAll(ss []string, codes []int32) (n int) {
	next := int32(b.in.Len())
	b.hashes = slices.Grow(b.hashes[:0], len(ss))[:len(ss)]
	n = b.in.InternAll(ss, codes, b.hashes)
	for i, k := range codes[:n] {
		if k == next { // new codes follow each other, in the order met
			b.bytes += int64(len(ss[i])) + dictEntryBytes
			next++
		}
	}
	return n
}

func (b *textBuilder) AppendInt(v int64) error { return b.AppendText(strconv.FormatInt(v, 10)) }
func (b *textBuilder) AppendFloat(v float64) error {
	return b.AppendText(domain.Float(v).Render())
}
func (b *textBuilder) AppendBool(v bool) error { return b.AppendText(strconv.FormatBool(v)) }
func (b *textBuilder) AppendDecimal(v i128.Int, scale int32) error {
	return b.AppendText(v.Cell(scale).Render())
}
func (b *textBuilder) AppendDate(d int32) error   { return b.AppendText(domain.Date(d).String()) }
func (b *textBuilder) AppendMicros(v int64) error { return b.AppendText(RenderTimestamp(v)) }
func (b *textBuilder) Size() int64 {
	if !b.wide {
		return int64(len(b.idx8)) + b.mask.size() + b.bytes
	}
	return int64(4*len(b.idx)+3*max(b.roomTo-len(b.idx), 0)) + b.mask.size() + b.bytes
}

func (b *textBuilder) Finish(name string) *Column {
	if b.check {
		return nil
	}
	it := arrow.DataType(arrow.PrimitiveTypes.Int32)
	var indices arrow.Array
	if b.wide {
		indices = wrap(it, arrow.Int32Traits.CastToBytes(b.idx), len(b.idx), &b.mask)
	} else {
		it = arrow.PrimitiveTypes.Uint8
		indices = wrap(it, b.idx8, len(b.idx8), &b.mask)
	}
	b.in.Trim()
	hashes := b.in.Hashes()
	dict := b.in.Strings()
	typ := &arrow.DictionaryType{IndexType: it, ValueType: arrow.BinaryTypes.String}
	arr := array.NewDictionaryArray(typ, indices, dict)
	indices.Release()
	dict.Release()
	c := New(name, domain.TypeText, arr)
	c.DictHash = hashes
	c.Bytes += int64(8 * cap(hashes))
	return c
}

func (b *textBuilder) appendNulls(n int) {
	if b.wide {
		nullsTo(b.check, &b.idx, &b.mask, n)
	} else {
		nullsTo(b.check, &b.idx8, &b.mask, n)
	}
}

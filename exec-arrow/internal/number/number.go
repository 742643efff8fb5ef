// Package number numbers the distinct values of a text column 0, 1, 2, …
// without holding them all at once: the cached form of a column that
// questions read only to count its distinct values (docs/performance.md,
// "Distinct counts from codes alone").
//
// A Builder is a column.Builder. While the column's distinct values fit a
// dictionary of DictMax values it is a text builder like any other, and
// finishes a text column. When they pass DictMax, it stops keeping them:
// each value from then on is written, with its row, to one of Parts
// partitions chosen by its hash, in temporary files unlinked as soon as
// they are created (the dictionary so far is written there too, each
// value with its code). Finish then reads back one partition at a time,
// numbers its values exactly (a value is its bytes; the hash only places
// it), and finishes an integer column of each row's number: equal values
// have equal numbers and different values different ones, so counting a
// group's distinct numbers counts its distinct values. What it holds is a
// number a row, a 64 KiB buffer a partition, and, while it finishes, one
// partition's records and their table: about 1/Parts of what was written.
package number

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/i128"
)

// DictMax is the most distinct values a Builder keeps in a dictionary:
// past it, it numbers them in partitions (a variable so tests can lower
// it).
var DictMax = 1 << 20

// Parts is the number of partitions values are written to once they
// pass DictMax.
const Parts = 256

// bufBytes is a partition's write buffer (a variable so tests can make
// every partition write its file).
var bufBytes = 64 << 10

// textBuilder is what a Builder needs of the text builder it starts with
// (column's): a builder that takes batch columns and Arrow arrays whole
// and reserves room, the count of its distinct values, and what it
// holds, taken whole.
type textBuilder interface {
	column.Builder
	column.ColumnAppender
	column.ArrayAppender
	column.Reserver
	Distinct() int
	TakeCodes(each func(code int, s string)) (codes []int32, valid []byte)
}

// seed hashes values to their partition and table slot.
var seed = maphash.MakeSeed()

// Builder builds a text column's numbers (see the package doc). Its zero
// value is not usable; call New.
type Builder struct {
	dir  string
	text textBuilder // the dictionary, until the values pass DictMax; nil after

	// Once numbering: a number a row (a provisional dictionary code for
	// the rows before, a placeholder after), their validity (nil while
	// none is null), and the partitions.
	rows   int
	codes  []int32
	valid  []byte
	nulls  int
	before int // rows coded by the dictionary (their codes are remapped at Finish)
	dict   int // the dictionary's size when numbering began
	parts  []part
	most   int64 // the most bytes of one partition
	err    error // the first write that failed; every later append returns it
}

// part is one partition: its records in a buffer, then in its file.
type part struct {
	f     *os.File
	buf   []byte
	size  int64 // bytes in f
	count int   // records
}

// New returns a Builder whose partitions, if any, are temporary files in
// dir ("" is the system's temporary directory).
func New(dir string) *Builder {
	return &Builder{dir: dir, text: column.NewBuilder(domain.TypeText, false).(textBuilder)}
}

// Numbering reports whether b has passed DictMax and numbers its values.
func (b *Builder) Numbering() bool { return b.text == nil }

// after checks, once the dictionary took a value, whether it has passed
// DictMax, and starts numbering then.
func (b *Builder) after(err error) error {
	if err != nil || b.text == nil {
		return err
	}
	if b.text.Distinct() > DictMax {
		b.begin()
	}
	return b.err
}

// begin turns the dictionary into numbers: its rows keep their codes in
// the memory the text builder reserved, remapped at Finish, and each of
// its values is written to its partition with its code.
func (b *Builder) begin() {
	b.parts = make([]part, Parts)
	b.dict = b.text.Distinct()
	codes, valid := b.text.TakeCodes(func(k int, s string) { b.write(uint64(k)<<1|1, s) })
	b.text = nil
	b.rows, b.before, b.codes = len(codes), len(codes), codes
	if valid != nil {
		b.valid = growBits(valid, cap(b.codes))
		for r := range b.rows {
			if valid[r>>3]&(1<<(r&7)) == 0 {
				b.nulls++
			}
		}
	}
}

// null marks row r null.
func (b *Builder) null(r int) {
	if b.valid == nil {
		b.valid = make([]byte, (cap(b.codes)+7)/8)
		for i := range r {
			b.valid[i>>3] |= 1 << (i & 7)
		}
	}
	b.nulls++
}

// push appends a row holding s.
func (b *Builder) push(s string) {
	r := b.rows
	b.codes = append(b.codes, 0)
	b.rows++
	if b.valid != nil {
		b.valid = growBits(b.valid, b.rows)
		b.valid[r>>3] |= 1 << (r & 7)
	}
	b.write(uint64(r)<<1, s)
}

// growBits returns bits with room for n bits.
func growBits(bits []byte, n int) []byte {
	for len(bits)*8 < n {
		bits = append(bits, make([]byte, max(len(bits), 1<<10))...)
	}
	return bits
}

// write appends the record (key, s) to s's partition: key is a row<<1,
// or a dictionary code<<1|1.
func (b *Builder) write(key uint64, s string) {
	if b.err != nil {
		return
	}
	p := &b.parts[maphash.String(seed, s)>>56]
	if p.buf == nil {
		p.buf = make([]byte, 0, bufBytes)
	}
	p.buf = binary.AppendUvarint(p.buf, key)
	p.buf = binary.AppendUvarint(p.buf, uint64(len(s)))
	p.buf = append(p.buf, s...)
	p.count++
	b.most = max(b.most, p.size+int64(len(p.buf)))
	if len(p.buf) >= bufBytes {
		b.err = b.flush(p)
	}
}

// flush writes p's buffer to its file, creating it (unlinked) first.
func (b *Builder) flush(p *part) error {
	if p.f == nil {
		f, err := os.CreateTemp(b.dir, "sutura-number-*")
		if err != nil {
			return fmt.Errorf("numbering a text column's values: %w", err)
		}
		// Unlinked at once: nothing is left behind if the process dies.
		if err := os.Remove(f.Name()); err != nil {
			f.Close()
			return fmt.Errorf("numbering a text column's values: %w", err)
		}
		p.f = f
	}
	if _, err := p.f.Write(p.buf); err != nil {
		return fmt.Errorf("numbering a text column's values: %w", err)
	}
	p.size += int64(len(p.buf))
	p.buf = p.buf[:0]
	return nil
}

// AppendNull appends a null.
func (b *Builder) AppendNull() {
	if b.text != nil {
		b.text.AppendNull()
		return
	}
	b.codes = append(b.codes, 0)
	b.rows++
	b.null(b.rows - 1)
	if b.valid != nil {
		b.valid = growBits(b.valid, b.rows)
	}
}

// AppendText appends s.
func (b *Builder) AppendText(s string) error {
	if b.text != nil {
		return b.after(b.text.AppendText(s))
	}
	if b.err != nil {
		return b.err
	}
	b.push(s)
	return b.err
}

// The other types are text as a text column renders them.

func (b *Builder) AppendInt(v int64) error     { return b.AppendText(strconv.FormatInt(v, 10)) }
func (b *Builder) AppendFloat(v float64) error { return b.AppendText(domain.Float(v).Render()) }
func (b *Builder) AppendBool(v bool) error     { return b.AppendText(strconv.FormatBool(v)) }
func (b *Builder) AppendDate(d int32) error    { return b.AppendText(domain.Date(d).String()) }
func (b *Builder) AppendMicros(v int64) error {
	return b.AppendText(column.RenderTimestamp(v))
}
func (b *Builder) AppendDecimal(v i128.Int, scale int32) error {
	return b.AppendText(v.Cell(scale).Render())
}

// AppendColumn appends a decoded text batch column (column.ColumnAppender).
func (b *Builder) AppendColumn(c *column.Column) (int, error) {
	if b.text != nil {
		row, err := b.text.AppendColumn(c)
		return row, b.after(err)
	}
	if c.Type != domain.TypeText || !c.Indexed() {
		return 0, column.ErrNotType{Type: domain.TypeText}
	}
	for r := range c.N {
		if !c.IsValid(int32(r)) {
			b.AppendNull()
			continue
		}
		if err := b.AppendText(c.Dict[c.Index(int32(r))]); err != nil {
			return r, err
		}
	}
	return 0, nil
}

// AppendArray appends an Arrow array whole while b keeps a dictionary
// and its text builder can (column.ArrayAppender); false otherwise, and
// the caller appends value by value.
func (b *Builder) AppendArray(arr arrow.Array) bool {
	if b.text == nil {
		return false
	}
	if !b.text.AppendArray(arr) {
		return false
	}
	_ = b.after(nil)
	return true
}

// Reserve makes room for n more rows (column.Reserver).
func (b *Builder) Reserve(n int) {
	if b.text != nil {
		b.text.Reserve(n)
		return
	}
	b.codes = slices.Grow(b.codes, n)
	if b.valid != nil {
		b.valid = growBits(b.valid, len(b.codes)+n)
	}
}

// ReserveBytes is what Reserve(n) would take (column.Reserver).
func (b *Builder) ReserveBytes(n int) int64 {
	if b.text != nil {
		return b.text.ReserveBytes(n)
	}
	return 4*int64(n) + int64(n+7)/8
}

// Size is what b holds: its text builder's, or its numbers, their
// validity and the partitions' buffers, with what finishing will hold
// (the largest partition's records and its table).
func (b *Builder) Size() int64 {
	if b.text != nil {
		return b.text.Size()
	}
	n := int64(4*cap(b.codes)) + int64(len(b.valid)) + int64(b.dict)*4
	for _, p := range b.parts {
		n += int64(cap(p.buf))
	}
	return n + b.finishBytes()
}

// finishBytes is what Finish holds for its largest partition: its
// records and a table of two 8-byte slots a record.
func (b *Builder) finishBytes() int64 {
	most := 0
	for _, p := range b.parts {
		most = max(most, p.count)
	}
	return b.most + 16*int64(tableSize(most))
}

// tableSize is a table's slots for n records: a power of two at least 2n.
func tableSize(n int) int {
	s := 16
	for s < 2*n {
		s *= 2
	}
	return s
}

// Err is the failure that stopped the numbering (a partition's file), or
// nil: Finish returns nil then.
func (b *Builder) Err() error { return b.err }

// Finish returns the column: a text column while the values fit the
// dictionary, otherwise an integer column of each row's number (nil when
// Err is not nil).
func (b *Builder) Finish(name string) *column.Column {
	if b.text != nil {
		return b.text.Finish(name)
	}
	defer b.close()
	if b.err != nil {
		return nil
	}
	remap := make([]int32, b.dict)
	var next int32
	var data []byte
	var table []uint64
	for i := range b.parts {
		p := &b.parts[i]
		var err error
		if data, err = p.read(data); err != nil {
			b.err = err
			return nil
		}
		table = numberPart(data, p.count, table, &next, b.codes, remap)
		p.buf = nil
	}
	for r := range b.before {
		b.codes[r] = remap[b.codes[r]]
	}
	return b.column(name)
}

// read returns p's records, from its file and its buffer, in data's
// memory when it has room.
func (p *part) read(data []byte) ([]byte, error) {
	n := int(p.size) + len(p.buf)
	if cap(data) < n {
		data = make([]byte, n)
	}
	data = data[:n]
	if p.f != nil {
		if _, err := p.f.ReadAt(data[:p.size], 0); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("numbering a text column's values: %w", err)
		}
	}
	copy(data[p.size:], p.buf)
	return data, nil
}

// numberPart numbers the values of one partition's records (count of
// them, in data): a value met first takes *next, and every record of it
// sets its row's number (codes) or its dictionary code's (remap). Slots
// of table hold a value's number and the offset of its first record,
// placed by the value's hash; table is reused when large enough.
func numberPart(data []byte, count int, table []uint64, next *int32, codes, remap []int32) []uint64 {
	size := tableSize(count)
	if cap(table) < 2*size {
		table = make([]uint64, 2*size)
	}
	table = table[:2*size]
	clear(table)
	mask := uint64(size - 1)
	for off := 0; off < len(data); {
		key, n := binary.Uvarint(data[off:])
		start := off
		off += n
		l, n := binary.Uvarint(data[off:])
		off += n
		v := data[off : off+int(l)]
		off += int(l)
		h := maphash.Bytes(seed, v)
		var num int32
		for slot := h & mask; ; slot = (slot + 1) & mask {
			ref := table[2*slot]
			if ref == 0 { // empty: the value is new
				num = *next
				*next++
				table[2*slot], table[2*slot+1] = uint64(start)+1, uint64(num)
				break
			}
			if same(data, int(ref-1), v) {
				num = int32(table[2*slot+1])
				break
			}
		}
		if key&1 == 1 {
			remap[key>>1] = num
		} else {
			codes[key>>1] = num
		}
	}
	return table
}

// same reports whether the record at off in data holds v.
func same(data []byte, off int, v []byte) bool {
	_, n := binary.Uvarint(data[off:])
	off += n
	l, n := binary.Uvarint(data[off:])
	off += n
	return int(l) == len(v) && string(data[off:off+int(l)]) == string(v)
}

// Close closes the partitions' files and drops their buffers,
// for a load given up before Finish (cancelled, or another column failed):
// the files are unlinked already, and closing them gives back their disk
// and descriptors now instead of at the collector's pleasure. Finish
// closes them itself; Close after it, or twice, does nothing.
func (b *Builder) Close() {
	b.close()
	for i := range b.parts {
		b.parts[i].buf = nil
	}
}

// close closes the partitions' files.
func (b *Builder) close() {
	for i := range b.parts {
		if f := b.parts[i].f; f != nil {
			f.Close()
			b.parts[i].f = nil
		}
	}
}

// column wraps the numbers as an integer column.
func (b *Builder) column(name string) *column.Column {
	codes := b.codes[:b.rows]
	bufs := []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(codes))}
	nulls := 0
	if b.nulls > 0 {
		bufs[0] = memory.NewBufferBytes(b.valid[:(b.rows+7)/8])
		nulls = b.nulls
	}
	data := array.NewData(arrow.PrimitiveTypes.Int32, b.rows, bufs, nil, nulls, 0)
	arr := array.NewInt32Data(data)
	data.Release()
	c := column.New(name, domain.TypeInteger, arr)
	c.Bytes = int64(4*cap(b.codes)) + int64(cap(b.valid))
	return c
}

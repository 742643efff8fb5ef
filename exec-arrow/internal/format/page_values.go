package format

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"

	"sutura.dev/exec-arrow/internal/column"
)

// nativeLE reports whether the machine stores integers and floats as
// Parquet's PLAIN encoding does (little-endian): then PLAIN values are
// copied as they are, in one move.
var nativeLE = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// asBytes is the memory of out as bytes.
func asBytes[T any](out []T, size int) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), size*len(out))
}

func (d *PageChunk) copyDays(out []arrow.Date32, data []byte) {
	if nativeLE {
		copy(asBytes(out, 4), data[:4*len(out)])
		return
	}
	for i := range out {
		out[i] = arrow.Date32(int32(binary.LittleEndian.Uint32(data[4*i:])))
	}
}

func copyFloats(out []float64, data []byte) {
	if nativeLE {
		copy(asBytes(out, 8), data[:8*len(out)])
		return
	}
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
	}
}

// copyInts converts len(out) PLAIN integers, timestamps to microseconds.
func (d *PageChunk) copyInts(out []int64, data []byte) {
	switch {
	case d.phys == parquet.Types.Int32:
		data = data[:4*len(out)]
		for i := range out {
			out[i] = int64(int32(binary.LittleEndian.Uint32(data[4*i:])))
		}
	case nativeLE:
		copy(asBytes(out, 8), data[:8*len(out)])
	default:
		for i := range out {
			out[i] = int64(binary.LittleEndian.Uint64(data[8*i:]))
		}
	}
	switch {
	case d.unit == -1000:
		for i, v := range out {
			out[i] = v * 1000
		}
	case d.unit > 1:
		for i, v := range out {
			out[i] = floorDiv(v, d.unit)
		}
	}
}

// bools decodes the next len(out) booleans as 0 or 1.
func (d *PageChunk) bools(out []int32) error {
	if d.coded {
		if err := d.runs.Decode(out); err != nil {
			return err
		}
		for i, v := range out {
			out[i] = min(v, 1)
		}
		return nil
	}
	if d.bit+len(out) > 8*len(d.plain) {
		return fmt.Errorf("a data page of the column chunk is shorter than its values")
	}
	for i := range out {
		b := d.bit + i
		out[i] = int32(d.plain[b>>3] >> (b & 7) & 1)
	}
	d.bit += len(out)
	return nil
}

// boolBits decodes the next len(scratch) booleans into bits, whose bits
// at their rows are clear: value i is of row got+rows[i] (got+i when
// rows is nil). PLAIN booleans of rows in a run are copied bit for bit;
// others go through scratch.
func (d *PageChunk) boolBits(bits []byte, got int, rows []int32, scratch []int32) error {
	m := len(scratch)
	if !d.coded && rows == nil {
		if d.bit+m > 8*len(d.plain) {
			return fmt.Errorf("a data page of the column chunk is shorter than its values")
		}
		copyBits(bits, got, d.plain, d.bit, m)
		d.bit += m
		return nil
	}
	if err := d.bools(scratch); err != nil {
		return err
	}
	for i, v := range scratch {
		r := got + i
		if rows != nil {
			r = got + int(rows[i])
		}
		bits[r>>3] |= byte(v) << (r & 7)
	}
	return nil
}

// copyBits copies n bits of src from bit spos to dst from bit dpos
// (least significant bit first), where dst's bits are clear.
func copyBits(dst []byte, dpos int, src []byte, spos, n int) {
	if dpos&7 == 0 && spos&7 == 0 {
		whole := n >> 3
		copy(dst[dpos>>3:dpos>>3+whole], src[spos>>3:])
		dpos, spos, n = dpos+8*whole, spos+8*whole, n-8*whole
	}
	for n > 0 {
		k := min(n, 8)
		s := uint(spos & 7)
		v := uint16(src[spos>>3]) >> s
		if int(s)+k > 8 {
			v |= uint16(src[spos>>3+1]) << (8 - s)
		}
		v &= 1<<k - 1
		o := uint(dpos & 7)
		dst[dpos>>3] |= byte(v << o)
		if int(o)+k > 8 {
			dst[dpos>>3+1] |= byte(v >> (8 - o))
		}
		dpos, spos, n = dpos+k, spos+k, n-k
	}
}

// skipBools drops the next m booleans (scratch holds m values).
func (d *PageChunk) skipBools(m int, scratch []int32) error {
	if d.coded {
		return d.bools(scratch[:m])
	}
	if d.bit+m > 8*len(d.plain) {
		return fmt.Errorf("a data page of the column chunk is shorter than its values")
	}
	d.bit += m
	return nil
}

// boolColumn makes c the boolean column of a value bitmap.
func boolColumn(c *column.Column, bits []byte) {
	data := array.NewData(arrow.FixedWidthTypes.Boolean, c.N, []*memory.Buffer{nil, memory.NewBufferBytes(bits)}, nil, 0, 0)
	c.Bools, c.BoolBits, c.Bytes = array.NewBooleanData(data), bits, int64(len(bits))
	data.Release()
}

// presentRows lists in rows' memory (at least k long) the i < k whose
// bit got+i of valid is set, a word of 64 bits at a time where it can.
func presentRows(valid []byte, got, k int, rows []int32) []int32 {
	j, i := 0, 0
	for i < k {
		p := got + i
		if p&63 == 0 && i+64 <= k {
			for w := binary.LittleEndian.Uint64(valid[p>>3:]); w != 0; w &= w - 1 {
				rows[j] = int32(i + bits.TrailingZeros64(w))
				j++
			}
			i += 64
			continue
		}
		if valid[p>>3]>>(p&7)&1 != 0 {
			rows[j] = int32(i)
			j++
		}
		i++
	}
	return rows[:j]
}

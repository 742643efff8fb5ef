package rle

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
)

// Runs decodes Parquet's RLE/bit-packed hybrid encoding of unsigned
// integers of Width bits from Data: runs of one repeated value, and runs
// of groups of eight values packed least significant bit first.
type Runs struct {
	Data   []byte
	Width  uint
	repeat int    // values left in the current repeated run
	value  int32  // its value
	packed int    // values left in the current bit-packed run
	acc    uint64 // bits of the packed run read ahead
	bits   uint   // how many
	top    int32  // the largest value of a repeated run so far
}

// Decode fills out with the next len(out) values.
func (h *Runs) Decode(out []int32) error {
	mask := uint64(math.MaxUint32) >> (32 - h.Width)
	if h.Width == 0 {
		mask = 0
	}
	for len(out) > 0 {
		switch {
		case h.repeat > 0:
			k := min(h.repeat, len(out))
			fill(out[:k], h.value)
			out, h.repeat = out[k:], h.repeat-k
		case h.packed > 0:
			k := min(h.packed, len(out))
			data, acc, bits, w := h.Data, h.acc, h.bits, h.Width
			i := 0
			// A call that ended inside a byte (a page's values after its
			// nulls, any count) left bits read ahead: the values are read
			// one at a time until the next byte starts one (at most
			// seven), and the groups are read from there. Any eight
			// values that start a byte take w bytes.
			n, data, acc, bits, err := unpackEach(out[:k], data, acc, bits, w, mask, true)
			if err != nil {
				return err
			}
			i += n
			if w <= 8 && bits == 0 {
				// Whole groups of eight values at a time: w bytes each.
				// The group is shifted by the one width in turn (masked
				// to 63, so that each shift is one instruction, not one
				// and a test of its size), which stays in its register.
				s := w & 63
				for ; i+8 <= k && len(data) >= 8; i += 8 {
					g := binary.LittleEndian.Uint64(data)
					o := out[i : i+8 : i+8]
					o[0] = int32(g & mask)
					g >>= s
					o[1] = int32(g & mask)
					g >>= s
					o[2] = int32(g & mask)
					g >>= s
					o[3] = int32(g & mask)
					g >>= s
					o[4] = int32(g & mask)
					g >>= s
					o[5] = int32(g & mask)
					g >>= s
					o[6] = int32(g & mask)
					g >>= s
					o[7] = int32(g & mask)
					data = data[w:]
				}
			} else if w <= 32 && bits == 0 {
				n, rest := unpackWide(out[i:k], data, w, mask)
				i, data = i+n, rest
			}
			if _, data, acc, bits, err = unpackEach(out[i:k], data, acc, bits, w, mask, false); err != nil {
				return err
			}
			h.Data, h.acc, h.bits = data, acc, bits
			out, h.packed = out[k:], h.packed-k
		default:
			if err := h.header(); err != nil {
				return err
			}
		}
	}
	return nil
}

// unpackWide decodes whole groups of eight values of w bits (9 to 32: a
// dictionary of hundreds to billions of values) from data into out while
// both hold a whole group and the loads past it stay inside data; it
// returns how many values it decoded and what is left of data. A group
// is w bytes. Up to 16 bits, four values lie in one load of eight bytes
// (at most 4+64 bits from the group's first byte, the second four from
// its middle byte), so a group is two loads; up to 28 bits, two values
// lie in one (at most 7+56 bits), four loads; wider, one load a value.
// Kept apart from Decode so that its loop keeps its offsets and shifts in
// registers.
func unpackWide(out []int32, data []byte, w uint, mask uint64) (int, []byte) {
	i := 0
	switch {
	case w <= 16:
		mid, sh := w>>1, (w&1)<<2 // the fifth value's byte and bit
		s1, s2, s3 := w&63, (2*w)&63, (3*w)&63
		for ; i+8 <= len(out) && len(data) >= int(w)+8; i += 8 {
			lo := binary.LittleEndian.Uint64(data)
			hi := binary.LittleEndian.Uint64(data[mid:]) >> sh
			o := out[i : i+8 : i+8]
			o[0] = int32(lo & mask)
			o[1] = int32(lo >> s1 & mask)
			o[2] = int32(lo >> s2 & mask)
			o[3] = int32(lo >> s3 & mask)
			o[4] = int32(hi & mask)
			o[5] = int32(hi >> s1 & mask)
			o[6] = int32(hi >> s2 & mask)
			o[7] = int32(hi >> s3 & mask)
			data = data[w:]
		}
	case w <= 28:
		// Pair p starts at bit 2pw: byte pw/4, bit 2pw mod 8.
		b1, t1 := w>>2, (2*w)&7
		b2, t2 := w>>1, (4*w)&7
		b3, t3 := (3*w)>>2, (6*w)&7
		s := w & 63
		for ; i+8 <= len(out) && len(data) >= int(w)+8; i += 8 {
			p0 := binary.LittleEndian.Uint64(data)
			p1 := binary.LittleEndian.Uint64(data[b1:]) >> t1
			p2 := binary.LittleEndian.Uint64(data[b2:]) >> t2
			p3 := binary.LittleEndian.Uint64(data[b3:]) >> t3
			o := out[i : i+8 : i+8]
			o[0] = int32(p0 & mask)
			o[1] = int32(p0 >> s & mask)
			o[2] = int32(p1 & mask)
			o[3] = int32(p1 >> s & mask)
			o[4] = int32(p2 & mask)
			o[5] = int32(p2 >> s & mask)
			o[6] = int32(p3 & mask)
			o[7] = int32(p3 >> s & mask)
			data = data[w:]
		}
	default:
		// Each value with one load of eight bytes from its first (at
		// most 7+32 bits from it).
		for ; i+8 <= len(out) && len(data) >= int(w)+8; i += 8 {
			o := out[i : i+8 : i+8]
			bit := uint(0)
			for j := range o {
				o[j] = int32(binary.LittleEndian.Uint64(data[bit>>3:]) >> (bit & 7) & mask)
				bit += w
			}
			data = data[w:]
		}
	}
	return i, data
}

// unpackEach decodes values of w bits one at a time into out, from data
// and the bits read ahead of it in acc, until out is full or, with
// aligned, until a byte starts the next value; it returns how many it
// decoded and what is left.
func unpackEach(out []int32, data []byte, acc uint64, bits, w uint, mask uint64, aligned bool) (int, []byte, uint64, uint, error) {
	i := 0
	for ; i < len(out) && !(aligned && bits == 0); i++ {
		for bits < w {
			if len(data) == 0 {
				return i, data, acc, bits, fmt.Errorf("a run of dictionary indexes ends early")
			}
			acc |= uint64(data[0]) << bits
			data, bits = data[1:], bits+8
		}
		out[i] = int32(acc & mask)
		acc, bits = acc>>w, bits-w
	}
	return i, data, acc, bits, nil
}

// fill sets every value of out to v: a few by a loop, more by copies
// that double (a long run of one dictionary index, a column mostly one
// value, was stored a value a cycle).
func fill(out []int32, v int32) {
	if len(out) < 64 {
		for i := range out {
			out[i] = v
		}
		return
	}
	out[0] = v
	for n := 1; n < len(out); n *= 2 {
		copy(out[n:], out[:n])
	}
}

// DecodeBits decodes the next k values of width-1 runs (definition
// levels of an OPTIONAL column) into a bitmap: bit pos+i of bits is set
// when value i is 1 (the bits of the zeros are left as they are). It
// returns how many values are 1.
func (h *Runs) DecodeBits(bits []byte, pos, k int) (int, error) {
	ones := 0
	for k > 0 {
		switch {
		case h.repeat > 0:
			n := min(h.repeat, k)
			switch h.value {
			case 1:
				SetBits(bits, pos, n)
				ones += n
			case 0:
			default:
				return 0, fmt.Errorf("a definition level is out of range")
			}
			pos, k, h.repeat = pos+n, k-n, h.repeat-n
		case h.packed > 0:
			n := min(h.packed, k)
			for i := 0; i < n; {
				if h.bits == 0 {
					if len(h.Data) == 0 {
						return 0, fmt.Errorf("a run of definition levels ends early")
					}
					if n-i >= 8 {
						// A whole byte of levels is eight valid bits.
						b, p := h.Data[0], pos+i
						h.Data = h.Data[1:]
						ones += bitsSet[b]
						bits[p>>3] |= b << (p & 7)
						if p&7 != 0 {
							bits[p>>3+1] |= b >> (8 - p&7)
						}
						i += 8
						continue
					}
					h.acc, h.bits = uint64(h.Data[0]), 8
					h.Data = h.Data[1:]
				}
				if h.acc&1 == 1 {
					p := pos + i
					bits[p>>3] |= 1 << (p & 7)
					ones++
				}
				h.acc, h.bits, i = h.acc>>1, h.bits-1, i+1
			}
			pos, k, h.packed = pos+n, k-n, h.packed-n
		default:
			if err := h.header(); err != nil {
				return 0, err
			}
		}
	}
	return ones, nil
}

// bitsSet is the number of bits set in each byte.
var bitsSet = func() (t [256]int) {
	for b := range t {
		t[b] = bits.OnesCount8(uint8(b))
	}
	return t
}()

// header reads the next run's header.
func (h *Runs) header() error {
	hdr, n := binary.Uvarint(h.Data)
	if n <= 0 || hdr>>1 > math.MaxInt32/8 {
		return fmt.Errorf("a run of dictionary indexes is malformed")
	}
	h.Data = h.Data[n:]
	if hdr&1 == 1 {
		// Groups of eight values; padding bits of the last group are
		// dropped with the run.
		h.packed = int(hdr>>1) * 8
		h.acc, h.bits = 0, 0
		need := int(hdr>>1) * int(h.Width)
		if need > len(h.Data) {
			// The last run of a page may be cut short of its padding.
			h.packed = len(h.Data) * 8 / max(int(h.Width), 1)
			if h.Width == 0 {
				h.packed = int(hdr>>1) * 8
			}
		}
		return nil
	}
	nb := int(h.Width+7) / 8
	if nb > len(h.Data) {
		return fmt.Errorf("a run of dictionary indexes ends early")
	}
	var v uint32
	for i := nb - 1; i >= 0; i-- {
		v = v<<8 | uint32(h.Data[i])
	}
	h.repeat, h.value, h.Data = int(hdr>>1), int32(v), h.Data[nb:]
	h.top = max(h.top, h.value)
	return nil
}

// Top is the largest value of a repeated run decoded so far (0 before
// any): a repeated run's value is not bounded by Width's packing, so a
// caller checking values against a bound checks it.
func (h *Runs) Top() int32 { return h.top }

// Ended reports whether every value was decoded: no data left and no run
// under way.
func (h *Runs) Ended() bool { return len(h.Data) == 0 && h.repeat == 0 && h.packed == 0 }

// allSet is a run of bytes with every bit set, copied by SetBits.
var allSet = func() (b [256]byte) {
	for i := range b {
		b[i] = 0xff
	}
	return b
}()

// SetBits sets bits from to from+k-1 of valid (least significant bit
// first, as Arrow lays out validity).
func SetBits(valid []byte, from, k int) {
	i, end := from, from+k
	for ; i < end && i&7 != 0; i++ {
		valid[i>>3] |= 1 << (i & 7)
	}
	for i+8 <= end {
		// Whole bytes, a copy of up to 256 at a time (an OPTIONAL column
		// with no null is one repeated run of ones a page).
		n := min((end-i)>>3, len(allSet))
		copy(valid[i>>3:i>>3+n], allSet[:n])
		i += n << 3
	}
	for ; i < end; i++ {
		valid[i>>3] |= 1 << (i & 7)
	}
}

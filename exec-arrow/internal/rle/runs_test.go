package rle_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/exec-arrow/internal/rle"
)

// TestRuns decodes runs of repeated values and bit-packed groups,
// across calls that end inside a run, and refuses a truncated run.
func TestRuns(t *testing.T) {
	// Width 3: five 6s, then one packed group 0..7, then three 2s.
	data := []byte{5 << 1, 6, 1<<1 | 1, 0x88, 0xc6, 0xfa, 3 << 1, 2}
	h := rle.Runs{Data: data, Width: 3}
	var got []int32
	for _, n := range []int{2, 5, 4, 5} {
		out := make([]int32, n)
		require.NoError(t, h.Decode(out))
		got = append(got, out...)
	}
	assert.Equal(t, []int32{6, 6, 6, 6, 6, 0, 1, 2, 3, 4, 5, 6, 7, 2, 2, 2}, got)

	short := rle.Runs{Data: []byte{5 << 1}, Width: 3}
	assert.Error(t, short.Decode(make([]int32, 1)))
	past := rle.Runs{Data: data, Width: 3}
	assert.Error(t, past.Decode(make([]int32, 17)))
}

// TestRepeatedRuns decodes repeated runs short and long, of a value of
// one byte and of two, across calls that end inside a run.
func TestRepeatedRuns(t *testing.T) {
	// Width 9: 1,000 of 300, then 3 of 5, then 60 of 511.
	data := []byte{0xd0, 0x0f, 0x2c, 0x01, 3 << 1, 5, 0, 60 << 1, 0xff, 0x01}
	var want []int32
	for range 1000 {
		want = append(want, 300)
	}
	want = append(want, 5, 5, 5)
	for range 60 {
		want = append(want, 511)
	}
	for _, step := range []int{len(want), 999, 64, 63, 1} {
		h := rle.Runs{Data: data, Width: 9}
		var got []int32
		for len(got) < len(want) {
			out := make([]int32, min(step, len(want)-len(got)))
			require.NoError(t, h.Decode(out))
			got = append(got, out...)
		}
		require.Equal(t, want, got, "%d values a call", step)
		require.True(t, h.Ended())
	}
}

// TestSetBits sets every run of bits from any offset, short or longer
// than the bytes it copies at a time, and no other.
func TestSetBits(t *testing.T) {
	lengths := []int{2047, 2048, 2049, 2056, 4100, 20000}
	for k := range 30 {
		lengths = append(lengths, k)
	}
	for from := range 20 {
		for _, k := range lengths {
			got := make([]byte, (from+k)/8+2)
			rle.SetBits(got, from, k)
			want := make([]byte, len(got))
			for i := from; i < from+k; i++ {
				want[i>>3] |= 1 << (i & 7)
			}
			require.Equal(t, want, got, "from %d, %d bits", from, k)
		}
	}
}

// BenchmarkSetBits sets the valid bits of a page of 20,000 present values
// (an OPTIONAL column with no null), from an offset inside a byte.
func BenchmarkSetBits(b *testing.B) {
	valid := make([]byte, 20000/8+2)
	for b.Loop() {
		rle.SetBits(valid, 3, 20000)
	}
}

// packed is one bit-packed run of the values of vals (a multiple of
// eight, each under 1<<w) at width w.
func packed(w uint, vals []uint64) []byte {
	out := packedHeader(len(vals) / 8)
	var acc uint64
	var bits uint
	for _, v := range vals {
		acc |= v << bits
		bits += w
		for bits >= 8 {
			out = append(out, byte(acc))
			acc >>= 8
			bits -= 8
		}
	}
	return out
}

// TestBitPackedEveryWidth decodes bit-packed runs of every width up to
// 32, whole groups at a time and across calls that end inside a group,
// against the values packed.
func TestBitPackedEveryWidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for w := uint(1); w <= 32; w++ {
		vals := make([]uint64, 8*37)
		for i := range vals {
			vals[i] = rng.Uint64N(1 << w)
			if i%5 == 0 {
				vals[i] = 1<<w - 1 // every bit of the width set
			}
		}
		for _, step := range []int{len(vals), 13, 8, 1} {
			h := rle.Runs{Data: packed(w, vals), Width: w}
			var got []uint64
			for len(got) < len(vals) {
				out := make([]int32, min(step, len(vals)-len(got)))
				require.NoError(t, h.Decode(out))
				for _, v := range out {
					got = append(got, uint64(uint32(v)))
				}
			}
			require.Equal(t, vals, got, "width %d, %d values a call", w, step)
		}
	}
}

// wideRun is a bit-packed run of 8,192 random values of w bits, and
// room for them decoded.
func wideRun(w uint) ([]byte, []int32) {
	vals := make([]uint64, 8192)
	for i := range vals {
		vals[i] = uint64(rand.IntN(1 << w))
	}
	return packed(w, vals), make([]int32, len(vals))
}

// BenchmarkDecodeBitPackedWide decodes a bit-packed run of 8,192
// dictionary indexes of 14 bits (a column of some ten thousand values,
// two loads a group of eight) and of 21 bits (a million customers, four
// loads a group).
func BenchmarkDecodeBitPackedWide(b *testing.B) {
	for _, w := range []uint{14, 21} {
		b.Run(fmt.Sprintf("bits=%d", w), func(b *testing.B) {
			data, out := wideRun(w)
			b.SetBytes(8192)
			for b.Loop() {
				h := rle.Runs{Data: data, Width: w}
				if err := h.Decode(out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeBitPacked decodes a bit-packed run of 8,192 dictionary
// indexes of 3 bits (a column of a few values, as DuckDB writes it).
func BenchmarkDecodeBitPacked(b *testing.B) {
	vals := make([]uint64, 8192)
	for i := range vals {
		vals[i] = uint64(rand.IntN(4))
	}
	data := packed(3, vals)
	out := make([]int32, 8192)
	b.SetBytes(8192)
	for b.Loop() {
		h := rle.Runs{Data: data, Width: 3}
		if err := h.Decode(out); err != nil {
			b.Fatal(err)
		}
	}
}

// levels encodes width-1 values as an encoder of the hybrid does: groups
// of eight that are all zero or all one run repeated, the others packed,
// consecutive packed groups in one run.
func levels(vals []uint64) []byte {
	var out []byte
	uvarint := func(x uint64) {
		for x >= 0x80 {
			out = append(out, byte(x)|0x80)
			x >>= 7
		}
		out = append(out, byte(x))
	}
	for g := 0; g < len(vals); {
		same := func(g int) bool {
			for _, v := range vals[g+1 : g+8] {
				if v != vals[g] {
					return false
				}
			}
			return true
		}
		if same(g) {
			e := g + 8
			for e < len(vals) && same(e) && vals[e] == vals[g] {
				e += 8
			}
			uvarint(uint64(e-g) << 1)
			out = append(out, byte(vals[g]))
			g = e
			continue
		}
		e := g + 8
		for e < len(vals) && !same(e) {
			e += 8
		}
		out = append(out, packed(1, vals[g:e])...)
		g = e
	}
	return out
}

// TestDecodeBitsSparseAndDense decodes definition levels of every
// density, from a bit offset, across calls of any length, against the
// levels encoded.
func TestDecodeBitsSparseAndDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, per := range []int{0, 3, 50, 97, 1000} {
		vals := make([]uint64, 8*500)
		for i := range vals {
			if rng.IntN(1000) < per {
				vals[i] = 1
			}
		}
		for _, step := range []int{len(vals), 200, 64, 7} {
			for _, from := range []int{0, 5} {
				h := rle.Runs{Data: levels(vals), Width: 1}
				got := make([]byte, (from+len(vals))/8+1)
				ones, want := 0, 0
				for at := 0; at < len(vals); at += step {
					n, err := h.DecodeBits(got, from+at, min(step, len(vals)-at))
					require.NoError(t, err)
					ones += n
				}
				for i, v := range vals {
					want += int(v)
					require.Equal(t, v == 1, got[(from+i)>>3]>>((from+i)&7)&1 == 1, "density %d/1000, %d a call, from %d: level %d", per, step, from, i)
				}
				require.Equal(t, want, ones)
			}
		}
	}
}

// BenchmarkDecodeBitsSparse decodes the definition levels of 65,536 rows
// of a column null on 97% of them (revenue of the few purchases).
func BenchmarkDecodeBitsSparse(b *testing.B) {
	rng := rand.New(rand.NewPCG(13, 14))
	vals := make([]uint64, 1<<16)
	for i := range vals {
		if rng.IntN(100) < 3 {
			vals[i] = 1
		}
	}
	data := levels(vals)
	valid := make([]byte, len(vals)/8)
	for b.Loop() {
		clear(valid)
		h := rle.Runs{Data: data, Width: 1}
		if _, err := h.DecodeBits(valid, 0, len(vals)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeBitPackedUneven decodes BenchmarkDecodeBitPackedWide's
// run in calls of 1,001 values, as a page's values after its nulls come:
// every call but the first starts inside a byte.
func BenchmarkDecodeBitPackedUneven(b *testing.B) {
	data, out := wideRun(14)
	b.SetBytes(8192)
	for b.Loop() {
		h := rle.Runs{Data: data, Width: 14}
		for at := 0; at < len(out); at += 1001 {
			if err := h.Decode(out[at:min(at+1001, len(out))]); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// FuzzBitPacked decodes one bit-packed run of any width, its payload the
// fuzzer's bytes, in calls of any size, against the values read a bit at
// a time: every path (groups of eight by one, two or four loads, the
// values one at a time around them) must agree with the layout.
func FuzzBitPacked(f *testing.F) {
	f.Add([]byte{0xff, 0x01, 0x80, 0x7f, 0x55, 0xaa, 0x00, 0x10, 0x20}, uint8(9), uint16(8))
	f.Add(bytes.Repeat([]byte{0x5a, 0xc3, 0x0f, 0x81}, 50), uint8(20), uint16(13))
	f.Add([]byte("a run of bytes long enough for a few groups of wide values"), uint8(30), uint16(1))
	f.Fuzz(func(t *testing.T, payload []byte, width uint8, step uint16) {
		w := uint(width%32) + 1
		groups := len(payload) / int(w)
		if groups == 0 || groups > 1<<12 {
			return
		}
		payload = payload[:groups*int(w)]
		data := packedHeader(groups)
		data = append(data, payload...)
		want := make([]int32, groups*8)
		for j := range want {
			var v uint32
			for b := range w {
				bit := uint(j)*w + b
				v |= uint32(payload[bit>>3]>>(bit&7)&1) << b
			}
			want[j] = int32(v)
		}
		n := int(step)%len(want) + 1
		h := rle.Runs{Data: data, Width: w}
		got := make([]int32, len(want))
		for at := 0; at < len(got); at += n {
			require.NoError(t, h.Decode(got[at:min(at+n, len(got))]))
		}
		require.Equal(t, want, got, "width %d, %d values a call", w, n)
		require.True(t, h.Ended())
	})
}

// packedHeader is the header of a bit-packed run of groups groups of
// eight.
func packedHeader(groups int) []byte {
	var out []byte
	hdr := uint64(groups)<<1 | 1
	for hdr >= 0x80 {
		out = append(out, byte(hdr)|0x80)
		hdr >>= 7
	}
	return append(out, byte(hdr))
}

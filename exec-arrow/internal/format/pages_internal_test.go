package format

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/rle"
)

// TestCopyBits: copying n bits between any two offsets gives the bits a
// bit-by-bit copy gives, and leaves the destination's other bits clear.
func TestCopyBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	src := make([]byte, 64)
	for i := range src {
		src[i] = byte(rng.Uint32())
	}
	bit := func(b []byte, i int) byte { return b[i>>3] >> (i & 7) & 1 }
	for range 2000 {
		spos, dpos := rng.IntN(200), rng.IntN(200)
		n := min(rng.IntN(8*len(src)), 8*len(src)-spos, 8*len(src)-dpos)
		dst := make([]byte, len(src))
		copyBits(dst, dpos, src, spos, n)
		for i := range 8 * len(dst) {
			want := byte(0)
			if i >= dpos && i < dpos+n {
				want = bit(src, spos+i-dpos)
			}
			if bit(dst, i) != want {
				t.Fatalf("spos %d dpos %d n %d: bit %d is %d, want %d", spos, dpos, n, i, bit(dst, i), want)
			}
		}
	}
}

// TestParsePageHeader: the page headers of a file, version 1 and 2 data
// pages and a dictionary page, read as the library reads them; every
// shorter prefix of a header is errShortHeader, never a wrong header.
func TestParsePageHeader(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	for _, v2 := range []bool{false, true} {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		for i := range 5000 {
			if i%7 == 0 {
				b.Field(0).AppendNull()
			} else {
				b.Field(0).(*array.StringBuilder).Append(string(rune('a' + i%20)))
			}
		}
		rec := b.NewRecordBatch()
		props := []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Snappy), parquet.WithDataPageSize(1 << 10)}
		if v2 {
			props = append(props, parquet.WithDataPageVersion(parquet.DataPageV2))
		}
		var buf bytes.Buffer
		w, err := pqarrow.NewFileWriter(sc, &buf, parquet.NewWriterProperties(props...), pqarrow.DefaultWriterProps())
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		b.Release()
		data := buf.Bytes()
		pf, err := file.NewParquetReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		cc, err := pf.MetaData().RowGroup(0).ColumnChunk(0)
		if err != nil {
			t.Fatal(err)
		}
		pr, err := pf.RowGroup(0).GetColumnPageReader(0)
		if err != nil {
			t.Fatal(err)
		}
		pos := cc.DictionaryPageOffset()
		end := pos + cc.TotalCompressedSize()
		pages := 0
		for pr.Next() {
			want, err := headOf(pr.Page())
			if err != nil {
				t.Fatal(err)
			}
			got, n, err := parsePageHeader(data[pos:end])
			if err != nil {
				t.Fatalf("page %d: %v", pages, err)
			}
			if got.kind != want.kind || got.values != want.values || got.enc != want.enc ||
				(got.kind == PageData && got.defEnc != want.defEnc) || got.defLen != want.defLen || got.repLen != want.repLen {
				t.Fatalf("page %d: got %+v, want %+v", pages, got, want)
			}
			if v2 && got.kind != pageDataV2 && got.kind != pageDictionary {
				t.Fatalf("page %d: kind %d", pages, got.kind)
			}
			for k := range n {
				if _, _, err := parsePageHeader(data[pos : pos+int64(k)]); !errors.Is(err, errShortHeader) {
					t.Fatalf("page %d, %d of %d bytes: %v", pages, k, n, err)
				}
			}
			pos += int64(n + got.raw)
			pages++
		}
		if pages < 3 || pos != end {
			t.Fatalf("%d pages, ended at %d of %d", pages, pos, end)
		}
	}
}

// TestIndexesOutOfRange: an index past the dictionary is an error,
// whether it is bit-packed or repeated, when the indexes' width could
// hold it and when it could not (a repeated value's bytes may hold more
// than its width), and in a later batch than the run that held it.
func TestIndexesOutOfRange(t *testing.T) {
	packed := func(w uint, vals ...uint64) []byte { // one group of 8 values
		var acc uint64
		for i, v := range vals {
			acc |= v << (uint(i) * w)
		}
		out := []byte{1<<1 | 1}
		for i := uint(0); i < w; i++ {
			out = append(out, byte(acc>>(8*i)))
		}
		return out
	}
	repeated := func(n int, v byte) []byte { return []byte{byte(n << 1), v} }
	cases := []struct {
		name string
		w    uint
		size int
		data []byte
		bad  bool
	}{
		{"packed, all in", 2, 4, packed(2, 0, 1, 2, 3, 3, 2, 1, 0), false},
		{"packed, past a dictionary of 3", 2, 3, packed(2, 0, 1, 2, 3, 0, 0, 0, 0), true},
		{"repeated, past the width", 2, 4, repeated(8, 200), true},
		{"repeated, in", 2, 4, repeated(8, 3), false},
		{"repeated, past a dictionary of 3", 2, 3, repeated(8, 3), true},
		{"repeated then packed, the repeat past", 2, 4, append(repeated(4, 9), packed(2, 1, 1, 1, 1, 1, 1, 1, 1)...), true},
		{"packed then repeated, the repeat past", 2, 4, append(packed(2, 1, 1, 1, 1, 1, 1, 1, 1), repeated(4, 9)...), true},
		{"packed then repeated, in", 2, 4, append(packed(2, 1, 1, 1, 1, 1, 1, 1, 1), repeated(4, 2)...), false},
	}
	for _, c := range cases {
		d := &PageChunk{runs: rle.Runs{Data: c.data, Width: c.w}}
		var err error
		for i := 0; i < 12 && err == nil; i += 4 {
			if i == 8 && d.runs.Ended() {
				break // a case of 8 values
			}
			err = d.indexes(make([]int32, 4), c.size)
		}
		if (err != nil) != c.bad {
			t.Errorf("%s: error %v, want one: %v", c.name, err, c.bad)
		}
	}
}

// TestIntegerDictionariesReuseTheWorkersMemory: a worker reading chunk
// after chunk whose integer dictionaries grow by a few entries decodes
// each into the same memory, and each dictionary holds its own values.
func TestIntegerDictionariesReuseTheWorkersMemory(t *testing.T) {
	io := &PageIO{}
	page := func(n int) []byte {
		b := make([]byte, 0, 8*n)
		for i := range n {
			b = binary.LittleEndian.AppendUint64(b, uint64(1000*n+i))
		}
		return b
	}
	var first *int64
	regrown := 0
	for n := 1000; n < 1200; n += 3 {
		d := &PageChunk{io: io, Typ: domain.TypeInteger, phys: parquet.Types.Int64}
		if err := d.readDictionary(page(n), n); err != nil {
			t.Fatal(err)
		}
		if len(d.dInts) != n || d.dInts[0] != int64(1000*n) || d.dInts[n-1] != int64(1000*n+n-1) {
			t.Fatalf("a dictionary of %d entries read %d, from %d to %d", n, len(d.dInts), d.dInts[0], d.dInts[len(d.dInts)-1])
		}
		if &d.dInts[0] != first {
			first = &d.dInts[0]
			regrown++
		}
	}
	// 67 dictionaries from 1,000 to 1,198 entries: the first allocation
	// and one regrowth at most (1,250 entries cover them all).
	if regrown > 1 {
		t.Fatalf("the dictionary memory was allocated %d times for 67 chunks", regrown)
	}
}

// TestMaxIndexBoundsEveryValue: the largest index is found wherever it
// lies (in each of the four running maxima and the tail), and a negative
// index counts as past any dictionary.
func TestMaxIndexBoundsEveryValue(t *testing.T) {
	for n := range 11 {
		for at := range n {
			idx := make([]int32, n)
			for i := range idx {
				idx[i] = int32(i % 3)
			}
			idx[at] = 59
			if got := maxIndex(idx); got != 59 {
				t.Errorf("%d values, 59 at %d: max %d", n, at, got)
			}
			idx[at] = -1
			if got := maxIndex(idx); got < 60 {
				t.Errorf("%d values, -1 at %d: max %d, within a 60-value dictionary", n, at, got)
			}
		}
	}
	if got := maxIndex(nil); got != 0 {
		t.Errorf("no values: max %d", got)
	}
}

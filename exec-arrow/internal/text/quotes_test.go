package text

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// csvRecords is what a Splitter over the whole of input finds from base
// on: the records, blank lines left out.
func csvRecords(t testing.TB, input []byte, base int) []string {
	var s Splitter
	s.Reset(input[base:], true, true)
	var out []string
	for more := true; more; {
		var spans []int32
		var err error
		spans, more, err = s.Block(nil, 3)
		require.NoError(t, err)
		for k := 0; k < len(spans); k += 2 {
			out = append(out, string(s.Buf[spans[k]:spans[k+1]]))
		}
	}
	return out
}

// csvRanges reads input from base on in ranges of the sizes cycled from
// sizes, each linked to those before it, and returns the records each
// range's bytes hold, and the bytes.
func csvRanges(t testing.TB, input []byte, base int, sizes []int64) (recs []string, bufs [][]byte) {
	size := int64(len(input))
	var bounds []int64
	for lo, i := int64(base), 0; lo < size; i++ {
		bounds = append(bounds, lo)
		lo = min(lo+sizes[i%len(sizes)], size)
	}
	q := NewQuotes(len(bounds))
	r := &Ranged{Src: bytes.NewReader(input), Size: size}
	for i, lo := range bounds {
		hi := size
		if i+1 < len(bounds) {
			hi = bounds[i+1]
		}
		buf, quoted, err := r.ReadCSV(lo, hi, int64(base), func(odd bool) (bool, error) { return q.Link(context.Background(), i, odd) })
		require.NoError(t, err)
		if !quoted && bytes.IndexByte(buf, '"') >= 0 {
			t.Fatalf("range [%d, %d) holds a quote but says it does not", lo, hi)
		}
		var s Splitter
		s.Reset(buf, true, quoted)
		for more := true; more; {
			var spans []int32
			spans, more, err = s.Block(nil, 2)
			require.NoError(t, err)
			for k := 0; k < len(spans); k += 2 {
				recs = append(recs, string(s.Buf[spans[k]:spans[k+1]]))
			}
		}
		bufs = append(bufs, bytes.Clone(buf))
	}
	return recs, bufs
}

// quotedCSV is a CSV input of n records whose quoted fields hold line
// ends, carriage returns, commas and doubled quotes, with blank lines
// and a long record among them.
func quotedCSV(rng *rand.Rand, n int) []byte {
	var b bytes.Buffer
	b.WriteString("id,note,amount\r\n")
	for i := range n {
		switch i % 41 {
		case 3:
			b.WriteString("\n") // blank
		case 17:
			fmt.Fprintf(&b, "%d,\"%s\",1\n", i, strings.Repeat("a\nb,\"\"", 400))
		default:
			note := strings.Repeat("x", rng.IntN(12))
			if rng.IntN(3) == 0 {
				note = `"` + strings.Repeat("q\n", rng.IntN(3)) + `""` + note + "\r\n" + `"`
			}
			end := "\n"
			if rng.IntN(4) == 0 {
				end = "\r\n"
			}
			fmt.Fprintf(&b, "%d,%s,%d%s", i, note, rng.IntN(1000), end)
		}
	}
	return b.Bytes()
}

// TestCSVRangesPartitionTheRecords: whatever the ranges' sizes — one
// byte, inside a quoted field, cutting at a line end inside quotes or
// outside — the ranges hold the records a Splitter over the whole part
// finds, each once and in order, and a range reads whole records.
func TestCSVRangesPartitionTheRecords(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	input := quotedCSV(rng, 500)
	base := bytes.IndexByte(input, '\n') + 1 // past the header
	want := csvRecords(t, input, base)
	require.Greater(t, len(want), 480)
	for _, sizes := range [][]int64{{1}, {2, 3}, {7}, {64}, {1000}, {4096, 1, 13}, {1 << 20}} {
		got, bufs := csvRanges(t, input, base, sizes)
		require.Equal(t, want, got, "ranges of %v bytes", sizes)
		assert.Equal(t, string(input[base:]), string(bytes.Join(bufs, nil)), "ranges of %v bytes", sizes)
	}
	// From the first byte (no header), a part without a final line end,
	// and one ending inside a quoted field.
	for _, in := range [][]byte{input, input[:len(input)-1], []byte("a,\"b\nc"), []byte("\"\"\"\n\"\n\n"), []byte("\n\n")} {
		want := csvRecords(t, in, 0)
		for _, size := range []int64{1, 2, 5, 100} {
			got, _ := csvRanges(t, in, 0, []int64{size})
			require.Equal(t, want, got, "ranges of %d bytes of %q...", size, in[:min(len(in), 20)])
		}
	}
}

// TestCSVRangesReadAtOnce: ranges read by goroutines at once, the later
// ones first, wait for the quotes before them and find the same records.
func TestCSVRangesReadAtOnce(t *testing.T) {
	input := quotedCSV(rand.New(rand.NewPCG(9, 2)), 300)
	want := csvRecords(t, input, 0)
	const size = 97
	n := (len(input) + size - 1) / size
	q := NewQuotes(n)
	got := make([][]string, n)
	var wg sync.WaitGroup
	for i := n - 1; i >= 0; i-- {
		wg.Go(func() {
			r := &Ranged{Src: bytes.NewReader(input), Size: int64(len(input))}
			lo, hi := int64(i*size), min(int64((i+1)*size), int64(len(input)))
			buf, quoted, err := r.ReadCSV(lo, hi, 0, func(odd bool) (bool, error) { return q.Link(context.Background(), i, odd) })
			assert.NoError(t, err)
			var s Splitter
			s.Reset(buf, true, quoted)
			for more := true; more; {
				var spans []int32
				spans, more, _ = s.Block(nil, 4)
				for k := 0; k < len(spans); k += 2 {
					got[i] = append(got[i], string(s.Buf[spans[k]:spans[k+1]]))
				}
			}
		})
	}
	wg.Wait()
	assert.Equal(t, want, slices.Concat(got...))
}

// TestQuotesLinkStopsWithItsContext: a range whose predecessor never
// links returns when its context ends.
func TestQuotesLinkStopsWithItsContext(t *testing.T) {
	q := NewQuotes(2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := q.Link(ctx, 1, true)
	require.ErrorIs(t, err, context.Canceled)
	before, err := q.Link(context.Background(), 0, true)
	require.NoError(t, err)
	assert.False(t, before)
}

// TestReadCSVErrors: a read that fails and a link that fails are the
// range's error; a record past the working set is refused.
func TestReadCSVErrors(t *testing.T) {
	boom := errors.New("boom")
	r := &Ranged{Src: failing{boom}, Size: 100}
	_, _, err := r.ReadCSV(0, 50, 0, func(bool) (bool, error) { return false, nil })
	assert.ErrorIs(t, err, boom)

	input := []byte("a\nb\nc\n")
	r = &Ranged{Src: bytes.NewReader(input), Size: int64(len(input))}
	_, _, err = r.ReadCSV(2, 4, 0, func(bool) (bool, error) { return false, boom })
	assert.ErrorIs(t, err, boom)

	long := append([]byte("\""), bytes.Repeat([]byte("x\n"), 1<<20)...)
	r = &Ranged{Src: bytes.NewReader(long), Size: int64(len(long)), Mem: &grower{limit: 1 << 20}}
	_, _, err = r.ReadCSV(0, 100, 0, func(bool) (bool, error) { return false, nil })
	assert.ErrorIs(t, err, errOver)
}

// FuzzCSVRanges: any input, cut into ranges of any size from any base,
// is read whole and once, and its records are those of a Splitter over
// the whole.
func FuzzCSVRanges(f *testing.F) {
	f.Add([]byte("a,b\n\"x\ny\",1\n\n2,3"), uint16(3), uint16(4))
	f.Add([]byte("\"\"\"\n\"\n\r\n"), uint16(1), uint16(0))
	f.Add([]byte("abc"), uint16(5), uint16(1))
	f.Fuzz(func(t *testing.T, input []byte, size, base uint16) {
		b := int(base) % (len(input) + 1)
		if b > 0 && input[b-1] != '\n' {
			b = 0 // a part's records begin past its header's line end
		}
		want := csvRecords(t, input, b)
		got, bufs := csvRanges(t, input, b, []int64{int64(size%512) + 1})
		if !bytes.Equal(input[b:], bytes.Join(bufs, nil)) {
			t.Fatalf("the ranges read %d bytes of %d", len(bytes.Join(bufs, nil)), len(input)-b)
		}
		if !slices.Equal(want, got) {
			t.Fatalf("records %q, want %q", got, want)
		}
	})
}

package text

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readRanges reads input in ranges of the sizes cycled from sizes and
// returns what the ranges read, in order.
func readRanges(t testing.TB, input []byte, sizes []int64) [][]byte {
	r := &Ranged{Src: bytes.NewReader(input), Size: int64(len(input))}
	var out [][]byte
	for lo, i := int64(0), 0; lo < int64(len(input)); i++ {
		hi := min(lo+sizes[i%len(sizes)], int64(len(input)))
		got, err := r.Read(lo, hi)
		require.NoError(t, err)
		out = append(out, bytes.Clone(got))
		lo = hi
	}
	return out
}

// records splits input as the dispatcher's splitter does: at every line
// end, blank lines left out.
func records(input []byte) []string {
	var out []string
	for _, l := range strings.Split(string(input), "\n") {
		if !Blank([]byte(l), false) {
			out = append(out, l)
		}
	}
	return out
}

// lines is what a Splitter over a range's bytes finds, max records a
// block: its NDJSON lines, blank ones left out.
func lines(t testing.TB, buf []byte, max int) []string {
	var s Splitter
	s.Reset(buf, false, true)
	var out []string
	for more := true; more; {
		spans, m, err := s.Block(nil, max)
		require.NoError(t, err)
		require.LessOrEqual(t, len(spans), 2*max, "at most max records a block")
		for k := 0; k < len(spans); k += 2 {
			out = append(out, string(buf[spans[k]:spans[k+1]]))
		}
		more = m
	}
	return out
}

// TestRangedPartitionsTheLines: whatever the ranges' sizes — one byte,
// shorter than a line, cutting at a line end or just past one — the
// ranges read every byte once, in order, each range whole lines, and
// a Splitter over them finds the records a split of the whole input finds.
func TestRangedPartitionsTheLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var b bytes.Buffer
	for i := range 400 {
		switch i % 37 {
		case 5:
			b.WriteString("\n") // blank
		case 9:
			b.WriteString("  \r\n") // blank too
		case 20:
			b.WriteString(`{"long":"` + strings.Repeat("x", 3000) + "\"}\n")
		default:
			b.WriteString(`{"k":` + strings.Repeat("7", 1+rng.IntN(40)) + "}\n")
		}
	}
	whole := b.Bytes()
	for _, input := range [][]byte{whole, whole[:len(whole)-1], whole[:len(whole)-2], []byte("\n"), []byte("x"), []byte("\n\nx\n")} {
		want := records(input)
		for _, sizes := range [][]int64{{1}, {2}, {7}, {100}, {4096}, {1 << 20}, {1, 3000, 17, 64}} {
			ranges := readRanges(t, input, sizes)
			require.Equal(t, input, bytes.Join(ranges, nil), "sizes %v", sizes)
			var got []string
			for i, r := range ranges {
				if len(r) > 0 && r[len(r)-1] != '\n' {
					require.Empty(t, bytes.Join(ranges[i+1:], nil), "only the input's last line has no line end")
				}
				got = append(got, lines(t, r, 3)...)
			}
			require.Equal(t, want, got, "sizes %v", sizes)
		}
	}
}

// TestRangedMetersAndFails: the buffer's growth is asked of the
// reservation, whose refusal is Read's error; a read error is Read's
// error too.
func TestRangedMetersAndFails(t *testing.T) {
	input := []byte(strings.Repeat(`{"a":1}`+"\n", 1000))
	g := &grower{limit: 1 << 20}
	r := &Ranged{Src: bytes.NewReader(input), Size: int64(len(input)), Mem: g}
	got, err := r.Read(0, 4000)
	require.NoError(t, err)
	assert.Equal(t, 4000, len(got), "8-byte lines: the range ends at a line end")
	assert.GreaterOrEqual(t, g.n, int64(cap(r.buf)), "the buffer is metered")

	r = &Ranged{Src: bytes.NewReader(input), Size: int64(len(input)), Mem: &grower{limit: 100}}
	_, err = r.Read(0, 4000)
	assert.ErrorIs(t, err, errOver)

	boom := errors.New("boom")
	r = &Ranged{Src: failing{boom}, Size: 100}
	_, err = r.Read(0, 50)
	assert.ErrorIs(t, err, boom)
}

var errOver = errors.New("over the working set")

type grower struct{ n, limit int64 }

func (g *grower) Grow(n int64) error {
	if g.n+n > g.limit {
		return errOver
	}
	g.n += n
	return nil
}

type failing struct{ err error }

func (f failing) ReadAt([]byte, int64) (int, error) { return 0, f.err }

// FuzzRanged: any input, cut into ranges of any size, is read whole and
// once, and its records are those of a split of the whole.
func FuzzRanged(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n\n{\"b\":2}"), uint16(3))
	f.Add([]byte("\n\n\n"), uint16(1))
	f.Add([]byte("abc"), uint16(5))
	f.Fuzz(func(t *testing.T, input []byte, size uint16) {
		ranges := readRanges(t, input, []int64{int64(size%512) + 1})
		if !bytes.Equal(input, bytes.Join(ranges, nil)) {
			t.Fatalf("the ranges read %d bytes of %d", len(bytes.Join(ranges, nil)), len(input))
		}
		var got []string
		for _, r := range ranges {
			got = append(got, lines(t, r, 2)...)
		}
		if want := records(input); !slices.Equal(want, got) {
			t.Fatalf("records %q, want %q", got, want)
		}
	})
}

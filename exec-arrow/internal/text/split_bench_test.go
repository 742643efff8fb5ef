package text

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// webCSV is n records shaped as the benchmark's web events (eleven
// fields, about 85 bytes a record, no quotes), each ending in "\n".
func webCSV(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "%d,2024-%02d-%02dT%02d:%02d:%02dZ,%016x,%d,%d,CZ,mobile,view,true,false,", i+1,
			1+rng.IntN(12), 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), rng.IntN(60), rng.Uint64(), rng.IntN(2000000), rng.IntN(50000))
		if rng.IntN(30) == 0 {
			fmt.Fprintf(&b, "%d", rng.IntN(100000))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// BenchmarkSplitter cuts web-shaped CSV into records, as the dispatcher
// does before it hands blocks to the workers.
func BenchmarkSplitter(b *testing.B) {
	data := webCSV(100000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		s := &Splitter{Reader: bytes.NewReader(data), CSV: true}
		for {
			_, _, ok, err := s.Next()
			if err != nil {
				b.Fatal(err)
			}
			if !ok {
				break
			}
			if s.Start > 1<<20 {
				s.Cut(nil)
			}
		}
	}
}

// BenchmarkCSVBlock splits a block of web-shaped records into the fields
// a question reads: the time field alone (the others only counted), or
// the time, the event type and the last field (every byte split), in a
// block that may hold quotes (searched word by word) and one the
// splitter found free of them.
func BenchmarkCSVBlock(b *testing.B) {
	for _, fields := range []struct {
		name string
		at   []int
	}{{"time", []int{1}}, {"three", []int{1, 7, 10}}} {
		for _, quoted := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/quoted=%v", fields.name, quoted), func(b *testing.B) { benchmarkCSVBlock(b, fields.at, quoted) })
		}
	}
}

func benchmarkCSVBlock(b *testing.B, at []int, quoted bool) {
	data := webCSV(8192)
	var spans []int32
	for lo := 0; lo < len(data); {
		i := bytes.IndexByte(data[lo:], '\n')
		spans = append(spans, int32(lo), int32(lo+i))
		lo += i + 1
	}
	var f Fields
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		f.Reset(len(spans)/2, make([]bool, len(at)))
		if err := CSVBlock(data, spans, at, 11, quoted, &f); err != nil {
			b.Fatal(err)
		}
	}
}

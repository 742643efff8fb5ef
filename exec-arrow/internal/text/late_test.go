package text

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Narrow keeps the records whose time the caller finds in the range, in
// order, when they are at most a quarter of the block; leaves a block
// whole when more are, and then tests only every 32nd block; says no
// record when none is; and fails on a record of another width even out
// of the range, as CSVBlock does.
func TestLateNarrowsToTheRange(t *testing.T) {
	block := func(n int) ([]byte, []int32) {
		var b strings.Builder
		var spans []int32
		for k := range n {
			lo := b.Len()
			fmt.Fprintf(&b, "%d,t%d,x", k, k)
			spans = append(spans, int32(lo), int32(b.Len()))
			b.WriteByte('\n')
		}
		return []byte(b.String()), spans
	}
	buf, spans := block(100)
	// every tenth record is in the range (10 of 100), or every other (50)
	every := 10
	tested := 0
	inRange := func(times []string, keep []byte) (int, error) {
		tested++
		if len(times) != 100 || times[7] != "t7" {
			return 0, fmt.Errorf("times %d, times[7] %q", len(times), times[7])
		}
		in := 0
		for k := range times {
			if k%every == 0 {
				keep[k>>3] |= 1 << (k & 7)
				in++
			}
		}
		return in, nil
	}
	mem := &grower{limit: 1 << 20}
	var l Late
	got, err := l.Narrow(mem, buf, spans, 1, 3, false, inRange)
	if err != nil || len(got) != 20 || got[2] != spans[20] || string(buf[got[18]:got[19]]) != "90,t90,x" {
		t.Fatalf("a tenth in the range: %v, %v", got, err)
	}
	every = 2
	for round := range 64 {
		got, err := l.Narrow(mem, buf, spans, 1, 3, false, inRange)
		if err != nil || len(got) != len(spans) {
			t.Fatalf("half in the range, block %d: %d spans, %v; want the block whole", round, len(got), err)
		}
	}
	if tested != 1+1+2 { // the first, the half, then every 32nd
		t.Fatalf("tested %d blocks, want 4", tested)
	}
	if mem.n != 100*lateBytes {
		t.Fatalf("grew the working set by %d, want %d once", mem.n, 100*lateBytes)
	}
	if _, err := new(Late).Narrow(&grower{limit: 10}, buf, spans, 1, 3, false, inRange); !errors.Is(err, errOver) {
		t.Fatalf("the working set refused: %v, want its error", err)
	}
	none := func(times []string, keep []byte) (int, error) { return 0, nil }
	var fresh Late
	if got, err := fresh.Narrow(mem, buf, spans, 1, 3, false, none); got != nil || err != nil {
		t.Fatalf("none in the range: %v, %v", got, err)
	}
	wide := append(append([]byte{}, buf...), "5,t5,x,extra"...)
	wideSpans := append(append([]int32{}, spans...), int32(len(buf)), int32(len(wide)))
	if _, err := fresh.Narrow(mem, wide, wideSpans, 1, 3, false, none); !errors.Is(err, ErrFastPath) {
		t.Fatalf("a record of four fields: %v, want ErrFastPath", err)
	}
}

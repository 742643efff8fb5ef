package text

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
)

// Narrow builds the block's time column afresh and keeps the records whose
// time the caller finds in the range, in order, when they are at most a
// quarter of the block; leaves a block whole when more are, and then
// tests only every 32nd block; says no record when none is; and fails on
// a record of another width or a time the builder refuses even out of the
// range, as CSVBlock and the column would.
func TestLateNarrowsToTheRange(t *testing.T) {
	block := func(n int) ([]byte, []int32) {
		var b strings.Builder
		var spans []int32
		for k := range n {
			lo := b.Len()
			fmt.Fprintf(&b, "%d,%d,x", k, 1000+k)
			spans = append(spans, int32(lo), int32(b.Len()))
			b.WriteByte('\n')
		}
		return []byte(b.String()), spans
	}
	buf, spans := block(100)
	// every tenth record is in the range (10 of 100), or every other (50)
	every := 10
	tested := 0
	times := column.NewBuilder(domain.TypeInteger, false).(TimeBuilder)
	inRange := func(keep []byte) (int, error) {
		tested++
		c := times.Finish("t")
		if c.N != 100 || c.Ints[7] != 1007 || c.Valid != nil {
			return 0, fmt.Errorf("times %d, times[7] %d", c.N, c.Ints[7])
		}
		in := 0
		for k := range c.N {
			if k%every == 0 {
				keep[k>>3] |= 1 << (k & 7)
				in++
			}
		}
		return in, nil
	}
	mem := &grower{limit: 1 << 20}
	var l Late
	got, err := l.Narrow(mem, buf, spans, 1, 3, false, times, inRange)
	if err != nil || len(got) != 20 || got[2] != spans[20] || string(buf[got[18]:got[19]]) != "90,1090,x" {
		t.Fatalf("a tenth in the range: %v, %v", got, err)
	}
	every = 2
	for round := range 64 {
		got, err := l.Narrow(mem, buf, spans, 1, 3, false, times, inRange)
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
	if _, err := new(Late).Narrow(&grower{limit: 10}, buf, spans, 1, 3, false, times, inRange); !errors.Is(err, errOver) {
		t.Fatalf("the working set refused: %v, want its error", err)
	}
	none := func(keep []byte) (int, error) { return 0, nil }
	var fresh Late
	if got, err := fresh.Narrow(mem, buf, spans, 1, 3, false, times, none); got != nil || err != nil {
		t.Fatalf("none in the range: %v, %v", got, err)
	}
	wide := append(append([]byte{}, buf...), "5,1005,x,extra"...)
	wideSpans := append(append([]int32{}, spans...), int32(len(buf)), int32(len(wide)))
	if _, err := fresh.Narrow(mem, wide, wideSpans, 1, 3, false, times, none); !errors.Is(err, ErrFastPath) {
		t.Fatalf("a record of four fields: %v, want ErrFastPath", err)
	}
	bad := append(append([]byte{}, buf...), "5,t5,x"...)
	badSpans := append(append([]int32{}, spans...), int32(len(buf)), int32(len(bad)))
	if _, err := fresh.Narrow(mem, bad, badSpans, 1, 3, false, times, none); !errors.As(err, new(column.ErrNotType)) {
		t.Fatalf("a time that is no integer: %v, want the builder's refusal", err)
	}
	empty := append(append([]byte{}, buf...), "5,,x"...)
	if _, err := fresh.Narrow(mem, empty, badSpans, 1, 3, false, times, func(keep []byte) (int, error) {
		if c := times.Finish("t"); c.N != 101 || c.IsValid(100) || !c.IsValid(99) {
			t.Errorf("an empty time: %d values, the last valid %v; want a null", c.N, c.IsValid(100))
		}
		return 0, nil
	}); err != nil {
		t.Fatalf("an empty time: %v", err)
	}
}

// NarrowNDJSON keeps the lines whose time member is in the range, and
// those whose member is not a plain string or null, whatever their time
// (left null for the test); a line whose member is not a time the
// builder takes fails, in the range or not.
func TestLateNarrowsNDJSON(t *testing.T) {
	var b strings.Builder
	var spans []int32
	for k := range 40 {
		lo := b.Len()
		switch {
		case k == 13:
			fmt.Fprintf(&b, `{"id":%d,"t":%d,"note":"a\"b"}`, k, 1000+k) // a number: kept
		case k == 21:
			fmt.Fprintf(&b, `{"id":%d,"o":{"t":1},"t":"%d\u0030"}`, k, 100+k) // an escape: kept
		case k == 30:
			fmt.Fprintf(&b, `{"id":%d}`, k) // no time: null
		default:
			fmt.Fprintf(&b, ` {"id":%d, "t" : "%d", "x":[1,2]}`, k, 1000+k)
		}
		spans = append(spans, int32(lo), int32(b.Len()))
		b.WriteByte('\n')
	}
	buf := []byte(b.String())
	times := column.NewBuilder(domain.TypeInteger, false).(TimeBuilder)
	inRange := func(keep []byte) (int, error) {
		c := times.Finish("t")
		if c.N != 40 || c.Ints[7] != 1007 || c.IsValid(13) || c.IsValid(21) || c.IsValid(30) {
			return 0, fmt.Errorf("times: %d, [7] %d, valid [13] %v [21] %v [30] %v", c.N, c.Ints[7], c.IsValid(13), c.IsValid(21), c.IsValid(30))
		}
		keep[0] = 1 << 7 // line 7 alone
		return 1, nil
	}
	var l Late
	got, err := l.NarrowNDJSON(&grower{limit: 1 << 20}, buf, spans, NewObject([]string{"t"}), times, inRange)
	if err != nil || len(got) != 6 || got[0] != spans[14] || got[2] != spans[26] || got[4] != spans[42] {
		t.Fatalf("line 7 and the two read whole: %v, %v", got, err)
	}
	bad := append(append([]byte{}, buf...), `{"t":"x"}`...)
	badSpans := append(append([]int32{}, spans...), int32(len(buf)), int32(len(bad)))
	if _, err := new(Late).NarrowNDJSON(&grower{limit: 1 << 20}, bad, badSpans, NewObject([]string{"t"}), times, inRange); !errors.As(err, new(column.ErrNotType)) {
		t.Fatalf("a time that is no integer: %v, want the builder's refusal", err)
	}
}

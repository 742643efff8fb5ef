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
		if c.N != 100 || c.Int(7) != 1007 || c.Valid != nil {
			return 0, fmt.Errorf("times %d, times[7] %d", c.N, c.Int(7))
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
	got, err := l.Narrow(mem, buf, spans, []int{1}, 3, false, []TimeBuilder{times}, inRange)
	if err != nil || len(got) != 20 || got[2] != spans[20] || string(buf[got[18]:got[19]]) != "90,1090,x" {
		t.Fatalf("a tenth in the range: %v, %v", got, err)
	}
	every = 2
	for round := range 64 {
		got, err := l.Narrow(mem, buf, spans, []int{1}, 3, false, []TimeBuilder{times}, inRange)
		if err != nil || len(got) != len(spans) {
			t.Fatalf("half in the range, block %d: %d spans, %v; want the block whole", round, len(got), err)
		}
	}
	if tested != 1+1+2 { // the first, the half, then every 32nd
		t.Fatalf("tested %d blocks, want 4", tested)
	}
	if mem.n != 100*(lateBytes+timeBytes) {
		t.Fatalf("grew the working set by %d, want %d once", mem.n, 100*(lateBytes+timeBytes))
	}
	if _, err := new(Late).Narrow(&grower{limit: 10}, buf, spans, []int{1}, 3, false, []TimeBuilder{times}, inRange); !errors.Is(err, errOver) {
		t.Fatalf("the working set refused: %v, want its error", err)
	}
	none := func(keep []byte) (int, error) { return 0, nil }
	var fresh Late
	if got, err := fresh.Narrow(mem, buf, spans, []int{1}, 3, false, []TimeBuilder{times}, none); got != nil || err != nil {
		t.Fatalf("none in the range: %v, %v", got, err)
	}
	wide := append(append([]byte{}, buf...), "5,1005,x,extra"...)
	wideSpans := append(append([]int32{}, spans...), int32(len(buf)), int32(len(wide)))
	if _, err := fresh.Narrow(mem, wide, wideSpans, []int{1}, 3, false, []TimeBuilder{times}, none); !errors.Is(err, ErrFastPath) {
		t.Fatalf("a record of four fields: %v, want ErrFastPath", err)
	}
	bad := append(append([]byte{}, buf...), "5,t5,x"...)
	badSpans := append(append([]int32{}, spans...), int32(len(buf)), int32(len(bad)))
	if _, err := fresh.Narrow(mem, bad, badSpans, []int{1}, 3, false, []TimeBuilder{times}, none); !errors.As(err, new(column.ErrNotType)) {
		t.Fatalf("a time that is no integer: %v, want the builder's refusal", err)
	}
	empty := append(append([]byte{}, buf...), "5,,x"...)
	if _, err := fresh.Narrow(mem, empty, badSpans, []int{1}, 3, false, []TimeBuilder{times}, func(keep []byte) (int, error) {
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
		if c.N != 40 || c.Int(7) != 1007 || c.IsValid(13) || c.IsValid(21) || c.IsValid(30) {
			return 0, fmt.Errorf("times: %d, [7] %d, valid [13] %v [21] %v [30] %v", c.N, c.Int(7), c.IsValid(13), c.IsValid(21), c.IsValid(30))
		}
		keep[0] = 1 << 7 // line 7 alone
		return 1, nil
	}
	var l Late
	got, err := l.NarrowNDJSON(&grower{limit: 1 << 20}, buf, spans, NewObject([]string{"t"}), []TimeBuilder{times}, inRange)
	if err != nil || len(got) != 6 || got[0] != spans[14] || got[2] != spans[26] || got[4] != spans[42] {
		t.Fatalf("line 7 and the two read whole: %v, %v", got, err)
	}
	bad := append(append([]byte{}, buf...), `{"t":"x"}`...)
	badSpans := append(append([]int32{}, spans...), int32(len(buf)), int32(len(bad)))
	if _, err := new(Late).NarrowNDJSON(&grower{limit: 1 << 20}, bad, badSpans, NewObject([]string{"t"}), []TimeBuilder{times}, inRange); !errors.As(err, new(column.ErrNotType)) {
		t.Fatalf("a time that is no integer: %v, want the builder's refusal", err)
	}
}

// Narrow and NarrowNDJSON build a column for each time field a union's
// questions read, from each record's own fields, and grow the working
// set for each; a line where one of them is not a plain string is kept.
func TestLateNarrowsByTwoTimes(t *testing.T) {
	var csv, nd strings.Builder
	var spans, ndSpans []int32
	for k := range 50 {
		lo := csv.Len()
		fmt.Fprintf(&csv, "%d,%d,x,%d", k, 1000+k, 2000-k)
		spans = append(spans, int32(lo), int32(csv.Len()))
		csv.WriteByte('\n')
		lo = nd.Len()
		if k == 9 {
			fmt.Fprintf(&nd, `{"a":"%d","b":%d}`, 1000+k, 2000-k) // b a number: kept
		} else {
			fmt.Fprintf(&nd, `{"b":"%d","a":"%d"}`, 2000-k, 1000+k)
		}
		ndSpans = append(ndSpans, int32(lo), int32(nd.Len()))
		nd.WriteByte('\n')
	}
	a := column.NewBuilder(domain.TypeInteger, false).(TimeBuilder)
	b := column.NewBuilder(domain.TypeInteger, false).(TimeBuilder)
	// A record is in the range when its first time is 1010 or its second
	// is 1960: records 10 and 40.
	inRange := func(keep []byte) (int, error) {
		ca, cb := a.Finish("a"), b.Finish("b")
		in := 0
		for k := range ca.N {
			if ca.IsValid(int32(k)) && ca.Int(int32(k)) == 1010 || cb.IsValid(int32(k)) && cb.Int(int32(k)) == 1960 {
				keep[k>>3] |= 1 << (k & 7)
				in++
			}
		}
		return in, nil
	}
	mem := &grower{limit: 1 << 20}
	got, err := new(Late).Narrow(mem, []byte(csv.String()), spans, []int{1, 3}, 4, false, []TimeBuilder{a, b}, inRange)
	if err != nil || len(got) != 4 || got[0] != spans[20] || got[2] != spans[80] {
		t.Fatalf("CSV, records 10 and 40: %v, %v", got, err)
	}
	if mem.n != 50*(lateBytes+2*timeBytes) {
		t.Fatalf("grew the working set by %d, want %d", mem.n, 50*(lateBytes+2*timeBytes))
	}
	got, err = new(Late).NarrowNDJSON(mem, []byte(nd.String()), ndSpans, NewObject([]string{"a", "b"}), []TimeBuilder{a, b}, inRange)
	if err != nil || len(got) != 6 || got[0] != ndSpans[18] || got[2] != ndSpans[20] || got[4] != ndSpans[80] {
		t.Fatalf("NDJSON, lines 10 and 40 and line 9 read whole: %v, %v", got, err)
	}
}

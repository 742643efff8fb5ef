package text

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// trickle reads at most a few bytes at a time.
type trickle struct {
	r   io.Reader
	rng *rand.Rand
}

func (t *trickle) Read(p []byte) (int, error) {
	return t.r.Read(p[:min(len(p), 1+t.rng.IntN(300))])
}

// refRecords splits CSV text into records byte by byte: a line end ends
// a record when the quotes since the record began are even; a carriage
// return before it is dropped.
func refRecords(data []byte) []string {
	var out []string
	start, quotes := 0, 0
	for i, c := range data {
		switch {
		case c == '"':
			quotes++
		case c == '\n' && quotes%2 == 0:
			out = append(out, string(bytes.TrimSuffix(data[start:i], []byte{'\r'})))
			start, quotes = i+1, 0
		}
	}
	if start < len(data) {
		out = append(out, string(bytes.TrimSuffix(data[start:], []byte{'\r'})))
	}
	return out
}

// The splitter cuts CSV text where a byte-by-byte reading does — quoted
// line ends inside records, records of many lines, files with quotes
// everywhere, rarely and nowhere — whatever the reads' sizes and however
// often the records read so far are cut off (as a block is).
func TestSplitterCutsWhereQuotesAllow(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, quoteEvery := range []int{0, 3, 40, 2000} {
		for round := range 6 {
			var buf bytes.Buffer
			for range 200 + rng.IntN(2000) {
				for f := range 1 + rng.IntN(5) {
					if f > 0 {
						buf.WriteByte(',')
					}
					if quoteEvery > 0 && rng.IntN(quoteEvery) == 0 {
						buf.WriteString(`"a,` + map[bool]string{true: "\n", false: `""`}[rng.IntN(2) == 0] + `b"`)
						continue
					}
					for range rng.IntN(30) {
						buf.WriteByte('a' + byte(rng.IntN(26)))
					}
				}
				buf.WriteString(map[bool]string{true: "\r\n", false: "\n"}[rng.IntN(5) == 0])
			}
			if rng.IntN(2) == 0 {
				buf.WriteString("tail,without,end")
			}
			if msg := splitLikeReference(buf.Bytes(), rng, 7); msg != "" {
				t.Fatalf("quotes 1 in %d, round %d: %s", quoteEvery, round, msg)
			}
		}
	}
}

// splitLikeReference splits data with reads of random sizes, cutting the
// records read so far off after one record in cutEvery (on average), and
// says how the records differ from refRecords', or "" when they do not.
func splitLikeReference(data []byte, rng *rand.Rand, cutEvery int) string {
	s := &Splitter{Reader: &trickle{bytes.NewReader(data), rng}, CSV: true}
	var got []string
	quoted := false // a record since the last cut holds a quote
	for {
		lo, hi, ok, err := s.Next()
		if err != nil {
			return err.Error()
		}
		if !ok {
			break
		}
		got = append(got, string(s.Buf[lo:hi]))
		quoted = quoted || bytes.IndexByte(s.Buf[lo:hi], '"') >= 0
		if s.Quoted != quoted {
			return fmt.Sprintf("record %d: Quoted is %v, want %v", len(got)-1, s.Quoted, quoted)
		}
		if rng.IntN(cutEvery) == 0 {
			s.Cut(nil)
			quoted = false
		}
	}
	want := refRecords(data)
	if len(got) != len(want) {
		return fmt.Sprintf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			return fmt.Sprintf("record %d is %q, want %q", i, got[i], want[i])
		}
	}
	return ""
}

// FuzzSplitter holds the splitter to a byte-by-byte reading of any text
// (refRecords), whatever the reads' sizes (the input's first byte seeds
// them) and however often the records read so far are cut off.
func FuzzSplitter(f *testing.F) {
	f.Add([]byte("a,\"b\nc\",d\ne,f\r\n\"g\"\"h\",i"), uint64(1))
	f.Add([]byte("\"\"\"\n\n\"x\ny\"\n"), uint64(7))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		if msg := splitLikeReference(data, rand.New(rand.NewPCG(seed, 1)), 3); msg != "" {
			t.Fatal(msg)
		}
	})
}

// FuzzSplitFields holds SplitFields to bytes.Split at commas: the same
// number of fields, and each wanted field the same bytes (the record's
// first byte, modulo 3, leaves every third field unwanted from there) —
// or -1 exactly when the record holds a quote or a carriage return.
func FuzzSplitFields(f *testing.F) {
	f.Add([]byte("1,2024-08-27T08:52:32Z,41f25fdba476a4e5,649568,20693,CZ,mobile,view,true,false,"))
	f.Add([]byte(",,,,,,,,,,,,,,,,,"))
	f.Add([]byte("-,-5,,x,\x2d\x2c\x2b"))
	f.Add([]byte(""))
	f.Add([]byte("abcdefgh,\"q\",x"))
	f.Add([]byte("a,\"b\",cdefghijklmnop"))
	f.Add([]byte("abcdefghijklmnop,x\r"))
	f.Add([]byte("b,xxxxxxxxxxxxxxxx,yyy,zzzzzzzz,,wwwwwwwwwwwwwwwwwwww,v"))
	f.Fuzz(func(t *testing.T, rec []byte) {
		fields := bytes.Split(rec, []byte{','})
		if bytes.ContainsAny(rec, "\"\r") {
			if n := SplitFields(rec, nil, nil); n != -1 {
				t.Fatalf("a record with a quote or a carriage return: %d, want -1", n)
			}
			return
		}
		skip := 0
		if len(rec) > 0 {
			skip = int(rec[0]) % 3
		}
		want, out := make([]int, len(fields)), make([]string, len(fields))
		for k := range want {
			if k%3 != skip {
				want[k] = k + 1
			}
		}
		if n := SplitFields(rec, want[:max(0, len(want)-skip)], out); n != len(fields) {
			t.Fatalf("%d fields, want %d", n, len(fields))
		}
		// Unchecked (a block the splitter found free of quotes and
		// carriage returns), the same fields.
		unchecked := make([]string, len(fields))
		if n := splitFields(rec, want[:max(0, len(want)-skip)], unchecked, false); n != len(fields) || !slices.Equal(unchecked, out) {
			t.Fatalf("unchecked: %d fields %q, want %d fields %q", n, unchecked, len(fields), out)
		}
		for k, fld := range fields {
			if k < len(want)-skip && want[k] > 0 && out[k] != string(fld) {
				t.Fatalf("field %d is %q, want %q", k, out[k], fld)
			}
			if (k >= len(want)-skip || want[k] == 0) && out[k] != "" {
				t.Fatalf("field %d was not wanted but set", k)
			}
		}
	})
}

// TestSplitFieldsCountsPastTheWanted: with want cut after its last wanted
// field (Wanted), the fields after it are counted, not set, in whole
// words and in the tail alike.
func TestSplitFieldsCountsPastTheWanted(t *testing.T) {
	for _, rec := range []string{
		"id,xxxxxxxxxxxxxxxx,yyy,zzzzzzzz,,wwwwwwwwwwwwwwwwwwww,v",
		"1,2024-08-27T08:52:32Z,41f25fdba476a4e5,649568,20693,CZ,mobile,view,true,false,",
		"a,b,,,,,,,,,,,,,,,,,,,,,,,,,",
	} {
		fields := strings.Split(rec, ",")
		for last := range 3 {
			want := make([]int, len(fields))
			want[last] = 1
			want = Wanted(want)
			if len(want) != last+1 {
				t.Fatalf("Wanted kept %d fields, want %d", len(want), last+1)
			}
			out := []string{"unset"}
			if n := SplitFields([]byte(rec), want, out); n != len(fields) || out[0] != fields[last] {
				t.Fatalf("%q, field %d wanted: %d fields, %q; want %d, %q", rec, last, n, out[0], len(fields), fields[last])
			}
		}
	}
}

// TestCarriageReturnsOutsideQuotes: outside quotes, encoding/csv reads
// a record's carriage returns as bytes of its fields, but the one before
// its line end (which the splitter drops from the record): a record
// free of quotes is its bytes cut at the commas, what CSVBlock relies on
// when the splitter saw no quote. Every record of up to eight bytes of
// "a", "," and "\r" is tried, each ending in a line feed and at the end
// of the input.
func TestCarriageReturnsOutsideQuotes(t *testing.T) {
	buf := make([]byte, 0, 2<<20) // reused: a Splitter's first read grows a smaller one
	var try func(rec []byte)
	try = func(rec []byte) {
		if len(rec) > 0 {
			for _, end := range []string{"\n", ""} {
				data := append(append([]byte{}, rec...), end...)
				s := &Splitter{Reader: bytes.NewReader(data), CSV: true, Buf: buf[:0]}
				lo, hi, ok, err := s.Next()
				if err != nil || !ok || lo == hi {
					continue // no record: nothing to cut
				}
				want, err := CSVFields(s.Buf[lo:LineEnd(s.Buf, hi)], -1)
				if err != nil {
					t.Fatalf("%q: %v", data, err)
				}
				got := bytes.Split(s.Buf[lo:hi], []byte{','})
				if len(got) != len(want) {
					t.Fatalf("%q: %d fields cut at commas, encoding/csv reads %q", data, len(got), want)
				}
				for i := range want {
					if string(got[i]) != want[i] {
						t.Fatalf("%q: field %d is %q cut at commas, %q read by encoding/csv", data, i, got[i], want[i])
					}
				}
			}
		}
		if len(rec) < 8 {
			for _, c := range []byte("a,\r") {
				try(append(rec, c))
			}
		}
	}
	try(nil)
}

// TestCSVBlockUnquoted: a block the splitter says holds no quote is cut
// at its commas, carriage returns and all, and one that may hold a quote
// is searched word by word; either way its fields are those encoding/csv
// reads.
func TestCSVBlockUnquoted(t *testing.T) {
	for _, tc := range []struct {
		data   string
		quoted bool
	}{
		{"a,b,c\nd,e,f\ngggggggggggg,hhhhhhhhhhhh,iiiiiiiiiiii\n", false},
		{"a,b\rb,c\r\nd,e,f\r\r\ngggggggggggg,hhhhhhh\rhhhhh,iiiiiiiiiiii\n", false},
		{"a,\"b,b\",c\nd,e,f\ngggggggggggg,\"hhhhhhh,hhhhh\",iiiiiiiiiiii\n", true},
	} {
		data := []byte(tc.data)
		s := &Splitter{Reader: bytes.NewReader(data), CSV: true}
		var spans []int32
		for {
			lo, hi, ok, err := s.Next()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			spans = append(spans, int32(lo), int32(hi))
		}
		if s.Quoted != tc.quoted {
			t.Fatalf("%q: Quoted %v, want %v", tc.data, s.Quoted, tc.quoted)
		}
		var f Fields
		f.Reset(len(spans)/2, make([]bool, 3))
		if err := CSVBlock(s.Buf, spans, []int{0, 1, 2}, 3, tc.quoted, &f); err != nil {
			t.Fatalf("%q: %v", tc.data, err)
		}
		for k := range len(spans) / 2 {
			want, err := CSVFields(s.Buf[spans[2*k]:LineEnd(s.Buf, int(spans[2*k+1]))], 3)
			if err != nil {
				t.Fatal(err)
			}
			for c := range 3 {
				if got := f.Column(c)[k]; got != want[c] {
					t.Fatalf("%q record %d field %d: %q, want %q", tc.data, k, c, got, want[c])
				}
			}
		}
	}
}

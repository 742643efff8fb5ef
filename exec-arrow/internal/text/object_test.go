package text

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// fewNames are read by comparison, manyNamesList through the reader's map.
var (
	fewNames      = []string{"a", "b", "", "é", "a"}
	manyNamesList = []string{"a", "b", "c", "d", "e", "f", "g", "", "é", "b"}
)

// sameAsMap fails unless what o read from line is what encoding/json's
// map holds, and a simple value's text is what its quotes hold.
func sameAsMap(t *testing.T, line []byte, names []string, vals [][]byte, simple []bool) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil || m == nil {
		t.Fatalf("Read took %q, which encoding/json refuses (%v)", line, err)
	}
	for i, n := range names {
		want, present := m[n]
		if present != (vals[i] != nil) || !bytes.Equal(want, vals[i]) {
			t.Fatalf("%q, member %q: Read gave %q (present %v), encoding/json %q (present %v)", line, n, vals[i], vals[i] != nil, want, present)
		}
		if !simple[i] {
			continue
		}
		var s string
		if err := json.Unmarshal(vals[i], &s); err != nil {
			t.Fatalf("%q, member %q: a simple value %q is not a string: %v", line, n, vals[i], err)
		}
		u, err := strconv.Unquote(string(vals[i]))
		if got := string(vals[i][1 : len(vals[i])-1]); got != s || err != nil || got != u {
			t.Fatalf("%q, member %q: simple text %q, encoding/json %q, strconv %q (%v)", line, n, got, s, u, err)
		}
	}
}

func readBoth(t *testing.T, line []byte) (okFew, okMany bool) {
	t.Helper()
	for _, names := range [][]string{fewNames, manyNamesList} {
		o := NewObject(names)
		vals, simple := make([][]byte, len(names)), make([]bool, len(names))
		// A line before, holding every name as a simple string: nothing
		// of it may stay.
		if !o.Read([]byte(`{"a":"1","b":"2","c":"3","d":"4","e":"5","f":"6","g":"7","":"8","é":"9"}`), vals, simple) {
			t.Fatal("the line before was left")
		}
		ok := o.Read(line, vals, simple)
		if ok {
			sameAsMap(t, line, names, vals, simple)
		}
		// Again, its keys now spelt as the last line's.
		if again := o.Read(line, vals, simple); again != ok {
			t.Fatalf("%q: read %v, then %v", line, ok, again)
		} else if ok {
			sameAsMap(t, line, names, vals, simple)
		}
		if len(names) == len(fewNames) {
			okFew = ok
		} else {
			okMany = ok
		}
	}
	if okFew != okMany {
		t.Fatalf("%q: read %v by comparison, %v through the map", line, okFew, okMany)
	}
	return okFew, okMany
}

// TestObjectReadsAsEncodingJSON reads lines of every kind the contract
// covers: those Read takes must match encoding/json member by member,
// those it leaves must include every line encoding/json refuses.
func TestObjectReadsAsEncodingJSON(t *testing.T) {
	for _, c := range []struct {
		line string
		ok   bool
	}{
		{`{}`, true},
		{`{ }`, true},
		{`{"a":1}`, true},
		{`{"a" : "x" , "b":null}`, true},
		{"{\t\"a\"\r\n:\n-0.5e+10}", true},
		{`{"a":1,"a":2}`, true},              // the last member wins
		{`{"a":"x","b":"y","a":null}`, true}, // the last is a null
		{`{"a":true,"b":false,"c":null}`, true},
		{`{"":"empty key","é":"wide key"}`, true},
		{"{\"a\":\"tab\tbyte\"}", false}, // a control byte in a string
		{`{"a":"tab\tescaped\\"}`, true},
		{`{"a":"esc\\\"aped\u00e9\/"}`, true},
		{`{"a":"wide é"}`, true},
		{"{\"a\":\"bad \xff utf-8\"}", true},
		{`{"a":[1,{"b":[]},"x"],"b":{"c":{"d":null}}}`, true},
		{`{"a":1e5,"b":-0,"c":0.0}`, true},
		{`{"\u0061":1}`, false}, // an escape in a key
		{"{\"\xff\":1}", false}, // invalid UTF-8 in a key
		{`{"a":01}`, false},
		{`{"a":1.}`, false},
		{`{"a":.5}`, false},
		{`{"a":1e}`, false},
		{`{"a":-}`, false},
		{`{"a":+1}`, false},
		{`{"a":tru}`, false},
		{`{"a":nulls}`, false},
		{`{"a":1,}`, false},
		{`{"a":1}}`, false},
		{`{"a":1} {"b":2}`, false},
		{`{"a" 1}`, false},
		{`{a:1}`, false},
		{`{"a":"\x41"}`, false},
		{`{"a":"\u12"}`, false},
		{`{"a":"unterminated}`, false},
		{`{"a":[1,]}`, false},
		{`{"a":{"b" 1}}`, false},
		{`[{"a":1}]`, false},
		{`null`, false},
		{`"a"`, false},
		{``, false},
		{`{"a":` + strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1) + `}`, false},
		{`{"a":` + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth) + `}`, true},
	} {
		ok, _ := readBoth(t, []byte(c.line))
		if ok != c.ok {
			t.Errorf("%q: Read reports %v, want %v", c.line, ok, c.ok)
		}
	}
}

// TestObjectReadsWhatEncodingJSONWrites reads objects json.Marshal
// writes, of random members: every one must be read, not left.
func TestObjectReadsWhatEncodingJSONWrites(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	texts := []string{"", "x", "hello world", "quote\"d", "back\\slash", "é ü 漢", "tab\t", "line\nend", "<&>", "\u2028"}
	// One reader over every line, as a part's lines are read.
	long := NewObject(manyNamesList)
	vals, simple := make([][]byte, len(manyNamesList)), make([]bool, len(manyNamesList))
	for range 5000 {
		obj := map[string]any{}
		for range rng.IntN(12) {
			key := manyNamesList[rng.IntN(len(manyNamesList))]
			if rng.IntN(3) == 0 {
				key = fmt.Sprintf("k%d", rng.IntN(50))
			}
			switch rng.IntN(7) {
			case 0:
				obj[key] = nil
			case 1:
				obj[key] = rng.Int64() - rng.Int64()
			case 2:
				obj[key] = rng.NormFloat64() * 1e6
			case 3:
				obj[key] = rng.IntN(2) == 0
			case 4:
				obj[key] = []any{1, "a", map[string]any{"z": nil}}
			default:
				obj[key] = texts[rng.IntN(len(texts))]
			}
		}
		line, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		if rng.IntN(2) == 0 {
			var ind bytes.Buffer
			if err := json.Indent(&ind, line, "", " "); err != nil {
				t.Fatal(err)
			}
			line = ind.Bytes()
		}
		if ok, _ := readBoth(t, line); !ok {
			t.Fatalf("%q: encoding/json's own output was left to encoding/json", line)
		}
		if !long.Read(line, vals, simple) {
			t.Fatalf("%q: left by the reader of every line", line)
		}
		sameAsMap(t, line, manyNamesList, vals, simple)
	}
}

func FuzzObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"b":"x","":null,"é":[{"c":true}]}`, `{"a":"x\u00e9\"y","a":-1.5e3}`,
		"{\"b\":\"\xff\"}", `{"a":{"b":[1,2,{"c":"d"}]},"b":false}`, `{"a" :01}`, `{"a":"\ud800"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		readBoth(t, bytes.TrimSpace(line))
	})
}

func BenchmarkObject(b *testing.B) {
	line := []byte(`{"event_id":18446744,"event_time":"2025-06-14T08:31:07Z","session_id":"9f86d081884c7d65","user_id":1234567,"page_id":48213,"country":"US","device":"mobile","event_type":"purchase","is_view":false,"is_purchase":true,"revenue_cents":12345}`)
	names := []string{"event_time", "event_type", "revenue_cents"}
	b.Run("Object", func(b *testing.B) {
		o := NewObject(names)
		vals, simple := make([][]byte, len(names)), make([]bool, len(names))
		for b.Loop() {
			if !o.Read(line, vals, simple) {
				b.Fatal("left")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		var m map[string]json.RawMessage
		for b.Loop() {
			clear(m)
			if err := json.Unmarshal(line, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestDigitsEveryByte: digits stops at the first byte that is not a
// decimal digit, whichever of the 256 it is and wherever it lies in the
// eight bytes looked at together.
func TestDigitsEveryByte(t *testing.T) {
	for c := range 256 {
		for at := range 12 {
			b := []byte(strings.Repeat("7", 12) + "1")
			b[at] = byte(c)
			want := at
			if c >= '0' && c <= '9' {
				want = len(b)
			}
			if got := digits(b, 0); got != want {
				t.Fatalf("byte %#x at %d: digits %d, want %d", c, at, got, want)
			}
		}
	}
}

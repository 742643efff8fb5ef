package format

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
)

// readNDJSONReference is the Loader's NDJSON reading as it was before
// NDJSONReader: every line decoded by encoding/json into a map.
func (l *Loader) readNDJSONReference(p files.Part, r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 64<<20)
	seen := make([]bool, len(l.wants))
	var obj map[string]json.RawMessage
	line, objects := 0, 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		clear(obj)
		if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
			return fmt.Errorf("file %s, line %d: not a JSON object", p.Path, line)
		}
		objects++
		for i, w := range l.wants {
			raw, ok := obj[w.Name]
			if ok {
				seen[i] = true
			}
			if err := AppendJSON(l.Builders[i], raw); err != nil {
				return LoadError(p.Path, w.Name, line, "line", err)
			}
		}
		l.Rows++
		if err := l.every(objects); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("file %s, after line %d: %w", p.Path, line, err)
	}
	l.segment(objects % column.ChunkRows)
	for i, ok := range seen {
		if !ok && objects > 0 {
			return fmt.Errorf("file %s: column %s is missing (no object holds it)", p.Path, l.wants[i].Name)
		}
	}
	return nil
}

// loadNDJSON reads data as NDJSON part t.ndjson into builders of wants,
// with the Loader or the reference, and renders what it read (loadPart).
func loadNDJSON(data []byte, wants []Want, reference bool) string {
	ref := func(l *Loader, p files.Part) error { return l.readNDJSONReference(p, bytes.NewReader(data)) }
	return loadPart("t.ndjson", files.FormatNDJSON, data, wants, reference, ref)
}

// ndjsonWants wants a, b and c, as text, or b as an integer and c as a
// float when typed.
func ndjsonWants(typed bool) []Want {
	w := []Want{{Name: "a", Type: domain.TypeText}, {Name: "b", Type: domain.TypeText}, {Name: "c", Type: domain.TypeText}}
	if typed {
		w[1].Type, w[2].Type = domain.TypeInteger, domain.TypeFloat
	}
	return w
}

// TestNDJSONLoaderReadsAsEncodingJSON: the Loader reads NDJSON as
// decoding each line into a map did — the same rows, cells and segments,
// or the same error, word for word.
func TestNDJSONLoaderReadsAsEncodingJSON(t *testing.T) {
	var long strings.Builder
	for i := range 3 * column.ChunkRows {
		fmt.Fprintf(&long, `{"a":"x%d","b":%d,"c":%d.5,"z":[1,{"y":null}]}`+"\n", i%7, i, i)
		if i%1000 == 0 {
			fmt.Fprintf(&long, `{"b":%d, "a":"esc\"aped\u00e9", "c":null}`+"\r\n\n", i)
		}
	}
	cases := map[string]string{
		"plain":                 `{"a":"x","b":1,"c":2.5}` + "\n" + `{"a":"y","b":2,"c":3}`,
		"members in any order":  `{"c":1,"b":2,"a":"z"}`,
		"absent and null":       `{"a":"x","b":1,"c":1}` + "\n" + `{"a":null}` + "\n" + `{"c":""}`,
		"repeated member":       `{"a":"first","b":1,"c":1,"a":"last"}`,
		"escapes and wide text": `{"a":"tab\t \"q\" \u00e9 \/ é","b":-0,"c":1e3}`,
		"invalid UTF-8":         "{\"a\":\"\xff\",\"b\":1,\"c\":1}",
		"escaped key":           `{"\u0061":"x","b":1,"c":1}`,
		"white space":           " \t{ \"a\" : \"x\" , \"b\" : 1 , \"c\" : 1 } \r\n\n\v\n",
		"booleans as text":      `{"a":true,"b":1,"c":1}` + "\n" + `{"a":false,"b":2,"c":2}`,
		"nested unwanted":       `{"a":"x","b":1,"c":1,"d":{"e":[{"f":[]}]}}`,
		"nested wanted":         `{"a":["x"],"b":1,"c":1}`,
		"not an object":         `{"a":"x","b":1,"c":1}` + "\n" + `[1]`,
		"a null line":           `null`,
		"trailing comma":        `{"a":"x","b":1,"c":1,}`,
		"two objects":           `{"a":"x","b":1,"c":1} {"a":"y"}`,
		"bad number":            `{"a":"x","b":01,"c":1}`,
		"not an integer":        `{"a":"x","b":1.5,"c":1}`,
		"missing column":        `{"a":"x","b":1}`,
		"over many blocks":      long.String(),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			for _, typed := range []bool{false, true} {
				wants := ndjsonWants(typed)
				want := loadNDJSON([]byte(data), wants, true)
				if got := loadNDJSON([]byte(data), wants, false); got != want {
					t.Fatalf("typed %v:\nLoader:\n%.2000s\nreference:\n%.2000s", typed, got, want)
				}
			}
		})
	}
}

// FuzzLoaderNDJSON: for any bytes as an NDJSON part, the Loader reads
// what decoding each line into a map read, or fails with its error.
func FuzzLoaderNDJSON(f *testing.F) {
	for _, s := range []string{`{"a":"x","b":1,"c":2.5}`, "{\"a\":\"\xff\",\"b\":null,\"c\":\"\"}\n\n{\"c\":1,\"a\":[]}",
		`{"a":"\ud800","b":"1","c":true,"a":"again"}`, `{"a":"x"} {"b":1}`} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, typed bool) {
		wants := ndjsonWants(typed)
		want := loadNDJSON(data, wants, true)
		if got := loadNDJSON(data, wants, false); got != want {
			t.Fatalf("Loader:\n%.2000s\nreference:\n%.2000s", got, want)
		}
	})
}

// TestTextAsAppendHandsIt: wherever Text answers, it answers what Append
// hands a builder (a null as ""), over values of every kind; it leaves
// to Append the strings with escapes or bytes past ASCII, objects and
// arrays.
func TestTextAsAppendHandsIt(t *testing.T) {
	names := []string{"a", "b"}
	values := []string{`"x"`, `""`, `null`, `0`, `-12.5e3`, `true`, `false`, `"caf\u00e9"`, `"é"`, `"a\"b"`, `{"c":1}`, `[1,2]`, `" padded "`}
	for _, a := range values {
		for _, b := range []string{"", `,"b":` + a} {
			line := `{"a":` + a + b + `}`
			rd := NewNDJSONReader(names)
			if !rd.Line([]byte(line)) {
				t.Fatalf("line %s not read", line)
			}
			for i := range names {
				got, ok := rd.Text(i)
				var tc textCapture
				err := rd.Append(i, &tc)
				if !ok {
					if a == `"x"` || a == `null` || a == `0` || a == `true` {
						t.Errorf("%s: member %d left to Append", line, i)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: Append failed where Text answered: %v", line, err)
				}
				if got != tc.v {
					t.Errorf("%s: member %d: Text %q, Append %q", line, i, got, tc.v)
				}
			}
		}
	}
}

// textCapture keeps the last text appended ("" for a null).
type textCapture struct {
	column.Builder
	v string
}

func (c *textCapture) AppendNull() { c.v = "" }

func (c *textCapture) AppendText(s string) error { c.v = s; return nil }

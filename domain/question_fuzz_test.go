package domain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseQuestion checks the parser's promises on any input:
//   - it never panics;
//   - every error is a *FieldError;
//   - a question it accepts satisfies the question rules, re-marshals to
//     its wire shape and parses back to an equal question;
//   - no error repeats a string the caller sent (a value, or a key that is
//     not an identifier) longer than 8 bytes, and never the planted marker.
//
// Seeds live in testdata/fuzz/FuzzParseQuestion.
func FuzzParseQuestion(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		q, err := ParseQuestion(data)
		if err != nil {
			if p := parseErrorProblem(data, err); p != "" {
				t.Fatal(p)
			}
			return
		}
		checkAccepted(t, q)
		wire, merr := json.Marshal(q)
		if merr != nil {
			t.Fatalf("Marshal of an accepted question: %v", merr)
		}
		again, perr := ParseQuestion(wire)
		if perr != nil {
			t.Fatalf("re-parse of %s: %v", wire, perr)
		}
		if !reflect.DeepEqual(again, q) {
			t.Fatalf("round trip changed the question:\n%s\n%s", dump(q), dump(again))
		}
	})
}

// checkAccepted asserts the rules a parsed question always satisfies.
func checkAccepted(t *testing.T, q Question) {
	t.Helper()
	if len(q.Metrics) == 0 {
		t.Fatal("accepted a question without metrics")
	}
	for _, m := range append(append([]string{}, q.Metrics...), q.Dimensions...) {
		if CheckIdent(m) != nil {
			t.Fatalf("accepted a name that is not an identifier: %q", m)
		}
	}
	if q.Grain < Day || q.Grain > Year {
		t.Fatalf("accepted grain %d", q.Grain)
	}
	switch {
	case (q.Range.Fixed == nil) == (q.Range.Relative == nil):
		t.Fatalf("range is neither fixed nor relative, or both: %s", dump(q))
	case q.Range.Fixed != nil:
		if q.Range.Fixed.End <= q.Range.Fixed.Start {
			t.Fatalf("accepted an empty range %v", *q.Range.Fixed)
		}
	default:
		r := q.Range.Relative
		if r.Count < 1 || r.Unit < Day || r.Unit > Year {
			t.Fatalf("accepted relative range %+v", *r)
		}
	}
	for _, fl := range q.Filters {
		if CheckIdent(fl.Dimension) != nil {
			t.Fatalf("accepted filter dimension %q", fl.Dimension)
		}
		switch fl.Op {
		case OpEq:
			if len(fl.Values) != 1 {
				t.Fatalf("eq with %d values", len(fl.Values))
			}
		case OpIn, OpNotIn:
			if len(fl.Values) < 1 || len(fl.Values) > MaxFilterValues {
				t.Fatalf("%s with %d values", fl.Op, len(fl.Values))
			}
		default:
			t.Fatalf("accepted op %q", fl.Op)
		}
		for _, v := range fl.Values {
			if err := CheckValue(v); err != nil {
				t.Fatalf("accepted a filter value that is not a valid value: %v", err)
			}
		}
	}
	if q.Top != nil {
		if q.Top.N < 1 || (q.Top.By != ByMetric && q.Top.By != ByPeriod) || (q.Top.Direction != "asc" && q.Top.Direction != "desc") {
			t.Fatalf("accepted top %+v", *q.Top)
		}
	}
}

// parseErrorProblem returns what is wrong with err as the parser's answer
// to data, or "" when nothing is.
func parseErrorProblem(data []byte, err error) string {
	fe, ok := err.(*FieldError)
	if !ok {
		return fmt.Sprintf("error %T %v is not a *FieldError", err, err)
	}
	msg := fe.Error()
	strs, identKeys, parsed := jsonStrings(data)
	if strings.Contains(msg, planted) && !anyContains(identKeys, planted) {
		return fmt.Sprintf("error %q repeats the planted marker", msg)
	}
	if !parsed {
		return "" // a syntax error; the error names a position at most
	}
	for _, s := range strs {
		if len(s) <= 8 || !strings.Contains(msg, s) {
			continue
		}
		// The error contains s. That is fine only when s came from
		// elsewhere (an identifier key, which errors name by design, or the
		// error's own prose): then it stays when this one string is
		// disguised in the input.
		shadow, _, _ := rewriteJSON(data, func(x string) string {
			if x == s {
				return disguise(x)
			}
			return x
		})
		_, serr := ParseQuestion(shadow)
		if serr == nil || !strings.Contains(serr.Error(), s) {
			return fmt.Sprintf("error %q repeats the caller's text %q", msg, s)
		}
	}
	return ""
}

func anyContains(xs []string, sub string) bool {
	for _, x := range xs {
		if strings.Contains(x, sub) {
			return true
		}
	}
	return false
}

// disguise changes s while keeping what the parser can tell about it: the
// case of ASCII letters is swapped (identifiers stay identifiers, values
// stay valid or invalid for the same reason); without letters, digits are
// rotated.
func disguise(s string) string {
	b := []byte(s)
	letters := false
	for i, c := range b {
		switch {
		case 'a' <= c && c <= 'z':
			b[i], letters = c-32, true
		case 'A' <= c && c <= 'Z':
			b[i], letters = c+32, true
		}
	}
	if !letters {
		for i, c := range b {
			if '0' <= c && c <= '9' {
				b[i] = '0' + (c-'0'+1)%10
			}
		}
	}
	return string(b)
}

// jsonStrings returns the string values and non-identifier keys of data
// (strs), its identifier keys, and whether data is exactly one JSON value.
// For input that does not parse, what was read before the fault is
// returned.
func jsonStrings(data []byte) (strs, identKeys []string, ok bool) {
	_, seen, ok := rewriteJSON(data, nil)
	for _, s := range seen {
		if s.key && CheckIdent(s.text) == nil {
			identKeys = append(identKeys, s.text)
		} else {
			strs = append(strs, s.text)
		}
	}
	return strs, identKeys, ok
}

type seenString struct {
	text string
	key  bool
}

// rewriteJSON re-encodes data token by token, keeping duplicate keys and
// member order, with every string value and every key that is not an
// identifier passed through f (identity when f is nil). It reports every
// string it met and whether data was exactly one JSON value.
func rewriteJSON(data []byte, f func(string) string) ([]byte, []seenString, bool) {
	if f == nil {
		f = func(s string) string { return s }
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out bytes.Buffer
	var seen []seenString
	str := func(s string, key bool) {
		seen = append(seen, seenString{s, key})
		if !key || CheckIdent(s) != nil {
			s = f(s)
		}
		b, _ := json.Marshal(s)
		out.Write(b)
	}
	var value func(depth int) error
	value = func(depth int) error {
		if depth > 10000 {
			return errors.New("too deep")
		}
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				out.WriteByte('{')
				for i := 0; dec.More(); i++ {
					if i > 0 {
						out.WriteByte(',')
					}
					kt, err := dec.Token()
					if err != nil {
						return err
					}
					k, _ := kt.(string)
					str(k, true)
					out.WriteByte(':')
					if err := value(depth + 1); err != nil {
						return err
					}
				}
				if _, err := dec.Token(); err != nil {
					return err
				}
				out.WriteByte('}')
			case '[':
				out.WriteByte('[')
				for i := 0; dec.More(); i++ {
					if i > 0 {
						out.WriteByte(',')
					}
					if err := value(depth + 1); err != nil {
						return err
					}
				}
				if _, err := dec.Token(); err != nil {
					return err
				}
				out.WriteByte(']')
			default:
				return errors.New("unexpected delimiter")
			}
		case string:
			str(v, false)
		case json.Number:
			out.WriteString(string(v))
		case bool:
			out.WriteString(strconv.FormatBool(v))
		case nil:
			out.WriteString("null")
		}
		return nil
	}
	if err := value(0); err != nil {
		return nil, seen, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, seen, false
	}
	return out.Bytes(), seen, true
}

// TestFuzzHelpers checks the fuzz target's own machinery, which would
// otherwise pass vacuously.
func TestFuzzHelpers(t *testing.T) {
	in := []byte(`{"a":"ZZplanted value","a":[1,"x",{"zz long key":true}],"ok":null}`)
	out, seen, ok := rewriteJSON(in, disguise)
	if !ok {
		t.Fatal("rewriteJSON refused valid JSON")
	}
	if string(out) != `{"a":"zzPLANTED VALUE","a":[1,"X",{"ZZ LONG KEY":true}],"ok":null}` {
		t.Fatalf("rewriteJSON = %s", out)
	}
	if len(seen) != 6 || !seen[0].key || seen[1].key || seen[1].text != "ZZplanted value" {
		t.Fatalf("seen = %+v", seen)
	}
	strs, keys, ok := jsonStrings(in)
	if !ok || len(keys) != 3 || len(strs) != 3 {
		t.Fatalf("jsonStrings = %q %q %v", strs, keys, ok)
	}
	if _, _, ok := rewriteJSON([]byte(`{"a":1} x`), nil); ok {
		t.Fatal("trailing data accepted")
	}
	if disguise("2026-01-01") != "3137-12-12" || disguise("Net_Sales9") != "nET_sALES9" {
		t.Fatal("disguise")
	}
	// The leak check must catch a leak: an error that repeats a value or a
	// key that is not an identifier, or the planted marker.
	for _, leaky := range []*FieldError{
		{Field: "filters[0].value", Problem: "is bad: ZZplanted value"},
		{Field: "x", Problem: "names zz long key"},
	} {
		if parseErrorProblem(in, leaky) == "" {
			t.Errorf("the fuzz check did not flag %q", leaky)
		}
	}
	if parseErrorProblem([]byte(`{"a":"ZZplanted`), &FieldError{Problem: "ZZplanted"}) == "" {
		t.Error("the fuzz check did not flag the marker in a syntax error")
	}
	// ... and must not flag an identifier key that an error names by design,
	// even when a value repeats it.
	named := []byte(`{"metrics":["sales_key_1"],"sales_key_1":"sales_key_1"}`)
	_, err := ParseQuestion(named)
	if err == nil || !strings.Contains(err.Error(), "sales_key_1") {
		t.Fatalf("fixture: %v", err)
	}
	if p := parseErrorProblem(named, err); p != "" {
		t.Errorf("flagged a key named by design: %s", p)
	}
	if parseErrorProblem(in, errors.New("plain")) == "" {
		t.Error("an error that is not a *FieldError was not flagged")
	}
}

// TestFuzzSeedCorpus keeps the committed seeds meaningful: files named
// valid_* parse, every other seed is refused, and there are enough of them.
func TestFuzzSeedCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzParseQuestion")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 8 {
		t.Fatalf("%d seeds, want at least 8", len(entries))
	}
	valid := 0
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		header, body, ok := strings.Cut(string(raw), "\n")
		if !ok || header != "go test fuzz v1" || !strings.HasPrefix(body, "[]byte(") {
			t.Fatalf("%s is not in the go test fuzz v1 format", e.Name())
		}
		lit := strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(body, "[]byte(")), ")")
		data, err := strconv.Unquote(lit)
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		_, perr := ParseQuestion([]byte(data))
		if strings.HasPrefix(e.Name(), "valid_") {
			valid++
			if perr != nil {
				t.Errorf("seed %s is refused: %v", e.Name(), perr)
			}
		} else if perr == nil && !strings.HasPrefix(e.Name(), "crash") {
			t.Errorf("seed %s is accepted", e.Name())
		}
	}
	if valid < 2 {
		t.Errorf("%d valid seeds, want at least 2", valid)
	}
}

package mdcatalog

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"sutura.dev/domain"
)

// plantTemplates are valid documents with @V@ in value positions and in
// keys; the fuzzer writes its value there as a YAML double-quoted string.
var plantTemplates = []string{
	"---\nkind: @V@\n---\n",
	"---\nkind: model\nname: @V@\nsource: @V@\ntable: @V@\ncolumns: [@V@, {name: a, type: @V@, description: @V@}]\nprimary_key: @V@\naudience: {restricted: [@V@]}\n@V@: 1\n---\n@V@\n",
	"---\nkind: relationship\nname: r\norigin: {model: @V@, column: @V@}\ntarget: {model: a, column: b, @V@: c}\njoin_type: @V@\n---\n",
	"---\nkind: metric\nname: m\nmodel: o\nmeasure: {simple: {aggregate: @V@, column: @V@}}\ntime_column: d\ngrains: [@V@]\n" +
		"dimensions: [{name: @V@, column: c, via: [@V@], values: [@V@, @V@]}]\nrequired_filters: [{equals: {column: c, value: @V@}}, {@V@: {column: c}}]\n" +
		"anchor: {range: {start: @V@, end: @V@}, value: @V@}\naudience: @V@\n---\n",
	"---\nkind: metric\nname: m\nmodel: o\nauthored_sql: {postgres: @V@, @V@: x}\ntime_column: d\ngrains: [month]\ndimensions: []\naudience: open\n---\n",
	"---\nkind: glossary\nterm: @V@\nsynonyms: [@V@, @V@]\nmeans: {metric: @V@, dimension: @V@, value: @V@}\n---\n@V@\n",
	"---\nkind: caveat\nname: @V@\nabout: [@V@]\n---\n",
	"---\nkind: not_defined\nphrase: @V@\nsynonyms: [@V@]\n---\n",
	"---\nkind: example\nname: e\nasked: [@V@]\nquestion: {metrics: [@V@], grain: @V@, range: {start: @V@, end: @V@}, dimensions: [@V@], " +
		"filters: [{op: eq, dimension: a, value: @V@}, {op: in, dimension: a, values: [@V@]}], top: {n: @V@, by: @V@}}\n---\n",
	"---\nkind: example\nname: e\nasked: [a]\nquestion: {metrics: [m], grain: month, range: {start: 2026-01-01, end: 2026-02-01}, filters: [{op: eq, dimension: a, value: @V@}]}\n---\n",
	"---\nkind: example\nname: e\nasked: [a]\nquestion: {metrics: [m], grain: month, range: {last: {count: @V@, unit: @V@}}, @V@: 1}\n---\n",
}

// modelKeys are the top-level keys a model document may hold.
var modelKeys = []string{"kind", "name", "source", "table", "columns", "primary_key", "audience"}

// distinctive reports whether v is a value no error text could hold by
// chance: errors are ASCII and never use these characters.
func distinctive(v string) bool {
	if utf8.RuneCountInString(v) < 4 || !utf8.ValidString(v) {
		return false
	}
	for _, r := range v {
		if r > utf8.RuneSelf || strings.ContainsRune("#%&!~^$?=+@", r) {
			return true
		}
	}
	return false
}

// FuzzFrontMatter feeds one document through front-matter splitting, YAML
// decoding, schema validation and building. Its property, on any input:
//   - it never panics, and every error is an *Error about the file that
//     wraps its sentinel;
//   - no error quotes a value written in the document, wherever it is
//     written (a value, a list item, the body, a key): a key is author
//     text too, so a key that is not an identifier (such as "+000", which
//     once came back as the index "[+000]") is described as "(a key that is
//     not an identifier)" beside the file:line:column that locates it;
//   - an unknown key that IS an identifier is named, as the contract asks
//     ("colour: is not a known key here").
//
// Seeds live in testdata/fuzz/FuzzFrontMatter; a finding is committed
// there with its fix.
func FuzzFrontMatter(f *testing.F) {
	f.Add([]byte("---\nkind: model\nname: m\nsource: s\ntable: t\ncolumns: [a]\n---\nbody\n"), "ZZ-planted-77!")
	schemas, err := loadSchemas()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, value string) {
		_, errs := readDocument("fuzz.md", data, schemas)
		for _, e := range errs {
			if e.File != "fuzz.md" || e.Err == nil || e.Reason == "" {
				t.Fatalf("malformed error %#v", e)
			}
			if !errors.Is(e, e.Err) {
				t.Fatalf("error does not wrap its sentinel: %v", e)
			}
		}
		if domain.CheckIdent(value) == nil && !slices.Contains(modelKeys, value) {
			doc := "---\nkind: model\nname: m\nsource: s\ntable: t\ncolumns: [a]\n" + value + ": 1\n---\n"
			_, errs := readDocument("fuzz.md", []byte(doc), schemas)
			if !slices.ContainsFunc(errs, func(e *Error) bool { return errors.Is(e, ErrUnknownKey) && e.Key == value }) {
				t.Fatalf("the unknown key %q is not named: %v", value, errs.err())
			}
		}
		if !distinctive(value) {
			return
		}
		quoted, err := json.Marshal(value)
		if err != nil {
			return
		}
		for _, tmpl := range plantTemplates {
			doc := strings.ReplaceAll(tmpl, "@V@", string(quoted))
			_, errs := readDocument("fuzz.md", []byte(doc), schemas)
			for _, e := range errs {
				if strings.Contains(e.Error(), value) {
					t.Fatalf("error quotes the planted value %q: %v\ndocument:\n%s", value, e, doc)
				}
			}
			// The same value written raw, as the whole front matter and as a
			// line of it, must not leak either.
			for _, raw := range []string{"---\n" + value + "\n---\n", "---\nkind: model\nname: " + value + "\n---\n", value} {
				_, errs := readDocument("fuzz.md", []byte(raw), schemas)
				for _, e := range errs {
					if strings.Contains(e.Error(), value) {
						t.Fatalf("error quotes the planted value %q: %v", value, e)
					}
				}
			}
		}
	})
}

package domain

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// planted is the marker every malformed question below carries in a value
// or a key. No error may repeat it: a caller's text is never echoed.
const planted = "ZZplanted"

// notIdent is how an error names a key that is not an identifier.
const notIdent = "(a field whose name is not an identifier)"

// q builds a question document from a base whose required fields are valid
// and a list of extra members (raw JSON "key": value pairs) appended to it.
func q(extra ...string) string {
	base := []string{
		`"metrics":["net_sales"]`,
		`"grain":"month"`,
		`"range":{"start":"2026-01-01","end":"2026-04-01"}`,
	}
	return "{" + strings.Join(append(base, extra...), ",") + "}"
}

// without builds a question with member key left out and extra appended.
func without(key string, extra ...string) string {
	var members []string
	for _, m := range []string{
		`"metrics":["net_sales"]`,
		`"grain":"month"`,
		`"range":{"start":"2026-01-01","end":"2026-04-01"}`,
	} {
		if !strings.HasPrefix(m, `"`+key+`"`) {
			members = append(members, m)
		}
	}
	return "{" + strings.Join(append(members, extra...), ",") + "}"
}

// plantedFilter is a valid filter carrying the marker in its value, so that
// every error case holds the marker even when its fault lies elsewhere.
const plantedFilter = `"filters":[{"op":"eq","dimension":"area","value":"ZZplanted ok"}]`

func nested(depth int) string {
	return strings.Repeat("[", depth) + `"ZZplanted"` + strings.Repeat("]", depth)
}

func manyValues(n int) string {
	var vs []string
	for i := 0; i < n; i++ {
		vs = append(vs, fmt.Sprintf(`"ZZplanted%d"`, i))
	}
	return "[" + strings.Join(vs, ",") + "]"
}

func TestParseQuestionErrors(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		field string // the exact FieldError.Field
		want  error  // an underlying sentinel, if any
		has   string // a phrase the problem must hold, if any
	}{
		// Unknown top-level fields are refused by name, never dropped.
		{"sql", q(`"sql":"ZZplanted select 1"`), "sql", nil, "is not a field"},
		{"table", q(`"table":"ZZplanted_orders"`), "table", nil, "is not a field"},
		{"where", q(`"where":"ZZplanted = 1"`), "where", nil, "is not a field"},
		{"predicate", q(`"predicate":{"ZZplanted":1}`), "predicate", nil, "is not a field"},
		{"rows", q(`"rows":["ZZplanted"]`), "rows", nil, "is not a field"},
		{"unknown field first", `{"sql":"ZZplanted","metrics":["m"],"grain":"day","range":{"start":"2026-01-01","end":"2026-01-02"}}`, "sql", nil, "is not a field"},
		{"camel-case near miss", q(`"Metrics":["ZZplanted"]`), "Metrics", nil, "is not a field"},

		// Keys that are not identifiers are described, never quoted.
		{"key with spaces", q(`"zz planted key":"ZZplanted"`), notIdent, nil, "is not a field"},
		{"key with a hyphen", q(`"ZZplanted-key":1`), notIdent, nil, ""},
		{"key with a control character", q(`"ZZplanted\u0007":1`), notIdent, nil, ""},
		{"non-ASCII key", q(`"ZZplantedé":1`), notIdent, nil, ""},
		{"64-character key", q(`"ZZplanted` + strings.Repeat("k", 55) + `":1`), notIdent, nil, ""},
		{"empty key", q(`"":"ZZplanted"`), notIdent, nil, ""},
		{"nested key that is not an identifier", `{"metrics":["m"],"grain":"day","range":{"start":"2026-01-01","end":"2026-01-02","zz planted key":"ZZplanted"}}`, "range." + notIdent, nil, ""},
		{"key like a path", q(`"filters[0].ZZplanted":1`), notIdent, nil, ""},

		// Unknown nested fields.
		{"range.foo", `{"metrics":["m"],"grain":"day","range":{"start":"2026-01-01","end":"2026-01-02","foo":"ZZplanted"}}`, "range.foo", nil, "is not a field of range"},
		{"range.start beside last", `{"metrics":["m"],"grain":"day","range":{"start":"ZZplanted","last":{"count":1,"unit":"day"}}}`, "range.start", nil, "is not a field"},
		{"range.last.foo", `{"metrics":["m"],"grain":"day","range":{"last":{"count":1,"unit":"day","foo":"ZZplanted"}}}`, "range.last.foo", nil, "is not a field"},
		{"filters[0].extra", q(`"filters":[{"op":"eq","dimension":"area","value":"ZZplanted","extra":"ZZplanted"}]`), "filters[0].extra", nil, "is not a field"},
		{"filters[1].sql", q(`"filters":[{"op":"eq","dimension":"area","value":"east"},{"op":"in","dimension":"c","values":["ZZplanted"],"sql":"ZZplanted"}]`), "filters[1].sql", nil, ""},
		{"top.x", q(plantedFilter, `"top":{"n":5,"by":"metric","x":"ZZplanted"}`), "top.x", nil, "is not a field of top"},

		// eq carries value, in/not_in carry values.
		{"eq with values", q(`"filters":[{"op":"eq","dimension":"area","values":["ZZplanted"]}]`), "filters[0].values", nil, "is not a field"},
		{"eq with value and values", q(`"filters":[{"op":"eq","dimension":"area","value":"ZZplanted","values":["ZZplanted"]}]`), "filters[0].values", nil, ""},
		{"in with value", q(`"filters":[{"op":"in","dimension":"area","value":"ZZplanted"}]`), "filters[0].value", nil, "is not a field"},
		{"not_in with value", q(`"filters":[{"op":"not_in","dimension":"area","value":"ZZplanted"}]`), "filters[0].value", nil, ""},
		{"in with 0 values", q(plantedFilter[:len(plantedFilter)-1] + `,{"op":"in","dimension":"c","values":[]}]`), "filters[1].values", nil, "at least 1"},
		{"not_in with 0 values", q(`"filters":[{"op":"not_in","dimension":"c","values":[]}]`, `"dimensions":["ZZplanted_d"]`), "filters[0].values", nil, "at least 1"},
		{"in with 65 values", q(`"filters":[{"op":"in","dimension":"c","values":` + manyValues(65) + `}]`), "filters[0].values", nil, "at most 64"},
		{"not_in with 65 values", q(`"filters":[{"op":"not_in","dimension":"c","values":` + manyValues(65) + `}]`), "filters[0].values", nil, "at most 64"},

		// Values (§3.3): the exact element is named, the value never.
		{"filters[2].value with a control character", q(`"filters":[{"op":"eq","dimension":"a","value":"east"},{"op":"eq","dimension":"b","value":"west"},{"op":"eq","dimension":"c","value":"ZZplanted\u0007value"}]`), "filters[2].value", ErrValueControl, "control character"},
		{"value with a tab", q(`"filters":[{"op":"eq","dimension":"a","value":"ZZplanted\tvalue"}]`), "filters[0].value", ErrValueControl, ""},
		{"value with a newline", q(`"filters":[{"op":"eq","dimension":"a","value":"ZZplanted\nvalue"}]`), "filters[0].value", ErrValueControl, ""},
		{"value with U+202E", q(`"filters":[{"op":"eq","dimension":"a","value":"ZZplanted\u202evalue"}]`), "filters[0].value", ErrValueInvisible, ""},
		{"values[3] with a zero-width space", q(`"filters":[{"op":"in","dimension":"a","values":["a","b","c","ZZplanted\u200bvalue"]}]`), "filters[0].values[3]", ErrValueInvisible, ""},
		{"value with a trailing space", q(`"filters":[{"op":"eq","dimension":"a","value":"ZZplanted "}]`), "filters[0].value", ErrValueSpacing, ""},
		{"value with a doubled space", q(`"filters":[{"op":"not_in","dimension":"a","values":["ZZplanted  value"]}]`), "filters[0].values[0]", ErrValueSpacing, ""},
		{"value with a no-break space", q(`"filters":[{"op":"eq","dimension":"a","value":"ZZplanted\u00a0value"}]`), "filters[0].value", ErrValueSpacing, ""},
		{"empty value", q(`"filters":[{"op":"eq","dimension":"ZZplanted","value":""}]`), "filters[0].value", ErrValueEmpty, ""},
		{"65-character value", q(`"filters":[{"op":"eq","dimension":"a","value":"ZZplanted` + strings.Repeat("é", 56) + `"}]`), "filters[0].value", ErrValueTooLong, ""},
		{"value not a string", q(plantedFilter[:len(plantedFilter)-1] + `,{"op":"eq","dimension":"a","value":5}]`), "filters[1].value", nil, "must be a string"},
		{"values element not a string", q(`"filters":[{"op":"in","dimension":"a","values":["ZZplanted",null]}]`), "filters[0].values[1]", nil, "must be a string"},

		// Wrong types.
		{"question is a list", `["ZZplanted"]`, "", nil, "must be an object"},
		{"question is a string", `"ZZplanted"`, "", nil, "must be an object"},
		{"question is null", `null`, "", nil, "must be an object"},
		{"metrics is a string", without("metrics", `"metrics":"ZZplanted"`), "metrics", nil, "must be a list"},
		{"metrics element is a number", without("metrics", `"metrics":[5]`, plantedFilter), "metrics[0]", nil, "must be a string"},
		{"metrics element is not an identifier", without("metrics", `"metrics":["net_sales","ZZplanted sales"]`), "metrics[1]", ErrIdentSyntax, ""},
		{"metrics element too long", without("metrics", `"metrics":["ZZplanted`+strings.Repeat("x", 60)+`"]`), "metrics[0]", ErrIdentTooLong, ""},
		{"metrics element empty", without("metrics", `"metrics":[""]`, plantedFilter), "metrics[0]", ErrIdentEmpty, ""},
		{"metrics is empty", without("metrics", `"metrics":[]`, plantedFilter), "metrics", nil, "at least 1"},
		{"grain is a number", without("grain", `"grain":5`, plantedFilter), "grain", nil, "must be a string"},
		{"grain is unknown", without("grain", `"grain":"ZZplanted"`), "grain", nil, "must be one of"},
		{"grain in capitals", without("grain", `"grain":"MONTH"`, plantedFilter), "grain", nil, "must be one of"},
		{"range is a string", without("range", `"range":"ZZplanted"`), "range", nil, "must be an object"},
		{"range is a list", without("range", `"range":["ZZplanted"]`), "range", nil, "must be an object"},
		{"range.start is a number", without("range", `"range":{"start":20260101,"end":"2026-04-01"}`, plantedFilter), "range.start", nil, "must be a string"},
		{"range.last is a string", without("range", `"range":{"last":"ZZplanted"}`), "range.last", nil, "must be an object"},
		{"range.last.count is a string", without("range", `"range":{"last":{"count":"3","unit":"day"}}`, plantedFilter), "range.last.count", nil, "whole number"},
		{"range.last.unit unknown", without("range", `"range":{"last":{"count":3,"unit":"ZZplanted"}}`), "range.last.unit", nil, "must be one of"},
		{"range.last.include_current is a string", without("range", `"range":{"last":{"count":3,"unit":"day","include_current":"ZZplanted"}}`), "range.last.include_current", nil, "true or false"},
		{"range.last.include_current is a number", without("range", `"range":{"last":{"count":3,"unit":"day","include_current":1}}`, plantedFilter), "range.last.include_current", nil, "true or false"},
		{"dimensions is a string", q(`"dimensions":"ZZplanted"`), "dimensions", nil, "must be a list"},
		{"dimensions element not an identifier", q(`"dimensions":["area","ZZplanted area"]`), "dimensions[1]", ErrIdentSyntax, ""},
		{"dimensions element is an object", q(`"dimensions":[{"ZZplanted":1}]`), "dimensions[0]", nil, "must be a string"},
		{"filters is an object", q(`"filters":{"ZZplanted":1}`), "filters", nil, "must be a list"},
		{"filters element is a string", q(`"filters":["ZZplanted"]`), "filters[0]", nil, "must be an object"},
		{"filters element is null", q(plantedFilter[:len(plantedFilter)-1] + `,null]`), "filters[1]", nil, "must be an object"},
		{"filter op is a number", q(`"filters":[{"op":1,"dimension":"a","value":"ZZplanted"}]`), "filters[0].op", nil, "must be a string"},
		{"filter op is unknown", q(`"filters":[{"op":"ZZplanted","dimension":"a","value":"x"}]`), "filters[0].op", nil, "must be one of"},
		{"filter op like", q(`"filters":[{"op":"like","dimension":"a","value":"ZZplanted%"}]`), "filters[0].op", nil, "must be one of"},
		{"filter dimension not an identifier", q(`"filters":[{"op":"eq","dimension":"ZZplanted area","value":"x"}]`), "filters[0].dimension", ErrIdentSyntax, ""},
		{"filter values is a string", q(`"filters":[{"op":"in","dimension":"a","values":"ZZplanted"}]`), "filters[0].values", nil, "must be a list"},
		{"top is a number", q(plantedFilter, `"top":5`), "top", nil, "must be an object"},
		{"top.n is a string", q(`"top":{"n":"ZZplanted","by":"metric"}`), "top.n", nil, "whole number"},
		{"top.by unknown", q(`"top":{"n":5,"by":"ZZplanted"}`), "top.by", nil, "must be one of"},
		{"top.direction unknown", q(`"top":{"n":5,"by":"metric","direction":"ZZplanted"}`), "top.direction", nil, "must be one of"},
		{"top.direction is a bool", q(plantedFilter, `"top":{"n":5,"by":"metric","direction":true}`), "top.direction", nil, "must be a string"},

		// Missing required fields.
		{"empty object", `{}`, "metrics", nil, "is required"},
		{"metrics missing", without("metrics", plantedFilter), "metrics", nil, "is required"},
		{"grain missing", without("grain", plantedFilter), "grain", nil, "is required"},
		{"range missing", without("range", plantedFilter), "range", nil, "is required"},
		{"range.start missing", without("range", `"range":{"end":"2026-04-01"}`, plantedFilter), "range.start", nil, "is required"},
		{"range.end missing", without("range", `"range":{"start":"2026-01-01"}`, plantedFilter), "range.end", nil, "is required"},
		{"range empty", without("range", `"range":{}`, plantedFilter), "range.start", nil, "is required"},
		{"range.last.count missing", without("range", `"range":{"last":{"unit":"day"}}`, plantedFilter), "range.last.count", nil, "is required"},
		{"range.last.unit missing", without("range", `"range":{"last":{"count":2}}`, plantedFilter), "range.last.unit", nil, "is required"},
		{"filter op missing", q(`"filters":[{"dimension":"a","value":"ZZplanted"}]`), "filters[0].op", nil, "is required"},
		{"filter dimension missing", q(`"filters":[{"op":"eq","value":"ZZplanted"}]`), "filters[0].dimension", nil, "is required"},
		{"eq value missing", q(`"filters":[{"op":"eq","dimension":"ZZplanted"}]`), "filters[0].value", nil, "is required"},
		{"in values missing", q(`"filters":[{"op":"in","dimension":"ZZplanted"}]`), "filters[0].values", nil, "is required"},
		{"top.n missing", q(plantedFilter, `"top":{"by":"metric"}`), "top.n", nil, "is required"},
		{"top.by missing", q(plantedFilter, `"top":{"n":5}`), "top.by", nil, "is required"},

		// Dates.
		{"range.start 2023-02-29", without("range", `"range":{"start":"2023-02-29","end":"2026-04-01"}`, plantedFilter), "range.start", ErrDateSyntax, ""},
		{"range.start 1900-02-29", without("range", `"range":{"start":"1900-02-29","end":"2026-04-01"}`, plantedFilter), "range.start", ErrDateSyntax, ""},
		{"range.end month 13", without("range", `"range":{"start":"2026-01-01","end":"2026-13-01"}`, plantedFilter), "range.end", ErrDateSyntax, ""},
		{"range.start year 0", without("range", `"range":{"start":"0000-01-01","end":"2026-04-01"}`, plantedFilter), "range.start", ErrDateSyntax, ""},
		{"range.start planted", without("range", `"range":{"start":"ZZplanted","end":"2026-04-01"}`), "range.start", ErrDateSyntax, ""},
		{"range.start timestamp", without("range", `"range":{"start":"2026-01-01T00:00:00Z","end":"2026-04-01"}`, plantedFilter), "range.start", ErrDateSyntax, ""},
		{"end equals start", without("range", `"range":{"start":"2026-01-01","end":"2026-01-01"}`, plantedFilter), "range.end", nil, "after range.start"},
		{"end before start", without("range", `"range":{"start":"2026-04-01","end":"2026-01-01"}`, plantedFilter), "range.end", nil, "after range.start"},

		// Duplicate keys.
		{"duplicate top-level key", q(`"metrics":["ZZplanted"]`), "metrics", nil, "appears twice"},
		{"duplicate nested key", without("range", `"range":{"start":"2026-01-01","end":"2026-04-01","start":"ZZplanted"}`), "range.start", nil, "appears twice"},
		{"duplicate key in a filter", q(`"filters":[{"op":"eq","op":"in","dimension":"a","value":"ZZplanted"}]`), "filters[0].op", nil, "appears twice"},
		{"duplicate unknown key that is not an identifier", q(`"zz planted key":1,"zz planted key":2`), notIdent, nil, "appears twice"},
		{"duplicate key in an unknown field", q(`"sql":{"a":"ZZplanted","a":"ZZplanted"}`), "sql.a", nil, "appears twice"},

		// Syntax errors and trailing data: no position text, no echo.
		{"unterminated", `{"metrics":["ZZplanted"`, "", ErrNotJSON, "ends before"},
		{"bare word", `{"metrics":ZZplanted}`, "", ErrNotJSON, "not valid JSON"},
		{"single quotes", `{'metrics':['ZZplanted']}`, "", ErrNotJSON, ""},
		{"trailing comma", `{"metrics":["ZZplanted"],}`, "", ErrNotJSON, ""},
		{"raw control character in a string", "{\"metrics\":[\"ZZplanted\x01\"]}", "", ErrNotJSON, ""},
		{"empty body", ``, "", ErrNotJSON, "ends before"},
		{"whitespace only", " \n ", "", ErrNotJSON, "ends before"},
		{"trailing object", q(plantedFilter) + ` {"ZZplanted":1}`, "", nil, "after the first JSON value"},
		{"trailing word", q(plantedFilter) + `ZZplanted`, "", nil, "after the first JSON value"},
		{"trailing bracket", q(plantedFilter) + `]`, "", nil, "after the first JSON value"},
		{"two objects", `{"a":"ZZplanted"}{"b":1}`, "", nil, "after the first JSON value"},

		// Deep nesting is bounded before it reaches the question rules.
		{"deep nesting", without("metrics", `"metrics":`+nested(40)), "metrics" + strings.Repeat("[0]", 32), nil, "nested too deeply"},
		{"deep nesting of objects", q(`"sql":` + strings.Repeat(`{"a":`, 40) + `"ZZplanted"` + strings.Repeat("}", 40)), "sql" + strings.Repeat(".a", 32), nil, "nested too deeply"},
		{"nesting within the bound", without("metrics", `"metrics":`+nested(10)), "metrics[0]", nil, "must be a string"},

		// Numbers.
		{"top.n 0", q(plantedFilter, `"top":{"n":0,"by":"metric"}`), "top.n", nil, "between 1"},
		{"top.n negative", q(plantedFilter, `"top":{"n":-3,"by":"metric"}`), "top.n", nil, "between 1"},
		{"top.n fraction", q(plantedFilter, `"top":{"n":1.5,"by":"metric"}`), "top.n", nil, "whole number"},
		{"top.n 5.0", q(plantedFilter, `"top":{"n":5.0,"by":"metric"}`), "top.n", nil, "whole number"},
		{"top.n exponent", q(plantedFilter, `"top":{"n":1e2,"by":"metric"}`), "top.n", nil, "whole number"},
		{"top.n beyond int64", q(plantedFilter, `"top":{"n":99999999999999999999999,"by":"metric"}`), "top.n", nil, ""},
		{"top.n beyond int32", q(plantedFilter, `"top":{"n":2147483648,"by":"metric"}`), "top.n", nil, "between 1"},
		{"top.n null", q(plantedFilter, `"top":{"n":null,"by":"metric"}`), "top.n", nil, "whole number"},
		{"range.last.count 0", without("range", `"range":{"last":{"count":0,"unit":"day"}}`, plantedFilter), "range.last.count", nil, "between 1"},
		{"range.last.count -1", without("range", `"range":{"last":{"count":-1,"unit":"day"}}`, plantedFilter), "range.last.count", nil, "between 1"},
		{"range.last.count fraction", without("range", `"range":{"last":{"count":2.5,"unit":"day"}}`, plantedFilter), "range.last.count", nil, "whole number"},
		{"range.last.count huge", without("range", `"range":{"last":{"count":100001,"unit":"day"}}`, plantedFilter), "range.last.count", nil, "between 1"},

		// A planted value elsewhere in the document is not echoed either.
		{"planted value beside a bad grain", without("grain", `"grain":"hour"`, plantedFilter, `"dimensions":["ZZplanted_area"]`), "grain", nil, "must be one of"},

		// The parser bounds any list so that a body cannot make it work
		// without end; the contract bounds are left to the compiler.
		{"metrics list longer than the parser bound", without("metrics", `"metrics":[`+strings.Repeat(`"m",`, 256)+`"ZZplanted"]`), "metrics", nil, "at most 256"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(tt.in, planted) && !strings.Contains(tt.in, "zz planted") && tt.in != `{}` && tt.in != `null` && strings.TrimSpace(tt.in) != "" {
				t.Fatalf("test input plants no marker: %s", tt.in)
			}
			got, err := ParseQuestion([]byte(tt.in))
			if err == nil {
				t.Fatalf("ParseQuestion accepted %s as %s", tt.in, dump(got))
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T %v is not a *FieldError", err, err)
			}
			if fe.Field != tt.field {
				t.Errorf("Field = %q, want %q (error: %v)", fe.Field, tt.field, err)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("error %v does not wrap %v", err, tt.want)
			}
			if tt.has != "" && !strings.Contains(fe.Problem, tt.has) {
				t.Errorf("Problem %q does not say %q", fe.Problem, tt.has)
			}
			msg := err.Error()
			if tt.field != "" && !strings.HasPrefix(msg, tt.field+" ") {
				t.Errorf("error %q does not start with the field name", msg)
			}
			low := strings.ToLower(msg)
			if strings.Contains(low, "planted") || strings.Contains(low, "zz") {
				t.Errorf("error %q echoes caller text", msg)
			}
			if got.Metrics != nil || got.Top != nil || got.Range != (TimeSpan{}) {
				t.Errorf("a refused question is not the zero Question: %s", dump(got))
			}
		})
	}
}

// TestFieldErrorText checks the sentence built from a FieldError.
func TestFieldErrorText(t *testing.T) {
	e := &FieldError{Field: "filters[2].value", Problem: "is not a valid dimension value: it holds a control character", Err: ErrValueControl}
	if got, want := e.Error(), "filters[2].value is not a valid dimension value: it holds a control character"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(e, ErrValueControl) {
		t.Fatal("FieldError does not unwrap to its sentinel")
	}
	doc := &FieldError{Problem: "is not valid JSON (near byte 3)", Err: ErrNotJSON}
	if got := doc.Error(); got != "the question is not valid JSON (near byte 3)" {
		t.Fatalf("Error() = %q", got)
	}
}

// TestUnknownFieldsAreNamedBeforeMissingOnes: an unknown field is the first
// thing a caller should fix, even when required fields are also missing.
func TestUnknownFieldsAreNamedBeforeMissingOnes(t *testing.T) {
	for _, key := range []string{"sql", "table", "where", "predicate", "rows"} {
		_, err := ParseQuestion([]byte(`{"` + key + `":"ZZplanted"}`))
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != key {
			t.Errorf("%s alone: %v, want the field %s named", key, err, key)
		}
	}
}

func TestDecodeJSON(t *testing.T) {
	v, err := DecodeJSON([]byte(`{"b":[1,"x",true,null,{"c":2.5}],"a":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	obj, ok := v.(Object)
	if !ok || len(obj) != 2 || obj[0].Key != "b" || obj[1].Key != "a" {
		t.Fatalf("keys lost their order: %#v", v)
	}
	arr, ok := obj[0].Value.([]any)
	if !ok || len(arr) != 5 {
		t.Fatalf("array: %#v", obj[0].Value)
	}
	if n, ok := arr[0].(interface{ String() string }); !ok || n.String() != "1" {
		t.Errorf("number is %T %v, want json.Number 1", arr[0], arr[0])
	}
	if arr[1] != "x" || arr[2] != true || arr[3] != nil {
		t.Errorf("scalars: %#v", arr)
	}
	if inner, ok := arr[4].(Object); !ok || len(inner) != 1 || inner[0].Key != "c" {
		t.Errorf("nested object: %#v", arr[4])
	}
	if empty, ok := obj[1].Value.(Object); !ok || empty == nil || len(empty) != 0 {
		t.Errorf("empty object decoded as %#v", obj[1].Value)
	}
	if e, _ := DecodeJSON([]byte(`[]`)); e == nil {
		t.Errorf("empty array decoded as nil")
	}
	// Nesting exactly at the bound is accepted; one more level is not.
	if _, err := DecodeJSON([]byte(strings.Repeat("[", 33) + strings.Repeat("]", 33))); err != nil {
		t.Errorf("33 levels (depth 0..32): %v", err)
	}
	if _, err := DecodeJSON([]byte(strings.Repeat("[", 34) + strings.Repeat("]", 34))); err == nil {
		t.Errorf("34 levels were accepted")
	}
}

package domain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Object is a decoded object of a wire document whose keys keep their order
// of appearance. Catalogue adapters build Objects from YAML so that a
// question written in a catalogue is decoded by the same rules as one sent
// over the wire.
type Object []Member

// Member is one key and value of an Object.
type Member struct {
	Key   string
	Value any
}

// A wire value is one of: nil, bool, string, json.Number, []any, Object.

// ErrNotJSON is the problem of a body that is not one JSON value.
var ErrNotJSON = errors.New("is not valid JSON")

// maxDepth bounds nesting so a hostile document cannot exhaust the stack.
const maxDepth = 32

// DecodeJSON reads exactly one JSON value into the wire form (Object for
// objects, []any for arrays, json.Number for numbers). A duplicate key, a
// syntax error or trailing data is an error that names the position but
// never the offending text.
func DecodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := readValue(dec, "", 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &FieldError{Problem: "holds data after the first JSON value"}
	}
	return v, nil
}

func readValue(dec *json.Decoder, path string, depth int) (any, error) {
	if depth > maxDepth {
		return nil, &FieldError{Field: path, Problem: "is nested too deeply"}
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxError(dec, err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			var obj Object
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, syntaxError(dec, err)
				}
				key, _ := kt.(string)
				child := joinField(path, safeKey(key))
				if seen[key] {
					return nil, &FieldError{Field: child, Problem: "appears twice"}
				}
				seen[key] = true
				v, err := readValue(dec, child, depth+1)
				if err != nil {
					return nil, err
				}
				obj = append(obj, Member{Key: key, Value: v})
			}
			if _, err := dec.Token(); err != nil {
				return nil, syntaxError(dec, err)
			}
			if obj == nil {
				obj = Object{}
			}
			return obj, nil
		case '[':
			arr := []any{}
			for i := 0; dec.More(); i++ {
				v, err := readValue(dec, fmt.Sprintf("%s[%d]", path, i), depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, syntaxError(dec, err)
			}
			return arr, nil
		}
		return nil, syntaxError(dec, nil)
	default:
		return t, nil
	}
}

func syntaxError(dec *json.Decoder, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &FieldError{Problem: "ends before the JSON value is complete", Err: ErrNotJSON}
	}
	return &FieldError{Problem: "is not valid JSON (near byte " + strconv.FormatInt(dec.InputOffset(), 10) + ")", Err: ErrNotJSON}
}

func joinField(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// FieldError says which field of a wire document is wrong and why. Field is
// a path such as "filters[2].value" (empty for the document itself); Problem
// is a phrase completing "<field> ...". Neither ever holds a value the
// caller sent. Keys are echoed only when they are identifiers; other keys
// are described, not quoted.
type FieldError struct {
	Field   string
	Problem string
	Err     error // an underlying sentinel such as ErrValueControl, or nil
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return "the question " + e.Problem
	}
	return e.Field + " " + e.Problem
}

func (e *FieldError) Unwrap() error { return e.Err }

// safeKey returns key when it is an identifier, so that it can be named
// in an error, and a placeholder otherwise: a key is caller text too.
func safeKey(key string) string {
	if CheckIdent(key) == nil {
		return key
	}
	return "(a field whose name is not an identifier)"
}

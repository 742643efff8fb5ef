package wire

import (
	"fmt"
	"reflect"
	"strings"
)

// infer returns the schema of t, the way a model and the question parser
// read the wire types:
//
//   - a type in types gets a copy of that schema;
//   - a struct is a closed object (additionalProperties: false) whose
//     properties are its exported fields in order, named by their json tag;
//     a field without omitempty or omitzero is required, and its
//     `jsonschema` tag is the property's description;
//   - a slice is an array of its element's schema;
//   - a pointer to a struct, a slice or an int is the schema of what it
//     points to: the parser accepts an absent field, never a null one
//     (an optional count that may be 0, like a listing's total);
//   - strings, booleans, int and int64 are string, boolean and integer;
//     float64 is number (a measurement such as elapsed milliseconds,
//     never a cell: cells are text).
//
// Anything else (maps, interfaces, embedded fields, pointers to other
// scalars, other numbers) is refused rather than guessed: a new kind of wire field
// is a decision for whoever adds it.
func infer(t reflect.Type, types map[reflect.Type]*Schema) (*Schema, error) {
	return inferType(t, types, map[reflect.Type]bool{})
}

func inferType(t reflect.Type, types map[reflect.Type]*Schema, seen map[reflect.Type]bool) (*Schema, error) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
		if k := t.Kind(); k != reflect.Struct && k != reflect.Slice && k != reflect.Int {
			return nil, fmt.Errorf("wire: pointer to %s is not a wire type", t)
		}
	}
	if s := types[t]; s != nil {
		return s.Clone(), nil
	}
	if t.Name() != "" {
		if seen[t] {
			return nil, fmt.Errorf("wire: type %s refers to itself", t)
		}
		seen[t] = true
		defer delete(seen, t)
	}
	switch t.Kind() {
	case reflect.String:
		return &Schema{Type: "string"}, nil
	case reflect.Bool:
		return &Schema{Type: "boolean"}, nil
	case reflect.Int, reflect.Int64:
		return &Schema{Type: "integer"}, nil
	case reflect.Float64:
		return &Schema{Type: "number"}, nil
	case reflect.Slice:
		items, err := inferType(t.Elem(), types, seen)
		if err != nil {
			return nil, err
		}
		return &Schema{Type: "array", Items: items}, nil
	case reflect.Struct:
		return inferStruct(t, types, seen)
	}
	return nil, fmt.Errorf("wire: %s (%s) is not a wire type", t, t.Kind())
}

func inferStruct(t reflect.Type, types map[reflect.Type]*Schema, seen map[reflect.Type]bool) (*Schema, error) {
	s := &Schema{Type: "object", Closed: true}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil, fmt.Errorf("wire: embedded field %s.%s is not supported", t, f.Name)
		}
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fs, err := inferType(f.Type, types, seen)
		if err != nil {
			return nil, err
		}
		if d, ok := f.Tag.Lookup("jsonschema"); ok {
			fs.Description = d
		}
		s.Properties = append(s.Properties, Property{Name: name, Schema: fs})
		optional := false
		for o := range strings.SplitSeq(opts, ",") {
			optional = optional || o == "omitempty" || o == "omitzero"
		}
		if !optional {
			s.Required = append(s.Required, name)
		}
	}
	return s, nil
}

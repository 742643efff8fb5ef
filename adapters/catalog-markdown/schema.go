package mdcatalog

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

//go:embed schemas/*.schema.json
var schemaFiles embed.FS

// Kinds lists the document kinds, each with its schema file
// schemas/<kind>.schema.json.
var Kinds = []string{"model", "relationship", "metric", "glossary", "caveat", "not_defined", "example"}

// Schemas returns the embedded JSON Schemas (draft 2020-12), one file per
// kind named <kind>.schema.json. They are the same bytes as the copies
// published under docs/schemas/.
func Schemas() fs.FS {
	sub, err := fs.Sub(schemaFiles, "schemas")
	if err != nil { // unreachable: the directory is embedded
		return schemaFiles
	}
	return sub
}

// schemaBase is the $id prefix of every schema.
const schemaBase = "https://sutura.dev/schemas/catalog/"

// schemaSet holds the schema of every kind: its parsed document, and its
// compiled form, built the first time a caller asks for it (schema).
// Each kind compiles with a compiler of its own (no schema refers to
// another kind's), so that two can compile at once: a process reading a
// catalogue compiles on one core what its documents need first while the
// others compile on another (warm), instead of all seven in a row before
// the first document is read (10 ms of a one-shot command's start).
type schemaSet struct {
	compiled map[string]func() (*jsonschema.Schema, error)
	docs     map[string]any // parsed schema documents by kind, for keyword look-ups
}

var loadSchemas = sync.OnceValues(func() (*schemaSet, error) {
	s := &schemaSet{compiled: map[string]func() (*jsonschema.Schema, error){}, docs: map[string]any{}}
	for _, k := range Kinds {
		raw, err := schemaFiles.ReadFile("schemas/" + k + ".schema.json")
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("schema of kind %s: %w", k, err)
		}
		s.docs[k] = doc
		s.compiled[k] = sync.OnceValues(func() (*jsonschema.Schema, error) {
			c := jsonschema.NewCompiler()
			c.DefaultDraft(jsonschema.Draft2020)
			loc := schemaBase + k + ".schema.json"
			if err := c.AddResource(loc, doc); err != nil {
				return nil, fmt.Errorf("schema of kind %s: %w", k, err)
			}
			sch, err := c.Compile(loc)
			if err != nil {
				return nil, fmt.Errorf("schema of kind %s: %w", k, err)
			}
			return sch, nil
		})
	}
	return s, nil
})

// schema returns the compiled schema of kind k (one of Kinds), compiling
// it on first use; a caller asking while another compiles it waits.
func (s *schemaSet) schema(k string) (*jsonschema.Schema, error) {
	return s.compiled[k]()
}

// warm compiles every kind's schema, in Kinds order, skipping those
// another caller compiled first; a reader starts it on a goroutine of its
// own before it reads its documents.
func (s *schemaSet) warm() {
	for _, k := range Kinds {
		s.schema(k)
	}
}

// validate checks a document's wire form against its kind's schema and
// reports every violation with our own wording: the validator's messages
// quote the offending value, so only its error kinds and locations are
// used.
func (s *schemaSet) validate(d *document, wire any) errorList {
	sch, err := s.schema(d.kind)
	if err != nil { // unreachable: TestSchemasCompile compiles every kind
		return errorList{d.errorAt(nil, ErrSchema, "could not be validated: the embedded schema of its kind does not compile")}
	}
	err = sch.Validate(wire)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return errorList{d.errorAt(nil, ErrSchema, "could not be validated against its schema")}
	}
	var out errorList
	s.walk(d, ve, &out)
	return out
}

func (s *schemaSet) walk(d *document, ve *jsonschema.ValidationError, out *errorList) {
	path := ve.InstanceLocation
	add := func(p []string, sentinel error, reason string) {
		out.add(d.errorAt(p, sentinel, reason))
	}
	child := func(name string) []string { return append(path[:len(path):len(path)], name) }
	switch k := ve.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		for _, c := range ve.Causes {
			s.walk(d, c, out)
		}
	case *kind.OneOf, *kind.AnyOf:
		add(path, ErrSchema, "must have exactly one of: "+s.alternatives(d.kind, ve.SchemaURL))
	case *kind.Required:
		for _, m := range k.Missing {
			add(child(m), ErrSchema, "is required")
		}
	case *kind.DependentRequired:
		for _, m := range k.Missing {
			add(child(m), ErrSchema, "is required when "+k.Prop+" is given")
		}
	case *kind.AdditionalProperties:
		allowed := s.siblingProperties(d.kind, ve.SchemaURL)
		for _, p := range k.Properties {
			hint := ""
			if near := likelyMeant(p, allowed); near != "" {
				hint = "did you mean " + near + "? "
			}
			add(child(p), ErrUnknownKey, "is not a known key here ("+hint+"allowed: "+strings.Join(allowed, ", ")+")")
		}
	case *kind.Type:
		add(path, ErrSchema, "must be "+typeNames(k.Want))
	case *kind.Const:
		if len(path) > 0 && path[len(path)-1] == "audience" {
			add(path, ErrSchema, "must be open or {restricted: [ids]}")
			break
		}
		add(path, ErrSchema, "must be "+render(k.Want))
	case *kind.Enum:
		names := make([]string, len(k.Want))
		for i, w := range k.Want {
			names[i] = render(w)
		}
		add(path, ErrSchema, "is not one of the allowed values: "+strings.Join(names, ", "))
	case *kind.Pattern:
		add(path, ErrSchema, patternReason(k.Want))
	case *kind.MinLength:
		if k.Want <= 1 {
			add(path, ErrSchema, "must not be empty")
		} else {
			add(path, ErrSchema, fmt.Sprintf("must be at least %d characters long", k.Want))
		}
	case *kind.MaxLength:
		add(path, ErrSchema, fmt.Sprintf("is longer than %d characters", k.Want))
	case *kind.MinItems:
		if k.Want == 1 {
			add(path, ErrSchema, "must list at least one item")
		} else {
			add(path, ErrSchema, fmt.Sprintf("must list at least %d items", k.Want))
		}
	case *kind.MaxItems:
		add(path, ErrSchema, fmt.Sprintf("lists more than %d items", k.Want))
	case *kind.UniqueItems:
		add(child(strconv.Itoa(k.Duplicates[1])), ErrSchema, fmt.Sprintf("repeats item [%d] of the same list", k.Duplicates[0]))
	case *kind.MinProperties:
		add(path, ErrSchema, fmt.Sprintf("must have at least %d key(s)", k.Want))
	case *kind.MaxProperties:
		add(path, ErrSchema, fmt.Sprintf("must have at most %d key(s)", k.Want))
	case *kind.Minimum:
		add(path, ErrSchema, "must be at least "+k.Want.RatString())
	default:
		if len(ve.Causes) > 0 {
			for _, c := range ve.Causes {
				s.walk(d, c, out)
			}
			return
		}
		add(path, ErrSchema, "does not match the schema")
	}
}

// keyword returns the schema a validation error's SchemaURL points at
// (such as ".../metric.schema.json#/$defs/term").
func (s *schemaSet) keyword(docKind, schemaURL string) any {
	_, frag, _ := strings.Cut(schemaURL, "#")
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	v := s.docs[docKind]
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// alternatives renders the branches of the oneOf of the schema at
// schemaURL, each a list of required keys: "simple or ratio",
// "aggregate with column or count_if".
func (s *schemaSet) alternatives(docKind, schemaURL string) string {
	m, _ := s.keyword(docKind, schemaURL).(map[string]any)
	branches, _ := m["oneOf"].([]any)
	var alts []string
	for _, b := range branches {
		m, _ := b.(map[string]any)
		req, _ := m["required"].([]any)
		var keys []string
		for _, r := range req {
			if str, ok := r.(string); ok {
				keys = append(keys, str)
			}
		}
		if len(keys) > 0 {
			alts = append(alts, strings.Join(keys, " with "))
		}
	}
	switch len(alts) {
	case 0:
		return "the alternatives the schema allows"
	case 1:
		return alts[0]
	}
	return strings.Join(alts[:len(alts)-1], ", ") + " or " + alts[len(alts)-1]
}

// siblingProperties returns the keys the schema at schemaURL defines,
// sorted.
func (s *schemaSet) siblingProperties(docKind, schemaURL string) []string {
	m, _ := s.keyword(docKind, schemaURL).(map[string]any)
	props, _ := m["properties"].(map[string]any)
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func typeNames(want []string) string {
	names := make([]string, len(want))
	for i, w := range want {
		switch w {
		case "string":
			names[i] = "a string"
		case "array":
			names[i] = "a list"
		case "object":
			names[i] = "a mapping"
		case "integer":
			names[i] = "a whole number"
		case "boolean":
			names[i] = "true or false"
		case "number":
			names[i] = "a number"
		default:
			names[i] = w
		}
	}
	return strings.Join(names, " or ")
}

// render writes a schema constant (never an instance value).
func render(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// patternReasons explains each pattern the schemas use.
var patternReasons = map[string]string{
	`^[A-Za-z_][A-Za-z0-9_]*$`: "is not an identifier ([A-Za-z_][A-Za-z0-9_]*)",
	`^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62}){0,2}$`: "is not a table path (t, schema.t or project.dataset.t, each segment an identifier of at most 63 characters)",
	`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`:                                      "is not a date (YYYY-MM-DD)",
	`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$`:               "is not a metric name, a model name or metric.dimension",
	`^[^\x00-\x1F\x7F]*$`:                                               "holds a control character (a phrase is one line of text)",
}

func patternReason(p string) string {
	if r, ok := patternReasons[p]; ok {
		return r
	}
	return "does not have the form the schema requires"
}

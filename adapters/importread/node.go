package importread

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"sutura.dev/domain"
)

// MaxValues bounds the values one file may expand to through YAML
// aliases, so that a small file cannot make the reader walk billions of
// values.
const MaxValues = 1 << 20

// MaxDocuments bounds the YAML documents of one file.
const MaxDocuments = 10000

// file is one input file being read: its path, how many values the
// reader has visited in it, and where its malformations go.
type file struct {
	path    string
	visited int
	errs    *Errors
}

// Node is one YAML value of a file, with the key path that leads to it
// for error messages (such as semantic_models[2].measures[0]). The zero
// Node is an absent value: every method answers for it without panicking.
type Node struct {
	y    *yaml.Node
	f    *file
	path string
}

// Parse reads every YAML document of the file at path (JSON is YAML too)
// and returns the root value of each; the Nodes record what is malformed
// below them in e. A file that is not YAML is recorded in e, naming only
// the line, and Parse returns false. yaml.v3 has panicked on hostile input
// before, so a panic is recorded too.
func (e *Errors) Parse(path string, data []byte) (docs []Node, ok bool) {
	f := &file{path: path, errs: e}
	defer func() {
		if recover() != nil {
			docs, ok = nil, false
			e.Add(path, 1, "could not be parsed as YAML or JSON")
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				return docs, true
			}
			e.Add(path, syntaxLine(err), "is not valid YAML or JSON (a syntax error at or near this line)")
			return nil, false
		}
		if len(docs) >= MaxDocuments {
			e.Add(path, doc.Line, fmt.Sprintf("holds more than %d YAML documents", MaxDocuments))
			return nil, false
		}
		if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
			docs = append(docs, Node{y: doc.Content[0], f: f})
		}
	}
}

// syntaxLine reads the line of a yaml.v3 syntax error ("yaml: line 7:
// ..."); the message itself can quote the input, so it is not passed on.
func syntaxLine(err error) int {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return 1
	}
	var line int
	if _, scanErr := fmt.Sscanf(err.Error(), "yaml: line %d:", &line); scanErr == nil && line > 0 {
		return line
	}
	return 1
}

// deref follows an alias.
func (n Node) deref() Node {
	for i := 0; n.y != nil && n.y.Kind == yaml.AliasNode && i < 16; i++ {
		n.y = n.y.Alias
	}
	if n.y != nil && n.y.Kind == yaml.AliasNode {
		n.y = nil
	}
	return n
}

// visit counts one value visited in n's file; past MaxValues it records
// the file as malformed (once) and reports false.
func (n Node) visit() bool {
	if n.f == nil {
		return false
	}
	n.f.visited++
	if n.f.visited == MaxValues+1 {
		n.f.errs.Add(n.f.path, n.Line(), fmt.Sprintf("expands to more than %d values (through YAML aliases)", MaxValues))
	}
	return n.f.visited <= MaxValues
}

// Present reports whether n is a value of the input (an absent key's
// value is not).
func (n Node) Present() bool { return n.y != nil }

// File returns the slash-separated path of n's file; "" for an absent
// value.
func (n Node) File() string {
	if n.f == nil {
		return ""
	}
	return n.f.path
}

// Line returns the 1-based line n starts on; 0 for an absent value.
func (n Node) Line() int {
	if n.y == nil {
		return 0
	}
	return n.y.Line
}

// IsMap reports whether n is a mapping.
func (n Node) IsMap() bool { n = n.deref(); return n.y != nil && n.y.Kind == yaml.MappingNode }

// IsList reports whether n is a sequence.
func (n Node) IsList() bool { n = n.deref(); return n.y != nil && n.y.Kind == yaml.SequenceNode }

// IsNull reports an absent, empty, ~ or null value.
func (n Node) IsNull() bool {
	n = n.deref()
	return n.y == nil || (n.y.Kind == yaml.ScalarNode && n.y.ShortTag() == "!!null")
}

// Text returns a scalar's text; false for anything else, null included.
func (n Node) Text() (string, bool) {
	n = n.deref()
	if n.y == nil || n.y.Kind != yaml.ScalarNode || n.y.ShortTag() == "!!null" {
		return "", false
	}
	return n.y.Value, true
}

// Get returns the value of key in a mapping (following << merges); false
// when n is not a mapping or has no such key.
func (n Node) Get(key string) (Node, bool) {
	n = n.deref()
	if n.y == nil || n.y.Kind != yaml.MappingNode || !n.visit() {
		return Node{}, false
	}
	child := n.path + "." + key
	if n.path == "" {
		child = key
	}
	var merges []Node
	for i := 0; i+1 < len(n.y.Content); i += 2 {
		k := n.y.Content[i]
		if k.Kind == yaml.ScalarNode && k.Value == key {
			return Node{y: n.y.Content[i+1], f: n.f, path: child}, true
		}
		if k.Kind == yaml.ScalarNode && k.Value == "<<" && k.ShortTag() == "!!merge" {
			merges = append(merges, Node{y: n.y.Content[i+1], f: n.f, path: n.path})
		}
	}
	for _, m := range merges {
		if m.IsList() {
			for _, item := range m.Items() {
				if v, ok := item.Get(key); ok {
					return Node{y: v.y, f: n.f, path: child}, true
				}
			}
		} else if v, ok := m.Get(key); ok {
			return Node{y: v.y, f: n.f, path: child}, true
		}
	}
	return Node{}, false
}

// Keys lists a mapping's keys in order (merge keys excluded).
func (n Node) Keys() []string {
	n = n.deref()
	if n.y == nil || n.y.Kind != yaml.MappingNode {
		return nil
	}
	var out []string
	for i := 0; i+1 < len(n.y.Content); i += 2 {
		if k := n.y.Content[i]; k.Kind == yaml.ScalarNode && k.Value != "<<" {
			out = append(out, k.Value)
		}
	}
	return out
}

// Items lists a sequence's values.
func (n Node) Items() []Node {
	n = n.deref()
	if n.y == nil || n.y.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]Node, 0, len(n.y.Content))
	for i, c := range n.y.Content {
		if !n.visit() {
			break
		}
		out = append(out, Node{y: c, f: n.f, path: n.path + "[" + strconv.Itoa(i) + "]"})
	}
	return out
}

// Fail records that the input is malformed at n, prefixing reason with
// n's key path. A value that is not in the input (an absent key's) has
// nowhere to point; its parent's reader reports what is missing.
func (n Node) Fail(reason string) {
	if n.f == nil {
		return
	}
	where := n.path
	if where != "" {
		where += " "
	}
	n.f.errs.Add(n.f.path, n.Line(), where+reason)
}

// Str reads an optional text value of a mapping: Get, then AsText.
func (n Node) Str(key string) string {
	v, _ := n.Get(key)
	return v.AsText()
}

// List reads an optional list of a mapping: Get, then AsList.
func (n Node) List(key string) []Node {
	v, _ := n.Get(key)
	return v.AsList()
}

// Object reads an optional mapping of a mapping: Get, then AsMap.
func (n Node) Object(key string) (Node, bool) {
	v, _ := n.Get(key)
	return v.AsMap()
}

// Named reads a construct of the input given as a mapping with a name
// (what says which, such as "a metric"): its name, or false after
// recording that n is not a mapping or has no name.
func (n Node) Named(what string) (string, bool) {
	if !n.IsMap() {
		n.Fail("must be a mapping (" + what + ")")
		return "", false
	}
	name := n.Str("name")
	if name == "" {
		n.Fail("has no name")
	}
	return name, name != ""
}

// AsText reads n as an optional text value: "" when it is absent or null;
// a value that is present but not text is malformed.
func (n Node) AsText() string {
	if n.IsNull() {
		return ""
	}
	s, ok := n.Text()
	if !ok {
		n.Fail("must be a text value")
	}
	return s
}

// AsList reads n as an optional list: nil when it is absent or null; a
// value that is present but not a list is malformed.
func (n Node) AsList() []Node {
	if n.IsNull() {
		return nil
	}
	if !n.IsList() {
		n.Fail("must be a list")
		return nil
	}
	return n.Items()
}

// AsMap reads n as an optional mapping: false when it is absent or null;
// a value that is present but not a mapping is malformed.
func (n Node) AsMap() (Node, bool) {
	if n.IsNull() {
		return Node{}, false
	}
	if !n.IsMap() {
		n.Fail("must be a mapping")
		return Node{}, false
	}
	return n, true
}

// TablePath reads a table path (t, schema.t or project.dataset.t) whose
// segments are identifiers, each possibly double-quoted, and returns it
// without the quotes; false for anything else.
func TablePath(t string) (string, bool) {
	parts := strings.Split(strings.TrimSpace(t), ".")
	if len(parts) > 3 {
		return "", false
	}
	for i, p := range parts {
		if len(p) >= 2 && p[0] == '"' && p[len(p)-1] == '"' {
			p = p[1 : len(p)-1]
		}
		if domain.CheckIdent(p) != nil {
			return "", false
		}
		parts[i] = p
	}
	return strings.Join(parts, "."), true
}

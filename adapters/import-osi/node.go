package osi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// maxValues bounds the values one file may expand to through YAML aliases,
// so that a small file cannot make the reader walk billions of values.
const maxValues = 1 << 20

// maxDocuments bounds the YAML documents of one file.
const maxDocuments = 10000

// file is one input file being read: its path and how many values the
// reader has visited in it.
type file struct {
	path    string
	visited int
	errs    *[]error
}

// node is one YAML value of a file, with the key path that leads to it
// for error messages (such as semantic_models[2].measures[0]).
type node struct {
	y    *yaml.Node
	f    *file
	path string
}

// parse reads every YAML document of data (JSON is YAML too). yaml.v3 has
// panicked on hostile input before, so a panic becomes an error.
func parse(f *file, data []byte) (docs []node, err error) {
	defer func() {
		if recover() != nil {
			docs, err = nil, &Error{File: f.path, Line: 1, Reason: "could not be parsed as YAML or JSON"}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				return docs, nil
			}
			return nil, &Error{File: f.path, Line: syntaxLine(err), Reason: "is not valid YAML or JSON (a syntax error at or near this line)"}
		}
		if len(docs) >= maxDocuments {
			return nil, &Error{File: f.path, Line: doc.Line, Reason: fmt.Sprintf("holds more than %d YAML documents", maxDocuments)}
		}
		if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
			docs = append(docs, node{y: doc.Content[0], f: f})
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
	msg := err.Error()
	var line int
	if _, scanErr := fmt.Sscanf(msg, "yaml: line %d:", &line); scanErr == nil && line > 0 {
		return line
	}
	return 1
}

// deref follows an alias, counting what is visited.
func (n node) deref() node {
	for i := 0; n.y != nil && n.y.Kind == yaml.AliasNode && i < 16; i++ {
		n.y = n.y.Alias
	}
	if n.y != nil && n.y.Kind == yaml.AliasNode {
		n.y = nil
	}
	return n
}

func (n node) visit() bool {
	if n.f == nil {
		return false
	}
	n.f.visited++
	if n.f.visited == maxValues+1 {
		*n.f.errs = append(*n.f.errs, &Error{File: n.f.path, Line: n.line(),
			Reason: fmt.Sprintf("expands to more than %d values (through YAML aliases)", maxValues)})
	}
	return n.f.visited <= maxValues
}

func (n node) line() int {
	if n.y == nil {
		return 0
	}
	return n.y.Line
}

func (n node) isMap() bool  { n = n.deref(); return n.y != nil && n.y.Kind == yaml.MappingNode }
func (n node) isList() bool { n = n.deref(); return n.y != nil && n.y.Kind == yaml.SequenceNode }

// isNull reports an absent, empty, ~ or null value.
func (n node) isNull() bool {
	n = n.deref()
	return n.y == nil || (n.y.Kind == yaml.ScalarNode && n.y.ShortTag() == "!!null")
}

// text returns a scalar's text; false for anything else, null included.
func (n node) text() (string, bool) {
	n = n.deref()
	if n.y == nil || n.y.Kind != yaml.ScalarNode || n.y.ShortTag() == "!!null" {
		return "", false
	}
	return n.y.Value, true
}

// get returns the value of key in a mapping (following << merges).
func (n node) get(key string) (node, bool) {
	n = n.deref()
	if n.y == nil || n.y.Kind != yaml.MappingNode || !n.visit() {
		return node{}, false
	}
	child := n.path + "." + key
	if n.path == "" {
		child = key
	}
	var merges []node
	for i := 0; i+1 < len(n.y.Content); i += 2 {
		k := n.y.Content[i]
		if k.Kind == yaml.ScalarNode && k.Value == key {
			return node{y: n.y.Content[i+1], f: n.f, path: child}, true
		}
		if k.Kind == yaml.ScalarNode && k.Value == "<<" && k.ShortTag() == "!!merge" {
			merges = append(merges, node{y: n.y.Content[i+1], f: n.f, path: n.path})
		}
	}
	for _, m := range merges {
		if m.isList() {
			for _, item := range m.items() {
				if v, ok := item.get(key); ok {
					return node{y: v.y, f: n.f, path: child}, true
				}
			}
		} else if v, ok := m.get(key); ok {
			return node{y: v.y, f: n.f, path: child}, true
		}
	}
	return node{}, false
}

// keys lists a mapping's keys in order (merge keys excluded).
func (n node) keys() []string {
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

// items lists a sequence's values.
func (n node) items() []node {
	n = n.deref()
	if n.y == nil || n.y.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]node, 0, len(n.y.Content))
	for i, c := range n.y.Content {
		if !n.visit() {
			break
		}
		out = append(out, node{y: c, f: n.f, path: n.path + "[" + strconv.Itoa(i) + "]"})
	}
	return out
}

// fail records that the input is malformed at n. A node that is not in
// the input (an absent key's) has nowhere to point; its parent's reader
// reports what is missing.
func (n node) fail(reason string) {
	if n.f == nil {
		return
	}
	where := n.path
	if where != "" {
		where += " "
	}
	*n.f.errs = append(*n.f.errs, &Error{File: n.f.path, Line: n.line(), Reason: where + reason})
}

// str reads an optional text value of a mapping; a value that is present
// but not text is malformed.
func (n node) str(key string) string {
	v, ok := n.get(key)
	if !ok || v.isNull() {
		return ""
	}
	s, ok := v.text()
	if !ok {
		v.fail("must be a text value")
	}
	return s
}

// list reads an optional list of a mapping; a value that is present but
// not a list is malformed.
func (n node) list(key string) []node {
	v, ok := n.get(key)
	if !ok || v.isNull() {
		return nil
	}
	if !v.isList() {
		v.fail("must be a list")
		return nil
	}
	return v.items()
}

// object reads an optional mapping of a mapping; a value that is present
// but not a mapping is malformed.
func (n node) object(key string) (node, bool) {
	v, ok := n.get(key)
	if !ok || v.isNull() {
		return node{}, false
	}
	if !v.isMap() {
		v.fail("must be a mapping")
		return node{}, false
	}
	return v, true
}

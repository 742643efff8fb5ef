package mdcatalog

import (
	"bytes"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// document is one parsed Markdown file of the catalogue.
type document struct {
	path      string
	line      int        // file line of the front matter's first line
	closeLine int        // file line of the closing --- marker
	root      *yaml.Node // the front-matter mapping
	kind      string
	name      string // what domain.Problem.Name carries: name, term or phrase
	body      string
	value     any // domain.Model, domain.Relationship, domain.Metric, domain.Glossary, domain.Caveat, domain.NotDefined or domain.Example
}

// errorAt builds an *Error about the key at path (nil for the document),
// positioned at that key in the file.
func (d *document) errorAt(path []string, sentinel error, reason string) *Error {
	e := &Error{File: d.path, Key: formatPath(d.root, path), Reason: reason, Err: sentinel, Line: 1}
	if d.root != nil {
		if line, col := locate(d.root, path); line > 0 {
			e.Line, e.Column = d.line+line-1, col
		}
	}
	return e
}

// readDocument parses one file: it splits the front matter from the body,
// parses the YAML, selects the kind's schema, validates the front matter
// and builds the domain value. It reports every problem of the document
// that can be found without looking at other documents.
func readDocument(path string, data []byte, schemas *schemaSet) (*document, errorList) {
	d := &document{path: path}
	front, first, body, reason := splitFrontMatter(data)
	if reason != "" {
		return nil, errorList{{File: path, Line: 1, Reason: reason, Err: ErrFrontMatter}}
	}
	d.line, d.body = first, body
	d.closeLine = first + bytes.Count(front, []byte("\n"))
	root, yerr := parseYAML(path, front, first)
	if yerr != nil {
		return nil, errorList{yerr}
	}
	if root == nil {
		return nil, errorList{{File: path, Line: 1, Key: "kind", Err: ErrMissingKind,
			Reason: "is required, and the front matter is empty (kinds: " + strings.Join(Kinds, ", ") + ")"}}
	}
	if root.Kind != yaml.MappingNode {
		return nil, errorList{{File: path, Line: first + root.Line - 1, Column: root.Column, Err: ErrFrontMatter,
			Reason: "the front matter must be a mapping of keys to values"}}
	}
	d.root = root
	kindKey := keyNode(root, "kind")
	if kindKey == nil {
		return nil, errorList{d.errorAt([]string{"kind"}, ErrMissingKind,
			"is required (one of: "+strings.Join(Kinds, ", ")+")")}
	}
	kindVal, _ := step(root, "kind")
	if kindVal.Kind != yaml.ScalarNode || !slices.Contains(Kinds, kindVal.Value) {
		return nil, errorList{d.errorAt([]string{"kind"}, ErrUnknownKind,
			"is not a known kind (one of: "+strings.Join(Kinds, ", ")+")")}
	}
	d.kind = kindVal.Value
	var errs errorList
	conv := converter{root: root, file: path, line: first, errs: &errs}
	switch d.kind {
	case "example":
		conv.typed = questionTyped
	case "model":
		conv.typed = modelTyped
	}
	wire := conv.convert(root, nil)
	if len(errs) > 0 {
		return nil, errs
	}
	if errs = schemas.validate(d, wire); len(errs) > 0 {
		return nil, errs
	}
	b := builder{d: d, w: wire.(map[string]any)}
	b.build()
	if len(b.errs) > 0 {
		return nil, b.errs
	}
	return d, nil
}

// questionTyped reports the keys of an example's question that take a
// number or a boolean, where YAML's typing is kept.
// modelTyped reports the keys of a model whose YAML integers are read as
// numbers: a decimal column's precision and scale.
func modelTyped(path []string) bool {
	return len(path) == 3 && path[0] == "columns" && (path[2] == "precision" || path[2] == "scale")
}

func questionTyped(path []string) bool {
	switch strings.Join(path, ".") {
	case "question.range.last.count", "question.range.last.include_current", "question.top.n":
		return true
	}
	return false
}

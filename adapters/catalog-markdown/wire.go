package mdcatalog

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"sutura.dev/domain"
)

// maxDepth bounds the nesting of front matter; no schema goes deeper than
// a handful of levels, so deeper input is refused before it can exhaust
// the stack.
const maxDepth = 32

// toWire converts a front-matter node into the JSON data model the schema
// validator reads (map[string]any for mappings, []any, string, bool,
// json.Number, nil). When ordered is set, mappings become domain.Object
// instead, the form domain.DecodeQuestion reads.
//
// Scalars are read as their text, whatever YAML would type them as:
// 2026-01-01, 1234, 1234.50, true and yes all stay exactly the text the
// author wrote, because every value of the catalogue is text (and an
// anchor value must keep its trailing zero). The exceptions are an empty
// or ~ or null scalar, which is null (so a missing value is reported as
// missing), and the few places where a number or a boolean is wanted
// (typed reports them), where YAML's typing applies.
type converter struct {
	root    *yaml.Node // the document's front matter, for formatPath
	file    string
	line    int // file line of the YAML's first line
	ordered bool
	typed   func(path []string) bool
	errs    *errorList
}

func (c *converter) fail(n *yaml.Node, path []string, err error, reason string) {
	c.errs.add(&Error{File: c.file, Line: c.line + n.Line - 1, Column: n.Column, Key: formatPath(c.root, path), Reason: reason, Err: err})
}

func (c *converter) convert(n *yaml.Node, path []string) any {
	if len(path) > maxDepth {
		c.fail(n, path, ErrYAML, "is nested too deeply")
		return nil
	}
	switch n.Kind {
	case yaml.AliasNode:
		c.fail(n, path, ErrYAML, "uses a YAML alias; aliases are not supported, write the value out")
		return nil
	case yaml.MappingNode:
		return c.mapping(n, path)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for i, item := range n.Content {
			out = append(out, c.convert(item, append(path[:len(path):len(path)], strconv.Itoa(i))))
		}
		return out
	case yaml.ScalarNode:
		return c.scalar(n, path)
	}
	c.fail(n, path, ErrYAML, "is not a YAML value the catalogue understands")
	return nil
}

func (c *converter) mapping(n *yaml.Node, path []string) any {
	seen := map[string]int{}
	plain := map[string]any{}
	var obj domain.Object
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			c.fail(k, path, ErrYAML, "holds a key that is not plain text")
			continue
		}
		child := append(path[:len(path):len(path)], k.Value)
		if first, dup := seen[k.Value]; dup {
			c.fail(k, child, ErrDuplicateKey, fmt.Sprintf("appears twice in the same mapping (first on line %d)", c.line+first-1))
			continue
		}
		seen[k.Value] = k.Line
		val := c.convert(v, child)
		if c.ordered {
			obj = append(obj, domain.Member{Key: k.Value, Value: val})
		} else {
			plain[k.Value] = val
		}
	}
	if c.ordered {
		if obj == nil {
			obj = domain.Object{}
		}
		return obj
	}
	return plain
}

func (c *converter) scalar(n *yaml.Node, path []string) any {
	tag := n.ShortTag()
	if tag == "!!null" {
		return nil
	}
	if c.typed != nil && c.typed(path) {
		switch tag {
		case "!!int":
			var i int64
			if err := n.Decode(&i); err == nil {
				return json.Number(strconv.FormatInt(i, 10))
			}
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err == nil {
				return b
			}
		}
	}
	return n.Value
}

// formatPath renders a key path such as dimensions[1].values[3], reading
// each segment against the front matter it points into: a segment that
// steps into a YAML sequence is a list index ("[1]"), a segment that steps
// into a mapping is a key. A key is named only when it is an identifier
// (every key a schema defines is one); any other key is author text that
// matched nothing, and is described, never quoted. A segment the tree does
// not hold (a required key that is missing, a path past a scalar) is an
// index only when it is a plain non-negative decimal such as strconv.Itoa
// writes, so a key like "+000" or "1e3" is never mistaken for one.
func formatPath(root *yaml.Node, path []string) string {
	var b strings.Builder
	n := root
	for _, seg := range path {
		index := isIndex(seg)
		if n != nil {
			switch n.Kind {
			case yaml.SequenceNode:
				index = true
			case yaml.MappingNode:
				index = false
			}
			n, _ = step(n, seg)
		}
		if index && isIndex(seg) {
			b.WriteString("[" + seg + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(safeKey(seg))
	}
	return b.String()
}

// isIndex reports whether seg is a list index as the paths of this
// package write one: decimal digits, no sign, no leading zero.
func isIndex(seg string) bool {
	if seg == "" || len(seg) > 9 || (seg[0] == '0' && len(seg) > 1) {
		return false
	}
	for i := 0; i < len(seg); i++ {
		if seg[i] < '0' || seg[i] > '9' {
			return false
		}
	}
	return true
}

// notIdentifier is how an error names a key that is not an identifier.
const notIdentifier = "(a key that is not an identifier)"

func safeKey(k string) string {
	if domain.CheckIdent(k) == nil {
		return k
	}
	return notIdentifier
}

// parsePath splits a key path such as "dimensions[1].via[0]" into its
// segments ("dimensions", "1", "via", "0").
func parsePath(key string) []string {
	var out []string
	for _, part := range strings.Split(key, ".") {
		if part == "" {
			continue
		}
		name, rest, _ := strings.Cut(part, "[")
		if name != "" {
			out = append(out, name)
		}
		for rest != "" {
			idx, after, _ := strings.Cut(rest, "]")
			out = append(out, idx)
			_, rest, _ = strings.Cut(after, "[")
		}
	}
	return out
}

// locate follows path from root and returns the position to report: the
// value's own position when it is a scalar, the position of its key when
// it is a mapping or a list (a block collection starts on the next line),
// and the deepest node reached when the path leaves the document (a
// missing key is reported where its mapping is). A scalar written where a
// list is allowed (primary_key: id, via: r) stands for its element [0].
func locate(root *yaml.Node, path []string) (line, col int) {
	n, key := root, (*yaml.Node)(nil)
	for _, seg := range path {
		next, nextKey := step(n, seg)
		if next == nil {
			break
		}
		n, key = next, nextKey
	}
	if n == nil {
		return 0, 0
	}
	if key != nil && n.Kind != yaml.ScalarNode {
		return key.Line, key.Column
	}
	return n.Line, n.Column
}

func step(n *yaml.Node, seg string) (value, key *yaml.Node) {
	if n == nil {
		return nil, nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == seg {
				return n.Content[i+1], n.Content[i]
			}
		}
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(n.Content) {
			return n.Content[i], nil
		}
	case yaml.ScalarNode:
		if seg == "0" {
			return n, nil
		}
	}
	return nil, nil
}

// keyNode returns the node of key name in mapping n, or nil.
func keyNode(n *yaml.Node, name string) *yaml.Node {
	_, k := step(n, name)
	return k
}

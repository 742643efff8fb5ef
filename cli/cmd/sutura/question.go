package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"sutura.dev/domain"
)

// maxQuestionFile bounds a question file: a question is small.
const maxQuestionFile = 1 << 20

// readQuestion reads a question in JSON or YAML (the wire shape of
// docs/contract.md §3.1) from the file at path, or from stdin when path is "-"
// (echo '{…}' | sutura query -). Errors name the field, never a value.
func readQuestion(path string, stdin io.Reader) (domain.Question, error) {
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return domain.Question{}, fmt.Errorf("the question file cannot be read: %w", errors.Unwrap(err))
		}
		defer f.Close()
		r = f
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(r, maxQuestionFile+1)); err != nil {
		return domain.Question{}, fmt.Errorf("the question file cannot be read")
	}
	if buf.Len() > maxQuestionFile {
		return domain.Question{}, fmt.Errorf("the question file is larger than %d bytes", maxQuestionFile)
	}
	data := bytes.TrimSpace(buf.Bytes())
	if bytes.HasPrefix(data, []byte("{")) {
		q, err := domain.ParseQuestion(data)
		if err != nil {
			return q, fmt.Errorf("not a question: %w", err)
		}
		return q, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) != 1 {
		return domain.Question{}, errors.New("not a question: the file is neither JSON nor YAML")
	}
	v, err := yamlWire(doc.Content[0], "", 0)
	if err != nil {
		return domain.Question{}, fmt.Errorf("not a question: %w", err)
	}
	q, err := domain.DecodeQuestion(v)
	if err != nil {
		return q, fmt.Errorf("not a question: %w", err)
	}
	return q, nil
}

// yamlWire converts a YAML node to the wire form domain.DecodeQuestion
// reads: mappings become domain.Object, sequences []any, and scalars keep
// their YAML type (numbers as json.Number, booleans, null), so a question
// in YAML is decoded by exactly the rules of one in JSON.
func yamlWire(n *yaml.Node, path string, depth int) (any, error) {
	if depth > 32 {
		return nil, &domain.FieldError{Field: path, Problem: "is nested too deeply"}
	}
	switch n.Kind {
	case yaml.MappingNode:
		obj := domain.Object{}
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			child := k
			if domain.CheckIdent(k) != nil {
				child = "(a field whose name is not an identifier)"
			}
			if path != "" {
				child = path + "." + child
			}
			if seen[k] {
				return nil, &domain.FieldError{Field: child, Problem: "appears twice"}
			}
			seen[k] = true
			v, err := yamlWire(n.Content[i+1], child, depth+1)
			if err != nil {
				return nil, err
			}
			obj = append(obj, domain.Member{Key: k, Value: v})
		}
		return obj, nil
	case yaml.SequenceNode:
		arr := []any{}
		for i, c := range n.Content {
			v, err := yamlWire(c, fmt.Sprintf("%s[%d]", path, i), depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		return arr, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!int", "!!float":
			return json.Number(n.Value), nil
		case "!!bool":
			return strings.EqualFold(n.Value, "true"), nil
		case "!!null":
			return nil, nil
		}
		return n.Value, nil
	case yaml.AliasNode:
		return nil, &domain.FieldError{Field: path, Problem: "uses a YAML alias, which a question may not"}
	}
	return nil, &domain.FieldError{Field: path, Problem: "is not a value"}
}

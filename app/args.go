package app

import (
	"encoding/json"
	"fmt"
	"strings"

	"sutura.dev/domain"
)

// Reading the arguments of each tool: the first step of the pipeline. A
// question is read by domain.ParseQuestion; the other tools' arguments are
// read here. Every error is a *domain.FieldError that names the field and
// never holds a caller value.

// Arguments returns args, or {} when a call carried none: a tool called
// without arguments is called with the empty object.
func Arguments(args json.RawMessage) json.RawMessage {
	if len(args) == 0 {
		return json.RawMessage(`{}`)
	}
	return args
}

// ParseRunSQLArgs reads the arguments of run_sql: exactly
// {"statement": "<non-empty text of at most MaxStatementBytes bytes>"}.
// An unknown field is named when it is an identifier and described
// otherwise; no error holds the statement or any other caller value.
func ParseRunSQLArgs(args json.RawMessage) (string, error) {
	v, err := domain.DecodeJSON(args)
	if err != nil {
		return "", err
	}
	obj, ok := v.(domain.Object)
	if !ok {
		return "", &domain.FieldError{Problem: `must be an object ({"statement": "..."})`}
	}
	var (
		statement string
		seen      bool
	)
	for _, m := range obj {
		if m.Key != "statement" {
			return "", &domain.FieldError{Field: fieldName(m.Key), Problem: "is not a field: run_sql takes {statement}"}
		}
		if seen {
			return "", &domain.FieldError{Field: "statement", Problem: "is given twice"}
		}
		seen = true
		s, ok := m.Value.(string)
		if !ok {
			return "", &domain.FieldError{Field: "statement", Problem: "must be a string"}
		}
		statement = s
	}
	switch {
	case !seen:
		return "", &domain.FieldError{Field: "statement", Problem: "is required"}
	case strings.TrimSpace(statement) == "":
		return "", &domain.FieldError{Field: "statement", Problem: "must not be empty"}
	case len(statement) > MaxStatementBytes:
		return "", &domain.FieldError{Field: "statement", Problem: fmt.Sprintf("is longer than %d bytes", MaxStatementBytes)}
	}
	return statement, nil
}

// fieldName is key when it is an identifier, and a description otherwise:
// a key is caller text too.
func fieldName(key string) string {
	if domain.CheckIdent(key) == nil {
		return key
	}
	return "(a field whose name is not an identifier)"
}

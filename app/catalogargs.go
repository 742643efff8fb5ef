package app

import (
	"encoding/json"
	"fmt"
	"unicode"
	"unicode/utf8"

	"sutura.dev/domain"
)

// Bounds of describe_catalog's arguments (docs/contract.md §14).
const (
	// MaxSearchChars bounds a search, in characters.
	MaxSearchChars = 200
	// MaxDescribeMetrics bounds the names one describe_catalog asks for in
	// full.
	MaxDescribeMetrics = 32
	// MaxCursorBytes bounds a cursor: every cursor this server issues is
	// far shorter.
	MaxCursorBytes = 256
)

// DescribeRequest is what one describe_catalog asks (docs/contract.md
// §14): the zero value lists the catalogue as it always did. Search ranks
// the visible metrics by the words given; Metrics asks for those metrics
// in full; Cursor continues a listing where a previous response's
// next_cursor left it.
type DescribeRequest struct {
	Search  string
	Metrics []string
	Cursor  string
}

// ParseDescribeCatalogArgs reads the arguments of describe_catalog:
// {} or {search?, metrics?, cursor?}. Every error is a *domain.FieldError
// naming the field and never holding the caller's value: a search with a
// control or invisible character, longer than MaxSearchChars or without a
// word; metrics that are not 1..MaxDescribeMetrics distinct identifiers;
// a cursor that is not text; search and metrics together. Whether a
// cursor was issued for this listing is checked when it is used.
func ParseDescribeCatalogArgs(args json.RawMessage) (DescribeRequest, error) {
	var req DescribeRequest
	v, err := domain.DecodeJSON(args)
	if err != nil {
		return req, err
	}
	obj, ok := v.(domain.Object)
	if !ok {
		return req, &domain.FieldError{Problem: "must be an object ({} or {search, metrics, cursor})"}
	}
	seen := map[string]bool{}
	for _, m := range obj {
		if seen[m.Key] {
			return req, &domain.FieldError{Field: fieldName(m.Key), Problem: "is given twice"}
		}
		seen[m.Key] = true
		switch m.Key {
		case "search":
			s, ok := m.Value.(string)
			if !ok {
				return req, &domain.FieldError{Field: "search", Problem: "must be a string"}
			}
			if err := checkSearch(s); err != nil {
				return req, err
			}
			req.Search = s
		case "metrics":
			names, err := parseMetricNames(m.Value)
			if err != nil {
				return req, err
			}
			req.Metrics = names
		case "cursor":
			s, ok := m.Value.(string)
			switch {
			case !ok:
				return req, &domain.FieldError{Field: "cursor", Problem: "must be a string (a next_cursor, unchanged)"}
			case s == "" || len(s) > MaxCursorBytes:
				return req, &domain.FieldError{Field: "cursor", Problem: errNotIssued}
			}
			req.Cursor = s
		default:
			return req, &domain.FieldError{Field: fieldName(m.Key), Problem: "is not a field: describe_catalog takes {search, metrics, cursor}, each optional"}
		}
	}
	if req.Search != "" && req.Metrics != nil {
		return req, &domain.FieldError{Field: "search", Problem: "cannot be given with metrics: search finds metrics, metrics names them"}
	}
	return req, nil
}

// checkSearch accepts 1..MaxSearchChars characters of text holding at
// least one letter or digit and no control, format (invisible) or
// unassigned character.
func checkSearch(s string) error {
	fe := func(problem string) error { return &domain.FieldError{Field: "search", Problem: problem} }
	if !utf8.ValidString(s) {
		return fe("is not valid UTF-8 text")
	}
	n, word := 0, false
	for _, r := range s {
		n++
		switch {
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r), unicode.Is(unicode.Co, r), !unicode.IsPrint(r) && r != ' ':
			return fe("holds a control or invisible character; send words only")
		case unicode.IsLetter(r), unicode.IsDigit(r):
			word = true
		}
	}
	switch {
	case n == 0:
		return fe("must not be empty; omit it to list the catalogue")
	case n > MaxSearchChars:
		return fe(fmt.Sprintf("is longer than %d characters", MaxSearchChars))
	case !word:
		return fe("holds no word (no letter or digit)")
	}
	return nil
}

// parseMetricNames reads metrics: 1..MaxDescribeMetrics distinct
// identifiers.
func parseMetricNames(v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, &domain.FieldError{Field: "metrics", Problem: "must be an array of metric names"}
	}
	switch {
	case len(arr) == 0:
		return nil, &domain.FieldError{Field: "metrics", Problem: "must name at least one metric; omit it to list the catalogue"}
	case len(arr) > MaxDescribeMetrics:
		return nil, &domain.FieldError{Field: "metrics", Problem: fmt.Sprintf("names more than %d metrics; ask for fewer at a time", MaxDescribeMetrics)}
	}
	names := make([]string, 0, len(arr))
	seen := map[string]bool{}
	for i, e := range arr {
		field := fmt.Sprintf("metrics[%d]", i)
		s, ok := e.(string)
		if !ok {
			return nil, &domain.FieldError{Field: field, Problem: "must be a string"}
		}
		if domain.CheckIdent(s) != nil {
			return nil, &domain.FieldError{Field: field, Problem: "is not a metric name (an identifier)"}
		}
		if seen[s] {
			return nil, &domain.FieldError{Field: field, Problem: "repeats an earlier name"}
		}
		seen[s] = true
		names = append(names, s)
	}
	return names, nil
}

//go:build cgo

package duckdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
)

// The bounds of the values a run_sql statement may build from its own
// arguments. DuckDB neither accounts such values to memory_limit nor
// notices an interrupt while one function builds one, so one call such
// as repeat('x', 1500000000) holds gigabytes and runs long past the
// deadline. A vector holds 2,048 values, so a bound per value is a bound
// per vector of 2,048 times as much.
const (
	// maxBuiltBytes bounds a text built by repeat, lpad, rpad or bar.
	maxBuiltBytes = 64 << 10
	// maxBuiltElements bounds a list built by range, generate_series,
	// list_resize or array_resize (as scalar functions; the table
	// functions stream rows and are not bounded here).
	maxBuiltElements = 8192
	// maxRepeatOfColumn bounds repeat's count when what it repeats is not
	// a constant.
	maxRepeatOfColumn = 64
)

// builders are the scalar functions whose result's size is set by an
// argument, with the index of that argument (-1: every argument).
var builders = map[string]int{
	"repeat": 1, "lpad": 1, "rpad": 1, "bar": 3,
	"range": -1, "generate_series": -1, "list_resize": 1, "array_resize": 1,
}

// multipliers are the functions whose result may be many times the size
// of their arguments (a replacement for every match, a lambda's value for
// every element); no builder and no other multiplier may be among their
// arguments, nor a text constant longer than maxMultipliedText.
var multipliers = map[string]bool{
	"replace": true, "regexp_replace": true, "printf": true, "format": true,
	"list_transform": true, "list_apply": true, "array_transform": true, "array_apply": true, "apply": true,
}

// lambdas are the multipliers whose first argument is a list the lambda
// that follows runs on.
var lambdas = map[string]bool{"list_transform": true, "list_apply": true, "array_transform": true, "array_apply": true, "apply": true}

// maxMultipliedText bounds a text constant inside a multiplier.
const maxMultipliedText = 1 << 10

// folds are refused outright: a lambda that doubles its accumulator
// doubles the value for every element, with no builder in sight.
var folds = map[string]bool{"list_reduce": true, "array_reduce": true, "reduce": true}

// errNotSerialized is checkValues' error for a statement that is not a
// SELECT DuckDB can serialize.
var errNotSerialized = errors.New("not a serializable SELECT")

// checkValues reads statement's syntax tree (json_serialize_sql, which
// runs nothing) and returns a reason when it builds a value past the
// bounds above, "" otherwise.
func checkValues(ctx context.Context, c *sql.Conn, statement string) (string, error) {
	var tree string
	if err := c.QueryRowContext(ctx, "SELECT json_serialize_sql($1::VARCHAR)::VARCHAR", statement).Scan(&tree); err != nil {
		return "", err
	}
	var root any
	if err := json.Unmarshal([]byte(tree), &root); err != nil {
		return "", fmt.Errorf("reading the statement's syntax tree: %w", err)
	}
	if m, ok := root.(map[string]any); ok && m["error"] == true {
		if m["error_type"] == "parser" {
			// Preparing it reports the author's syntax error.
			return "", nil
		}
		// A statement DuckDB does not serialize (a write, SET, PIVOT) cannot
		// be read for its values: it is refused as no query.
		return "", errNotSerialized
	}
	return walkValues(root, false), nil
}

// walkValues returns the first reason found in node; inside says node is
// within the arguments of a builder or a multiplier.
func walkValues(node any, inside bool) string {
	switch n := node.(type) {
	case []any:
		for _, v := range n {
			if r := walkValues(v, inside); r != "" {
				return r
			}
		}
	case map[string]any:
		if n["type"] == "TABLE_FUNCTION" {
			// A table function streams its rows; its arguments are still
			// read.
			if f, ok := n["function"].(map[string]any); ok {
				if r := walkValues(f["children"], inside); r != "" {
					return r
				}
			}
			for k, v := range n {
				if k == "function" {
					continue
				}
				if r := walkValues(v, inside); r != "" {
					return r
				}
			}
			return ""
		}
		if inside {
			if text, ok := constText(n); ok && len(text) > maxMultipliedText {
				return fmt.Sprintf("a text constant longer than %d bytes is used inside a function that builds or multiplies a value", maxMultipliedText)
			}
		}
		if n["class"] == "FUNCTION" {
			name, _ := n["function_name"].(string)
			name = strings.ToLower(name)
			args, _ := n["children"].([]any)
			if folds[name] {
				return name + " is not run by run_sql: a fold can double its value for every element"
			}
			if at, ok := builders[name]; ok {
				if inside {
					return name + " is used inside another function that builds or multiplies a value"
				}
				if r := checkBuilder(name, at, args); r != "" {
					return r
				}
				return walkValues(args, true)
			}
			if multipliers[name] {
				if inside {
					return name + " is used inside another function that builds or multiplies a value"
				}
				if lambdas[name] && len(args) > 0 {
					// The list is read once; the lambda runs for each of
					// its elements.
					if r := walkValues(args[0], false); r != "" {
						return r
					}
					return walkValues(args[1:], true)
				}
				return walkValues(args, true)
			}
		}
		for _, v := range n {
			if r := walkValues(v, inside); r != "" {
				return r
			}
		}
	}
	return ""
}

// checkBuilder checks the size arguments of one call of builder name.
func checkBuilder(name string, at int, args []any) string {
	limit := func(what string, bound int) string {
		return fmt.Sprintf("%s builds a value of at most %d %s in run_sql, with a constant size", name, bound, what)
	}
	switch name {
	case "range", "generate_series":
		for _, a := range args {
			v, ok := constInt(a)
			if !ok || math.Abs(float64(v)) > maxBuiltElements {
				return limit("elements (integer bounds within ±8192; use the table function FROM range(…) for more)", maxBuiltElements)
			}
		}
		return ""
	case "list_resize", "array_resize":
		if v, ok := arg(args, at); !ok || v < 0 || v > maxBuiltElements {
			return limit("elements", maxBuiltElements)
		}
		return ""
	case "bar":
		if len(args) <= at {
			return "" // the default width
		}
		if v, ok := arg(args, at); !ok || v < 0 || v > maxBuiltBytes/4 {
			return limit("characters", maxBuiltBytes/4)
		}
		return ""
	case "repeat":
		n, ok := arg(args, at)
		if !ok || n < 0 {
			return limit("bytes", maxBuiltBytes)
		}
		if s, isText := constText(args[0]); isText {
			if int64(len(s))*n > maxBuiltBytes {
				return limit("bytes", maxBuiltBytes)
			}
			return ""
		}
		if n > maxRepeatOfColumn {
			return fmt.Sprintf("repeat repeats what is not a constant at most %d times in run_sql", maxRepeatOfColumn)
		}
		return ""
	}
	// lpad, rpad
	if v, ok := arg(args, at); !ok || v < 0 || v > maxBuiltBytes {
		return limit("characters", maxBuiltBytes)
	}
	return ""
}

// arg is the integer constant args[i].
func arg(args []any, i int) (int64, bool) {
	if i >= len(args) {
		return 0, false
	}
	return constInt(args[i])
}

// constant is the value of a CONSTANT node (through casts of one), or nil.
func constant(node any) (map[string]any, bool) {
	n, ok := node.(map[string]any)
	if !ok {
		return nil, false
	}
	if n["class"] == "CAST" {
		return constant(n["child"])
	}
	if n["class"] != "CONSTANT" {
		return nil, false
	}
	v, ok := n["value"].(map[string]any)
	if !ok || v["is_null"] == true {
		return nil, false
	}
	return v, true
}

// constInt is an integer constant node's value.
func constInt(node any) (int64, bool) {
	v, ok := constant(node)
	if !ok {
		return 0, false
	}
	f, ok := v["value"].(float64)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// constText is a text constant node's value.
func constText(node any) (string, bool) {
	v, ok := constant(node)
	if !ok {
		return "", false
	}
	s, ok := v["value"].(string)
	return s, ok
}

package config

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
)

// Error is one refusal of the configuration. It names where the refused
// setting came from and which key it set, never the value, so it is safe
// to print and to log.
type Error struct {
	// Layer is the origin of the setting: the path of a YAML file, the
	// name of an environment variable, or "defaults" when the key kept
	// its built-in value.
	Layer string
	// Key is the dotted key, with list indices in brackets
	// (catalogs[0].dir); it is empty when the refusal concerns the layer
	// itself (an unreadable file, a bad SUTURA_ENVIRONMENT).
	Key string
	// Line and Column locate the setting in a YAML file; both are zero
	// for the other layers.
	Line, Column int
	// Reason says what is wrong and, where there is one, the allowed
	// range or set of values.
	Reason string
	// Err is the underlying cause, if any (an I/O error), for errors.Is;
	// its text is not part of Error().
	Err error
}

// Error renders the refusal as "layer[:line:column]: key: reason".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Where())
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(displayKey(e.Key))
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

// Where renders the layer with the line and column when known.
func (e *Error) Where() string {
	switch {
	case e.Line <= 0:
		return e.Layer
	case e.Column <= 0:
		return e.Layer + ":" + strconv.Itoa(e.Line)
	}
	return e.Layer + ":" + strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Column)
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// Errors lists every [*Error] inside err, in the order they were found,
// looking through errors joined with [errors.Join] and wrapped with %w.
// It returns nil when err holds none.
func Errors(err error) []*Error {
	var out []*Error
	var walk func(error)
	walk = func(err error) {
		if err == nil {
			return
		}
		if e, ok := err.(*Error); ok {
			out = append(out, e)
			return
		}
		switch u := err.(type) {
		case interface{ Unwrap() []error }:
			for _, inner := range u.Unwrap() {
				walk(inner)
			}
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		}
	}
	walk(err)
	return out
}

// maxKeyDisplay bounds how much of a key an error message repeats.
const maxKeyDisplay = 200

// displayKey renders a key for a message: keys are names, not values, but
// a mistyped file can still put odd characters or a very long string in a
// key position, so those are quoted and shortened.
func displayKey(k string) string {
	if len(k) > maxKeyDisplay {
		cut := maxKeyDisplay
		for cut > 0 && !isRuneStart(k[cut]) {
			cut--
		}
		k = k[:cut] + "…"
	}
	for _, r := range k {
		if r == unicode.ReplacementChar || !unicode.IsPrint(r) || unicode.IsSpace(r) || r == '"' || r == '\'' || r == '`' {
			return strconv.Quote(k)
		}
	}
	return k
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// errList collects refusals in order.
type errList []error

func (l *errList) add(e *Error) { *l = append(*l, e) }

func (l errList) err() error {
	if len(l) == 0 {
		return nil
	}
	if len(l) == 1 {
		return l[0]
	}
	return errors.Join(l...)
}

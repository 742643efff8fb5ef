package domain

import (
	"errors"
	"strings"
)

// MaxIdentLen is the longest identifier sutura accepts, in bytes. It matches
// the identifier limit of the most restrictive supported database.
const MaxIdentLen = 63

// Identifier problems. They never carry the rejected text.
var (
	ErrIdentEmpty   = errors.New("is empty")
	ErrIdentTooLong = errors.New("is longer than 63 characters")
	ErrIdentSyntax  = errors.New("is not an identifier ([A-Za-z_][A-Za-z0-9_]*)")
)

// CheckIdent reports whether s is a valid identifier: [A-Za-z_][A-Za-z0-9_]*
// of at most MaxIdentLen characters. Every name in a catalogue and in a
// question is an identifier. The error never contains s.
func CheckIdent(s string) error {
	if s == "" {
		return ErrIdentEmpty
	}
	if len(s) > MaxIdentLen {
		return ErrIdentTooLong
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return ErrIdentSyntax
		}
	}
	return nil
}

// FoldIdent returns the case-folded form used to detect names that collide
// regardless of case. Identifiers are ASCII, so folding is lower-casing.
func FoldIdent(s string) string { return strings.ToLower(s) }

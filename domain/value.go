package domain

import (
	"errors"
	"unicode"
	"unicode/utf8"
)

// MaxValueLen is the longest dimension value, in characters (code points).
const MaxValueLen = 64

// Dimension value problems (docs/contract.md §3.3). None of them carries the
// rejected value: a rejected value is never echoed anywhere.
var (
	ErrValueEmpty     = errors.New("is empty")
	ErrValueTooLong   = errors.New("is longer than 64 characters")
	ErrValueEncoding  = errors.New("is not valid UTF-8")
	ErrValueControl   = errors.New("holds a control character")
	ErrValueInvisible = errors.New("holds an invisible or direction-changing character")
	ErrValueSpacing   = errors.New("has leading, trailing, doubled or non-standard spacing")
)

// CheckValue reports whether s is a valid dimension value: non-empty, valid
// UTF-8, at most MaxValueLen characters, no control character (tab and
// newline included), no invisible or direction-changing code point, and
// only single U+0020 spaces between non-space characters. The same rule
// applies to caller filter values, allowlist entries, required-filter
// values and anchor values. The error never contains s.
func CheckValue(s string) error {
	if s == "" {
		return ErrValueEmpty
	}
	if !utf8.ValidString(s) {
		return ErrValueEncoding
	}
	if utf8.RuneCountInString(s) > MaxValueLen {
		return ErrValueTooLong
	}
	prevSpace := true // a leading space counts as doubled
	for _, r := range s {
		switch {
		case unicode.IsControl(r):
			return ErrValueControl
		case invisible(r):
			return ErrValueInvisible
		case r == ' ':
			if prevSpace {
				return ErrValueSpacing
			}
			prevSpace = true
			continue
		case unicode.IsSpace(r) || unicode.Is(unicode.Zs, r):
			return ErrValueSpacing
		}
		prevSpace = false
	}
	if prevSpace {
		return ErrValueSpacing
	}
	return nil
}

// invisible reports the code points §3.3 names as invisible or
// direction-changing.
func invisible(r rune) bool {
	switch {
	case r == 0x00AD, r == 0xFEFF:
		return true
	case 0x200B <= r && r <= 0x200F,
		0x202A <= r && r <= 0x202E,
		0x2060 <= r && r <= 0x2064,
		0x2066 <= r && r <= 0x2069,
		0xFFF9 <= r && r <= 0xFFFB:
		return true
	}
	return false
}

package domain

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheckValue(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want error
	}{
		// Accepted.
		{"plain", "east", nil},
		{"single inner spaces", "North East region", nil},
		{"punctuation", "A&B (UK) Ltd.", nil},
		{"digits", "2026", nil},
		{"one character", "x", nil},
		{"non-ASCII letters", "Zürich Ost", nil},
		{"CJK", "東京", nil},
		{"emoji", "🙂 ok", nil},
		{"64 ASCII characters", strings.Repeat("a", 64), nil},
		{"64 two-byte characters (128 bytes)", strings.Repeat("é", 64), nil},
		{"64 four-byte characters (256 bytes)", strings.Repeat("🙂", 64), nil},

		// Empty and length.
		{"empty", "", ErrValueEmpty},
		{"65 ASCII characters", strings.Repeat("a", 65), ErrValueTooLong},
		{"65 two-byte characters", strings.Repeat("é", 65), ErrValueTooLong},
		{"65 three-byte characters", strings.Repeat("東", 65), ErrValueTooLong},

		// Encoding.
		{"invalid byte", "ab\xffcd", ErrValueEncoding},
		{"truncated sequence", "ab\xc3", ErrValueEncoding},
		{"surrogate encoded", "a\xed\xa0\x80", ErrValueEncoding},
		{"overlong slash", "a\xc0\xafb", ErrValueEncoding},

		// Control characters: C0, DEL and C1.
		{"NUL", "a\x00b", ErrValueControl},
		{"BEL", "a\x07b", ErrValueControl},
		{"tab", "a\tb", ErrValueControl},
		{"newline", "a\nb", ErrValueControl},
		{"carriage return", "a\rb", ErrValueControl},
		{"leading tab", "\tab", ErrValueControl},
		{"trailing newline", "ab\n", ErrValueControl},
		{"unit separator U+001F", "a\x1fb", ErrValueControl},
		{"DEL U+007F", "a\x7fb", ErrValueControl},
		{"C1 U+0080", "a\u0080b", ErrValueControl},
		{"C1 NEL U+0085", "a\u0085b", ErrValueControl},
		{"C1 U+009F", "a\u009fb", ErrValueControl},

		// Invisible and direction-changing code points, each boundary.
		{"soft hyphen U+00AD", "a\u00adb", ErrValueInvisible},
		{"U+200B first of range", "a\u200bb", ErrValueInvisible},
		{"U+200C", "a\u200cb", ErrValueInvisible},
		{"U+200D", "a\u200db", ErrValueInvisible},
		{"U+200E", "a\u200eb", ErrValueInvisible},
		{"U+200F last of range", "a\u200fb", ErrValueInvisible},
		{"U+202A first of range", "a\u202ab", ErrValueInvisible},
		{"U+202C", "a\u202cb", ErrValueInvisible},
		{"U+202E last of range", "a\u202eb", ErrValueInvisible},
		{"U+2060 first of range", "a\u2060b", ErrValueInvisible},
		{"U+2062", "a\u2062b", ErrValueInvisible},
		{"U+2064 last of range", "a\u2064b", ErrValueInvisible},
		{"U+2066 first of range", "a\u2066b", ErrValueInvisible},
		{"U+2067", "a\u2067b", ErrValueInvisible},
		{"U+2069 last of range", "a\u2069b", ErrValueInvisible},
		{"BOM U+FEFF", "a\ufeffb", ErrValueInvisible},
		{"leading BOM", "\ufeffab", ErrValueInvisible},
		{"U+FFF9 first of range", "a\ufff9b", ErrValueInvisible},
		{"U+FFFA", "a\ufffab", ErrValueInvisible},
		{"U+FFFB last of range", "a\ufffbb", ErrValueInvisible},

		// Neighbours of those ranges that §3.3 does not name.
		{"U+00AC not sign", "a\u00acb", nil},
		{"U+00AE registered sign", "a\u00aeb", nil},
		{"U+2010 hyphen after U+200F", "a\u2010b", nil},
		{"U+2029 before U+202A is a separator", "a\u2029b", ErrValueSpacing},
		{"U+2028 line separator", "a\u2028b", ErrValueSpacing},
		{"U+202F after U+202E is a space", "a\u202fb", ErrValueSpacing},
		{"U+2030 per mille", "a\u2030b", nil},
		{"U+205F before U+2060 is a space", "a\u205fb", ErrValueSpacing},
		{"U+205E vertical four dots", "a\u205eb", nil},
		{"U+2065 between the ranges", "a\u2065b", nil},
		{"U+206A after U+2069", "a\u206ab", nil},
		{"U+FEFE before U+FEFF", "a\ufefeb", nil},
		{"U+FF01 fullwidth exclamation", "a\uff01b", nil},
		{"U+FFF8 before U+FFF9", "a\ufff8b", nil},
		{"U+FFFC after U+FFFB", "a\ufffcb", nil},
		{"U+FFFD replacement character", "a\ufffdb", nil},
		{"U+200A hair space before U+200B", "a\u200ab", ErrValueSpacing},

		// Spacing.
		{"leading space", " east", ErrValueSpacing},
		{"trailing space", "east ", ErrValueSpacing},
		{"only a space", " ", ErrValueSpacing},
		{"two spaces", "  ", ErrValueSpacing},
		{"doubled inner space", "north  east", ErrValueSpacing},
		{"tripled inner space", "north   east", ErrValueSpacing},
		{"no-break space U+00A0", "north\u00a0east", ErrValueSpacing},
		{"ideographic space U+3000", "東\u3000京", ErrValueSpacing},
		{"en quad U+2000", "a\u2000b", ErrValueSpacing},
		{"em space U+2003", "a\u2003b", ErrValueSpacing},
		{"Ogham space U+1680", "a\u1680b", ErrValueSpacing},
		{"leading no-break space", "\u00a0east", ErrValueSpacing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckValue(tt.in)
			if (tt.want == nil) != (err == nil) || !errors.Is(err, tt.want) {
				t.Fatalf("CheckValue(%q) = %v, want %v", tt.in, err, tt.want)
			}
			// A value made of spaces cannot be told apart from the prose.
			if err != nil && strings.TrimSpace(tt.in) != "" && strings.Contains(err.Error(), tt.in) {
				t.Errorf("error %q echoes the value", err)
			}
		})
	}
}

// TestCheckValueLengthInCodePoints walks the length boundary with characters
// of every UTF-8 width, so that a byte count cannot pass for a character
// count.
func TestCheckValueLengthInCodePoints(t *testing.T) {
	for _, ch := range []string{"a", "é", "東", "🙂"} {
		for n := 60; n <= 70; n++ {
			s := strings.Repeat(ch, n)
			err := CheckValue(s)
			if n <= MaxValueLen && err != nil {
				t.Errorf("%d × %q (%d bytes): %v, want accepted", n, ch, len(s), err)
			}
			if n > MaxValueLen && !errors.Is(err, ErrValueTooLong) {
				t.Errorf("%d × %q (%d bytes): %v, want ErrValueTooLong", n, ch, len(s), err)
			}
			if utf8.RuneCountInString(s) != n {
				t.Fatal("test construction is wrong")
			}
		}
	}
	if MaxValueLen != 64 {
		t.Errorf("MaxValueLen = %d, docs/contract.md §3.3 says 64", MaxValueLen)
	}
}

// TestCheckValueEveryControl checks every C0, DEL and C1 code point in the
// middle of an otherwise valid value.
func TestCheckValueEveryControl(t *testing.T) {
	var controls []rune
	for r := rune(0); r < 0x20; r++ {
		controls = append(controls, r)
	}
	controls = append(controls, 0x7f)
	for r := rune(0x80); r <= 0x9f; r++ {
		controls = append(controls, r)
	}
	for _, r := range controls {
		if err := CheckValue("a" + string(r) + "b"); !errors.Is(err, ErrValueControl) {
			t.Errorf("U+%04X: %v, want ErrValueControl", r, err)
		}
	}
	// The printable neighbours are fine.
	for _, r := range []rune{0x21, 0x7e, 0xa1} {
		if err := CheckValue("a" + string(r) + "b"); err != nil {
			t.Errorf("U+%04X: %v, want accepted", r, err)
		}
	}
}

package domain

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckIdent(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want error
	}{
		{"lower", "net_sales", nil},
		{"single letter", "a", nil},
		{"single underscore", "_", nil},
		{"leading underscore", "_private", nil},
		{"upper and digits", "Area51", nil},
		{"mixed case", "NetSales_2026", nil},
		{"63 characters", strings.Repeat("a", 63), nil},
		{"63 characters ending in digits", "a" + strings.Repeat("9", 62), nil},
		{"empty", "", ErrIdentEmpty},
		{"64 characters", strings.Repeat("a", 64), ErrIdentTooLong},
		{"200 characters", strings.Repeat("b", 200), ErrIdentTooLong},
		{"leading digit", "1abc", ErrIdentSyntax},
		{"only digit", "7", ErrIdentSyntax},
		{"hyphen", "net-sales", ErrIdentSyntax},
		{"dot", "schema.table", ErrIdentSyntax},
		{"space", "net sales", ErrIdentSyntax},
		{"trailing space", "net ", ErrIdentSyntax},
		{"dollar", "a$b", ErrIdentSyntax},
		{"quote", `a"b`, ErrIdentSyntax},
		{"semicolon", "a;drop", ErrIdentSyntax},
		{"non-ASCII letter", "café", ErrIdentSyntax},
		{"non-ASCII first", "élan", ErrIdentSyntax},
		{"NUL", "a\x00b", ErrIdentSyntax},
		{"newline", "a\nb", ErrIdentSyntax},
		{"invalid UTF-8", "a\xffb", ErrIdentSyntax},
		{"fullwidth digit", "a１", ErrIdentSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckIdent(tt.in)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("CheckIdent(%q) = %v, want %v", tt.in, err, tt.want)
			}
			if err != nil && tt.in != "" && strings.Contains(err.Error(), tt.in) {
				t.Errorf("error %q echoes the identifier", err)
			}
		})
	}
}

func TestIdentLengthIsCountedInBytes(t *testing.T) {
	if MaxIdentLen != 63 {
		t.Fatalf("MaxIdentLen = %d, docs/contract.md §2 says 63", MaxIdentLen)
	}
	// 62 ASCII letters and one two-byte letter: 63 characters but 64 bytes.
	// Either way it is refused; the length rule must not let it through.
	if err := CheckIdent(strings.Repeat("a", 62) + "é"); err == nil {
		t.Fatal("a non-ASCII identifier was accepted")
	}
}

func TestFoldIdent(t *testing.T) {
	tests := []struct{ a, b string }{
		{"Area", "area"},
		{"AREA", "aReA"},
		{"net_Sales_2", "NET_SALES_2"},
	}
	for _, tt := range tests {
		if FoldIdent(tt.a) != FoldIdent(tt.b) {
			t.Errorf("FoldIdent(%q) = %q, FoldIdent(%q) = %q; want equal", tt.a, FoldIdent(tt.a), tt.b, FoldIdent(tt.b))
		}
	}
	if FoldIdent("area") == FoldIdent("areas") {
		t.Error("different identifiers folded to one name")
	}
}

package groups

import (
	"math"
	"slices"
	"testing"

	"sutura.dev/domain"
)

// A codebook gives each value met the next code, and the same code when
// met again (+0 and -0 as one); Value gives back each code's value as a
// distinct set takes it, Ranks their ascending order (decimals by value,
// not text), and Into the codes of the same values in another book.
func TestCodebookCodesValuesAndRanks(t *testing.T) {
	f := NewCodebook(domain.TypeFloat)
	for i, v := range []float64{2.5, math.Copysign(0, -1), 2.5, 0, -1} {
		if got, want := f.Float(v), []int32{1, 2, 1, 2, 3}[i]; got != want {
			t.Fatalf("float %v: code %d, want %d", v, got, want)
		}
	}
	if f.Card() != 3 || f.Bytes() != 120 {
		t.Fatalf("floats: card %d, bytes %d; want 3, 120", f.Card(), f.Bytes())
	}
	if _, v, text := f.Value(2); text || v != int64(math.Float64bits(0)) {
		t.Fatalf("float code 2: value %#x, text %v; want +0's bits", v, text)
	}
	if got := f.Ranks(); !slices.Equal(got, []int32{2, 1, 0}) {
		t.Fatalf("float ranks %v, want [2 1 0]", got)
	}

	d := NewCodebook(domain.TypeDecimal)
	for _, s := range []string{"10", "9.5", "-1"} {
		d.Text(s)
	}
	if got := d.Ranks(); !slices.Equal(got, []int32{2, 1, 0}) {
		t.Fatalf("decimal ranks %v, want [2 1 0]", got)
	}
	if s, _, text := d.Value(2); !text || s != "9.5" {
		t.Fatalf("decimal code 2: value %q, text %v; want 9.5", s, text)
	}

	src, dst := NewCodebook(domain.TypeInteger), NewCodebook(domain.TypeInteger)
	src.Int(7)
	src.Int(3)
	dst.Int(3)
	if got := src.Into(dst); !slices.Equal(got, []int32{0, 2, 1}) {
		t.Fatalf("into: %v, want [0 2 1]", got)
	}
	if _, v, text := dst.Value(2); text || v != 7 || dst.Cell(2) != domain.Int(7) {
		t.Fatalf("dst code 2: value %d, text %v, cell %v; want 7", v, text, dst.Cell(2))
	}
}

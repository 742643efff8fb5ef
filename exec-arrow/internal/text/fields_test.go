package text

import (
	"slices"
	"strconv"
	"testing"
	"unsafe"
)

func TestFieldsColumnByColumn(t *testing.T) {
	for _, copied := range []bool{true, false} {
		t.Run(map[bool]string{true: "copied", false: "in place"}[copied], func(t *testing.T) { fieldsColumnByColumn(t, copied) })
	}
}

func fieldsColumnByColumn(t *testing.T, copied bool) {
	f := Fields{Copy: copied}
	// A first block of three slots, the middle one read for its validity.
	f.Reset(4, []bool{false, true, false})
	rows := [][]string{{"2025-01-01", "17", "a"}, {"", "", "bb"}, {"2025-01-03", "123456", ""}, {"x", "9", "ccc"}}
	for k, r := range rows {
		for s, v := range r {
			f.Put(k, s, v)
		}
	}
	f.Seal()
	if got, want := f.Column(0), []string{"2025-01-01", "", "2025-01-03", "x"}; !slices.Equal(got, want) {
		t.Errorf("column 0 = %q, want %q", got, want)
	}
	if got, want := f.Column(1), []string{"1", "", "1", "9"}; !slices.Equal(got, want) {
		t.Errorf("a validity-only column keeps one byte of each value: %q, want %q", got, want)
	}
	if got, want := f.Column(2), []string{"a", "bb", "", "ccc"}; !slices.Equal(got, want) {
		t.Errorf("column 2 = %q, want %q", got, want)
	}
	if got, want := ValidFromText(f.Column(2)), []byte{0b1011}; !slices.Equal(got, want) {
		t.Errorf("validity of column 2 = %08b, want %08b", got, want)
	}
	if ValidFromText(f.Column(0)[2:]) != nil {
		t.Error("a column without an empty field has no validity")
	}

	// The next block, larger and of one slot, reuses the arenas: the first
	// block's strings are no longer read.
	const n = 1000
	f.Reset(n, []bool{false})
	for k := range n {
		f.Put(k, 0, strconv.Itoa(k))
	}
	f.Seal()
	col := f.Column(0)
	if len(col) != n {
		t.Fatalf("%d fields, want %d", len(col), n)
	}
	for k, v := range col {
		if v != strconv.Itoa(k) {
			t.Fatalf("field %d = %q", k, v)
		}
	}
	if copied != (f.Copied() > 0) {
		t.Errorf("copying takes %d bytes", f.Copied())
	}
	if copied {
		if b := f.arena[0]; len(b) == 0 || unsafe.StringData(col[n-1]) != &b[len(b)-3] {
			t.Error("a copied field is a view of its column's arena")
		}
	} else if len(f.arena[0]) != 0 {
		t.Error("a field put in place is not copied")
	}
}

package passrate

import "testing"

// The pass rates put the filters first once they pass clearly fewer rows
// than the range, and the range first otherwise (and before anything was
// seen).
func TestPassRatesOrder(t *testing.T) {
	var r Rates
	if r.FilterFirst() {
		t.Fatal("filters first before anything was seen")
	}
	r.Ranges(1000, 500)
	r.Filters(500, 15)
	if !r.FilterFirst() {
		t.Fatal("a 3% filter after a 50% range: filters should go first")
	}
	if r.SparseRange() {
		t.Fatal("a 50% range is not sparse")
	}
	var s Rates
	if s.SparseRange() {
		t.Fatal("a range never tested is not sparse")
	}
	s.Ranges(1000, 40)
	if !s.SparseRange() {
		t.Fatal("a 4% range is sparse")
	}
	s.Filters(40, 30)
	if s.FilterFirst() {
		t.Fatal("a 4% range before a 75% filter: the range should stay first")
	}
	// An anchor's month in a table in no order (4%) under a filter of 3%:
	// the filters pass fewer, but not a tenth as many; the range first.
	var a Rates
	a.Ranges(1000, 42)
	a.Filters(1000, 30)
	if a.FilterFirst() {
		t.Fatal("a 4% range and a 3% filter: the range should go first")
	}
	// Under a sparse range, a filter passing under a tenth as many rows
	// goes first.
	var f Rates
	f.Ranges(1000, 200)
	f.Filters(1000, 1)
	if !f.FilterFirst() {
		t.Fatal("a 20% range and a 0.1% filter: the filter should go first")
	}
}

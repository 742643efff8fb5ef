// Package passrate chooses the order of a scan's two row tests, its time
// range and its early filters, from how many rows each passed on the
// batches a worker has seen: the more selective goes first, so the other
// is tested only on its survivors (docs/performance.md).
package passrate

// Rates counts, for one worker's batches, the positions the range and
// the early filters were tested on (In) and those that passed (Out).
type Rates struct {
	RangeIn, RangeOut   int64
	FilterIn, FilterOut int64
}

// Ranges counts a range tested on in positions, out of which passed.
func (r *Rates) Ranges(in, out int) { r.RangeIn += int64(in); r.RangeOut += int64(out) }

// Filters counts the early filters tested on in positions, out of which
// passed.
func (r *Rates) Filters(in, out int) { r.FilterIn += int64(in); r.FilterOut += int64(out) }

// FilterFirst reports whether the filters have passed clearly fewer
// positions than the range (under three quarters of its rate), once both
// were seen: they then go first. Not when the range passes under a
// quarter of the rows and the filters at least a tenth as many as it:
// the range tested over every row in order, and the filters over its few
// survivors, then cost less than the filters over every row and a
// scattered read of their survivors' times (an anchor's month, 4% of a
// table in no order, under a filter passing 3%: a fifth less CPU,
// internal/kernel's BenchmarkFilterOrder).
func (r *Rates) FilterFirst() bool {
	if r.RangeIn == 0 || r.FilterIn == 0 {
		return false
	}
	if r.SparseRange() && 10*r.FilterOut*r.RangeIn >= r.RangeOut*r.FilterIn {
		return false
	}
	return 4*r.FilterOut*r.RangeIn < 3*r.RangeOut*r.FilterIn
}

// SparseFilters reports whether the filters have passed under a quarter
// of the positions they were tested on (once they were).
func (r *Rates) SparseFilters() bool {
	return r.FilterIn > 0 && 4*r.FilterOut < r.FilterIn
}

// SparseRange reports whether the range has passed under a quarter of
// the rows it was tested on (once it was): selecting before finding
// buckets then saves the day of most rows.
func (r *Rates) SparseRange() bool {
	return r.RangeIn > 0 && 4*r.RangeOut < r.RangeIn
}

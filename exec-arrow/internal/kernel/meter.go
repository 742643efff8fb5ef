package kernel

import "sync/atomic"

// Meter counts one execution's work.
type Meter struct {
	Rows    atomic.Int64
	Bytes   atomic.Int64
	Visited atomic.Int64
	// Cached and Loaded count the tables an execution found in the cache
	// and those it read from their files (docs/contract.md §16).
	Cached, Loaded atomic.Int64
}

// visit counts the rows of a base-table batch the scan reads.
func (m *Meter) visit(n int) {
	if m != nil {
		m.Visited.Add(int64(n))
	}
}

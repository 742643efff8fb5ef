// Package grow makes room in slices the way the engine's builders need
// it: a whole table's room at once (hundreds of megabytes, a background
// fill's), cleared by the allocator in chunks the scheduler can preempt
// between, and, on Linux, advised transparent huge pages before anything
// touches it, so that one fault maps 2 MiB instead of 4 KiB
// (docs/performance.md, "Time columns reused, huge pages for columns").
package grow

import "unsafe"

// To returns s with room for n more elements. A builder reserves
// room for a whole table at once (hundreds of megabytes, a background
// fill's): a new slice from make is cleared by the allocator in chunks
// the scheduler can preempt between, where slices.Grow clears the new
// tail in one call nothing can interrupt — a second, on a machine where
// first touching memory is slow, during which the collector waits for it
// and every other goroutine of the process (a serving process's HTTP
// handlers) with it.
func To[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	out := make([]T, len(s), len(s)+n)
	var zero T
	adviseHuge(unsafe.Pointer(unsafe.SliceData(out[:cap(out)])), uintptr(cap(out))*unsafe.Sizeof(zero))
	copy(out, s)
	return out
}

// HugeMin is the least memory To advises huge pages for: a few huge
// pages' worth, so that the ranges advised stay few and large.
const HugeMin = 8 << 20

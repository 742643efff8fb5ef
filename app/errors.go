package app

import "errors"

// Failures of the service, as opposed to refusals. Transports translate
// each to its channel (product.md §5) once, at the edge.
var (
	// ErrAtCapacity: no execution slot came free within the admission
	// window.
	ErrAtCapacity = errors.New("at capacity, ask again shortly")
	// ErrTimeout: the caller's reply deadline passed; the work was
	// stopped.
	ErrTimeout = errors.New("the question ran out of time; it was stopped; ask for less")
	// ErrUnavailable: a data system failed or could not be reached.
	ErrUnavailable = errors.New("the data system is unavailable")
	// ErrInternal: a defect; the detail is logged, never shown.
	ErrInternal = errors.New("internal error")
)

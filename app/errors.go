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
	// ErrStatementFailed: the data system failed a run_sql statement
	// itself (its syntax, a table or column it names); the statement's
	// author may fix it.
	ErrStatementFailed = errors.New("the database failed the statement")
	// ErrSQLNotAvailable: run_sql was called but no configured source can
	// run SQL, or several can and none is chosen.
	ErrSQLNotAvailable = errors.New("run_sql has no single data system to run on")
	// ErrInternal: a defect; the detail is logged, never shown.
	ErrInternal = errors.New("internal error")
)

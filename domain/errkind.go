package domain

import "errors"

// How a data system's error says what went wrong (docs/architecture.md §6).
// A data system returns, besides its rows:
//
//   - a *RefusalError when execution ended in a refusal (row cap, byte
//     bound, working set, deadline, a source that refused on
//     authorization grounds, a credential it cannot assume);
//   - otherwise an error wrapping exactly one of the kinds below, with
//     the detail for the operator's log (a driver's text never reaches a
//     caller).
//
// The application maps each kind to the code of a failure in exactly one
// place (app's failure table); an error wrapping no kind is something
// nobody recognised, which app reports as a defect.

// RefusalError is how a data system reports that execution ended in a
// refusal (row cap, byte bound, working set, deadline, a source that
// refused on authorization grounds). The surface turns it into a refusal
// outcome; it is never shown as a failure.
type RefusalError struct {
	Reason Reason
}

func (e *RefusalError) Error() string {
	return "refused (" + string(e.Reason.Code()) + "): " + e.Reason.Detail()
}

// ErrUnavailable is the kind of a data system that cannot be reached or
// used: down, restarting, refusing connections or sign-in, a failed TLS
// handshake, a connection that broke, a database closed or invalidated,
// or a failure it did not explain. Asking again later may succeed.
var ErrUnavailable = errors.New("the data system is unavailable")

// ErrRejected is the kind of a statement the data system rejected for what
// it says: its syntax, a table, column or function it names, a value it
// cannot convert. For run_sql the statement's author may correct it; for a
// certified question, whose statement sutura wrote, it means the data
// system no longer matches the catalogue.
var ErrRejected = errors.New("the data system rejected the statement")

// ErrZeroDenominator is returned (wrapped, naming the metric) by a data
// system when a ratio whose zero_denominator is "fails" meets a zero
// denominator: the metric's definition says the answer does not exist.
var ErrZeroDenominator = errors.New("a ratio's denominator is zero and its metric declares zero_denominator: fails")

// ErrDefect is returned (wrapped, with the detail for the operator's log)
// by a data system whose own code failed where it cannot fail by design:
// a panic recovered in a worker goroutine, which no caller's recover could
// catch. It is a defect of sutura, not of the question or the data: the
// surface reports it as an internal failure, never as an unavailable data
// system.
var ErrDefect = errors.New("a defect in sutura")

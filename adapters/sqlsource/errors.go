package sqlsource

import (
	"context"
	"errors"

	"sutura.dev/domain"
)

// Refusal is a *domain.RefusalError of code c with the detail format
// makes of args. A detail names no value and no driver text.
func Refusal(c domain.Code, format string, args ...any) error {
	return &domain.RefusalError{Reason: domain.Refuse(c, format, args...)}
}

// The refusal details every SQL source words the same way.
const (
	// DetailDeadline: the statement outlived the call's budget.
	DetailDeadline = "the question ran out of its execution time and was stopped"
	// DetailTooManyRows takes the row cap of a question.
	DetailTooManyRows = "the answer has more than %d rows; ask for a coarser grain, a shorter range or fewer dimensions"
	// DetailTooManyBytes takes the byte bound of the rendered cells.
	DetailTooManyBytes = "the answer is larger than %d bytes; ask for less"
	// DetailStatementRows takes the row cap of a run_sql statement.
	DetailStatementRows = "the result has more than %d rows; ask for less (add a LIMIT or aggregate)"
)

// Error is a failure of a data system or of the connection to it. It
// wraps exactly one error kind of package domain, Kind: ErrUnavailable
// when the data system cannot be reached or used, ErrRejected when it
// rejected the statement for what it says (a run_sql author's mistake,
// or a certified statement the data system no longer accepts). Its text
// is a fixed sentence naming the source, never the server's or the
// driver's message, which Unwrap still reaches for an operator's log.
type Error struct {
	// System is the kind of the source ("postgres"), the first word of the
	// text.
	System string
	// Source is the configured source alias.
	Source string
	// Kind is the domain error kind the failure is of.
	Kind error
	// Code is the data system's code of the failure as the adapter tells
	// codes apart (a SQLSTATE, a ClickHouse error number, a DuckDB error
	// type); empty when the data system gave none.
	Code string
	// Sentence completes the text after "<system> source <alias>: ".
	Sentence string
	// Message is the data system's own message for a statement it
	// rejected (empty otherwise). It may name tables and columns of the
	// statement: show it only to whoever wrote the statement (run_sql),
	// never to a caller of a certified question.
	Message string
	// Err is the driver's error.
	Err error
}

func (e *Error) Error() string { return e.System + " source " + e.Source + ": " + e.Sentence }

// Unwrap returns the kind and the driver's error, so that errors.Is sees
// the kind and errors.As the driver's types.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// Unavailable reports whether e says the data system cannot be reached or
// used.
func (e *Error) Unavailable() bool { return e.Kind == domain.ErrUnavailable }

// Settled is the head every adapter's classification starts with: nil, a
// refusal and an *Error are settled as they are; when ctx has ended, the
// error is deadline_exceeded (its deadline passed) or ctx's own error (it
// was cancelled), whatever the driver made of it. ok is false when the
// adapter must classify err from the driver's own types; an error it
// cannot place is then an *Error of kind domain.ErrUnavailable: the data
// system failed in a way it did not say, which the caller can only ask
// again about.
func Settled(ctx context.Context, err error) (out error, ok bool) {
	if err == nil {
		return nil, true
	}
	var re *domain.RefusalError
	var own *Error
	if errors.As(err, &re) || errors.As(err, &own) {
		return err, true
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return Refusal(domain.DeadlineExceeded, DetailDeadline), true
		}
		return ctxErr, true
	}
	return nil, false
}

package duckdb

import (
	"errors"

	"sutura.dev/domain"
)

// ErrEmptyStatement is RunSQL's error for a statement with no text.
var ErrEmptyStatement = errors.New("the statement is empty")

// ErrUnavailable is matched (errors.Is) by every *Error that says the
// database cannot be used at all: it was closed, or DuckDB invalidated it
// after a fatal error (a restart reopens it). The application maps it,
// like every other failure, to "unavailable".
var ErrUnavailable = errors.New("the database cannot be used")

// The kinds of New's errors.
const (
	kindOpen  = "open"
	kindSetUp = "set up"
)

// Error is a failure of DuckDB. Its text is a fixed sentence naming the
// source and the kind of failure (a name from a fixed list, such as
// "binder error"); it never holds DuckDB's or the driver's message, which
// Unwrap still reaches for an operator's log.
type Error struct {
	// Source is the configured source alias.
	Source string
	// Kind names the class of DuckDB error ("catalog error", "parser
	// error", ...), empty when DuckDB gave none.
	Kind string
	// Message is DuckDB's message for a statement it failed (empty
	// otherwise). It may name tables and columns and quote the statement:
	// show it only to whoever wrote the statement (run_sql), never to a
	// caller of a certified question.
	Message     string
	unavailable bool
	statement   bool
	err         error
}

func (e *Error) Error() string {
	switch {
	case e.Kind == kindOpen:
		return "duckdb source " + e.Source + ": the database file cannot be opened read-only: it is not a DuckDB database, " +
			"its storage version is one this build cannot read, or a process holds it open for writing " +
			"(or this process holds it open with other settings)"
	case e.Kind == kindSetUp:
		return "duckdb source " + e.Source + ": the database cannot be set up for reading"
	case e.unavailable:
		return "duckdb source " + e.Source + ": the database cannot be used"
	case e.Kind != "":
		return "duckdb source " + e.Source + ": the statement failed (" + e.Kind + ")"
	}
	return "duckdb source " + e.Source + ": the statement failed"
}

// Unwrap returns the driver's error.
func (e *Error) Unwrap() error { return e.err }

// Is reports whether target is ErrUnavailable and e says the database
// cannot be used.
func (e *Error) Is(target error) bool { return target == ErrUnavailable && e.unavailable }

// StatementFailed reports whether DuckDB rejected the statement itself (a
// run_sql author's mistake: a syntax error, an unknown table or column, a
// value that does not convert), as opposed to the database failing: the
// app answers the former to the author and treats the latter as the
// service failing.
func (e *Error) StatementFailed() bool { return e.statement }

// Refusal details. They name no value and no driver text.
const (
	detailDeadline      = "the question ran out of its execution time and was stopped"
	detailRefused       = "the database refused this statement: it may read only the tables of its own database file"
	detailTooManyRows   = "the answer has more than %d rows; ask for a coarser grain, a shorter range or fewer dimensions"
	detailTooManyBytes  = "the answer is larger than %d bytes; ask for less"
	detailResources     = "the database ran out of working memory for this question; ask for less"
	detailReadOnly      = "run_sql is read-only and runs one query (a SELECT): the statement tried to do something else"
	detailStatementRows = "the result has more than %d rows; ask for less (add a LIMIT or aggregate)"
)

func refusal(c domain.Code, format string, args ...any) error {
	return &domain.RefusalError{Reason: domain.Refuse(c, format, args...)}
}

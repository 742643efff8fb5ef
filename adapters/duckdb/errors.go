package duckdb

import (
	"context"
	"errors"
	"fmt"
	"strings"

	duck "github.com/duckdb/duckdb-go/v2"
	"sutura.dev/domain"
)

// ErrUnavailable is matched (errors.Is) by every *Error that says the
// database cannot be used at all: it was closed, or DuckDB invalidated it
// after a fatal error (a restart reopens it). The application maps it,
// like every other failure, to "unavailable".
var ErrUnavailable = errors.New("the database cannot be used")

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

// kinds names DuckDB's error types in Error's text; a type not listed is
// reported without a kind.
var kinds = map[duck.ErrorType]string{
	duck.ErrorTypeOutOfRange:           "out of range error",
	duck.ErrorTypeConversion:           "conversion error",
	duck.ErrorTypeDecimal:              "decimal error",
	duck.ErrorTypeMismatchType:         "type mismatch error",
	duck.ErrorTypeDivideByZero:         "division by zero",
	duck.ErrorTypeInvalidType:          "invalid type error",
	duck.ErrorTypeNotImplemented:       "not implemented error",
	duck.ErrorTypeExpression:           "expression error",
	duck.ErrorTypeCatalog:              "catalog error",
	duck.ErrorTypeParser:               "parser error",
	duck.ErrorTypeSyntax:               "syntax error",
	duck.ErrorTypeBinder:               "binder error",
	duck.ErrorTypeInvalidInput:         "invalid input error",
	duck.ErrorTypeParameterNotResolved: "parameter error",
	duck.ErrorTypeParameterNotAllowed:  "parameter error",
	duck.ErrorTypeDependency:           "dependency error",
	duck.ErrorTypeMissingExtension:     "missing extension",
	duck.ErrorTypeAutoLoad:             "missing extension",
	duck.ErrorTypeSequence:             "sequence error",
	duck.ErrorTypeConstraint:           "constraint error",
	duck.ErrorTypeIO:                   "i/o error",
	duck.ErrorTypeInternal:             "internal error",
	duck.ErrorTypeFatal:                "fatal error",
	duck.ErrorTypeTransaction:          "transaction error",
	duck.ErrorTypeExecutor:             "executor error",
}

// authorErrors are the types of a statement DuckDB rejected for what it
// says, rather than for the state of the database.
var authorErrors = map[duck.ErrorType]bool{
	duck.ErrorTypeOutOfRange: true, duck.ErrorTypeConversion: true, duck.ErrorTypeDecimal: true,
	duck.ErrorTypeMismatchType: true, duck.ErrorTypeDivideByZero: true, duck.ErrorTypeInvalidType: true,
	duck.ErrorTypeNotImplemented: true, duck.ErrorTypeExpression: true, duck.ErrorTypeCatalog: true,
	duck.ErrorTypeParser: true, duck.ErrorTypeSyntax: true, duck.ErrorTypeBinder: true,
	duck.ErrorTypeInvalidInput: true, duck.ErrorTypeParameterNotResolved: true,
	duck.ErrorTypeParameterNotAllowed: true, duck.ErrorTypeDependency: true,
	duck.ErrorTypeMissingExtension: true, duck.ErrorTypeAutoLoad: true, duck.ErrorTypeSequence: true,
}

// classify turns an error of a call on source into the call's error.
func classify(ctx context.Context, source string, err error) error {
	if err == nil {
		return nil
	}
	var re *domain.RefusalError
	var own *Error
	if errors.As(err, &re) || errors.As(err, &own) {
		return err
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return refusal(domain.DeadlineExceeded, detailDeadline)
		}
		return ctxErr
	}
	var de *duck.Error
	if !errors.As(err, &de) {
		// The driver's own errors: a closed connection or database, a value
		// it could not convert.
		return &Error{Source: source, unavailable: errors.Is(err, errClosed), err: err}
	}
	switch {
	case de.Type == duck.ErrorTypeOutOfMemory:
		return refusal(domain.ResourcesExhausted, detailResources)
	case de.Type == duck.ErrorTypePermission:
		// The sandbox: a file, a directory or an extension outside the
		// database (enable_external_access is off).
		return refusal(domain.SourceRefused, detailRefused)
	case de.Type == duck.ErrorTypeFatal || strings.Contains(de.Msg, "database has been invalidated"):
		return &Error{Source: source, Kind: kinds[duck.ErrorTypeFatal], unavailable: true, err: err}
	}
	return &Error{Source: source, Kind: kinds[de.Type], Message: de.Msg, statement: authorErrors[de.Type], err: err}
}

// errClosed is the error of a call on a closed DB.
var errClosed = errors.New("the source is closed")

// zeroDenominatorText is what the duckdb dialect of package semantic
// raises with error() for a ratio declared zero_denominator: fails whose
// denominator is zero (DuckDB itself divides by zero to null).
const zeroDenominatorText = "division by zero"

// isZeroDenominator reports whether err is the failure of a failing
// ratio's zero denominator.
func isZeroDenominator(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	var de *duck.Error
	if !errors.As(e.err, &de) {
		return false
	}
	return de.Type == duck.ErrorTypeDivideByZero ||
		de.Type == duck.ErrorTypeInvalidInput && strings.HasSuffix(strings.TrimSpace(de.Msg), ": "+zeroDenominatorText)
}

// zeroDenominator wraps domain.ErrZeroDenominator naming the plan's ratio
// metrics declared to fail on a zero denominator.
func zeroDenominator(plan *domain.Plan) error {
	var names []string
	for _, leg := range plan.Legs {
		for _, m := range leg.Metrics {
			if m.Measure.Ratio != nil && m.Measure.Ratio.ZeroDenominator == domain.Fails {
				names = append(names, m.Name)
			}
		}
	}
	return fmt.Errorf("metric %s: %w", strings.Join(names, ", "), domain.ErrZeroDenominator)
}

package wire

import (
	"context"
	"errors"

	"sutura.dev/app"
	"sutura.dev/domain"
)

// The fixed sentences of the failure channels (product.md §5). None
// carries a caller value or a data system's text.
const (
	TextAtCapacity      = "at capacity, ask again shortly"
	TextTimeout         = "the question ran out of time; it was stopped; ask for less"
	TextUnavailable     = "the data system is unavailable; the question was not answered; ask again later"
	TextInternal        = "the service failed to answer; this is not a problem with the question"
	TextStatementFailed = "the database failed the statement (its syntax, or a table, column or function it names); correct it and run it again"
	TextSQLUnavailable  = "run_sql has no single database to run on in this deployment"
	TextZeroDenominator = "a ratio's denominator is zero for this question and its metric is defined to fail then; ask for another range, grain or grouping"
)

// Failure codes, one per failure channel.
const (
	CodeAtCapacity      = "at_capacity"
	CodeTimeout         = "timeout"
	CodeUnavailable     = "unavailable"
	CodeInternal        = "internal"
	CodeZeroDenominator = "zero_denominator"
	// CodeStatementFailed: the database failed a run_sql statement itself.
	CodeStatementFailed = "statement_failed"
)

// Failure is how a failure of the service is told to a caller: a code, a
// fixed sentence and the sentinel it stands for, never the error's own
// text.
type Failure struct {
	Code string
	Text string
	// Sentinel is app.ErrAtCapacity, app.ErrTimeout, app.ErrUnavailable,
	// app.ErrInternal, app.ErrStatementFailed, app.ErrSQLNotAvailable or
	// domain.ErrZeroDenominator.
	Sentinel error
	// Report says whether the failure is worth an operator's log line (a
	// data system down, a defect); capacity, time and the definition of a
	// ratio are not.
	Report bool
}

// FailureOf classifies an error of app.Surface.Answer or
// app.Surface.RunSQL. It returns false
// when the caller went away (context.Canceled): nobody waits for an
// answer, and no failure is told.
func FailureOf(err error) (Failure, bool) {
	switch {
	case errors.Is(err, app.ErrAtCapacity):
		return Failure{CodeAtCapacity, TextAtCapacity, app.ErrAtCapacity, false}, true
	case errors.Is(err, app.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return Failure{CodeTimeout, TextTimeout, app.ErrTimeout, false}, true
	case errors.Is(err, context.Canceled):
		return Failure{}, false
	case errors.Is(err, domain.ErrZeroDenominator):
		return Failure{CodeZeroDenominator, TextZeroDenominator, domain.ErrZeroDenominator, false}, true
	case errors.Is(err, app.ErrStatementFailed):
		return Failure{CodeStatementFailed, TextStatementFailed, app.ErrStatementFailed, false}, true
	case errors.Is(err, app.ErrSQLNotAvailable):
		return Failure{CodeUnavailable, TextSQLUnavailable, app.ErrSQLNotAvailable, true}, true
	case errors.Is(err, app.ErrUnavailable):
		return Failure{CodeUnavailable, TextUnavailable, app.ErrUnavailable, true}, true
	}
	return Failure{CodeInternal, TextInternal, app.ErrInternal, true}, true
}

package app

import "errors"

// Failures of the service, as opposed to refusals. Each is the sentinel of
// one code of the failure table (failure.go); a *Failure unwraps to it.
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
	// ErrSQLNotAvailable: run_sql is enabled but no shared-service-user
	// source can run SQL, or several can and none is chosen. New refuses
	// such a configuration.
	ErrSQLNotAvailable = errors.New("run_sql has no single data system to run on")
	// ErrNotAQuestion: the arguments are not a call of the tool.
	ErrNotAQuestion = errors.New("the arguments are not a question")
	// ErrToolNotEnabled: the deployment does not offer the tool.
	ErrToolNotEnabled = errors.New("the tool is not enabled on this deployment")
	// ErrNotGranted: the caller's scopes do not grant the tool.
	ErrNotGranted = errors.New("the tool is not granted to this caller")
	// ErrInternal: a defect; the detail is logged, never shown.
	ErrInternal = errors.New("internal error")
)

package inproc

import (
	"errors"

	"sutura.dev/app"
	"sutura.dev/domain"
)

// UnknownToolError: the connection serves no tool of that name. Tool is
// the name asked for when it is an identifier, and a placeholder
// otherwise: a name is caller text too.
type UnknownToolError struct {
	Tool string
}

func (e *UnknownToolError) Error() string { return "unknown tool " + e.Tool }

// NotGrantedError: the caller's scopes do not grant the tool; Scope is the
// scope that would.
type NotGrantedError struct {
	Tool  domain.Capability
	Scope domain.Scope
}

func (e *NotGrantedError) Error() string {
	return "tool " + string(e.Tool) + " is not granted to this caller; the scope " + string(e.Scope) + " grants it"
}

// ArgumentError: the arguments are not a call of the tool (an unknown
// field, a wrong type, a bad date, value or identifier). It names the
// field and never holds a value the caller sent, so a kernel may show it
// to the model that made the call.
type ArgumentError struct {
	Tool domain.Capability
	// Field is the path of the field at fault ("range.start",
	// "filters[0].value"); empty when the arguments as a whole are.
	Field   string
	failure *app.Failure
}

// Error is the sentence the MCP surface returns for the same arguments.
func (e *ArgumentError) Error() string { return e.failure.Detail }

// Unwrap returns the *domain.FieldError, which holds no caller value, or
// nil when the arguments could not be read at all.
func (e *ArgumentError) Unwrap() error {
	var fe *domain.FieldError
	if errors.As(e.failure, &fe) {
		return fe
	}
	return nil
}

// FailureError: the service could not answer (docs/contract.md §5: at capacity,
// out of time, a data system down, a defect, or a ratio defined to fail).
// Its text is the fixed sentence of the MCP surface; the underlying error,
// which may hold a driver's text, is never exposed.
type FailureError struct {
	// Code is the failure's code in the surface's one table
	// (app.FailureCode): at_capacity, timeout, unavailable, internal,
	// zero_denominator or statement_failed.
	Code string
	text string
	code app.FailureCode
}

func newFailureError(f *app.Failure) *FailureError {
	return &FailureError{Code: string(f.Code), text: f.Detail, code: f.Code}
}

func (e *FailureError) Error() string { return e.text }

// Unwrap returns the sentinel of the code: app.ErrAtCapacity,
// app.ErrTimeout, app.ErrUnavailable, app.ErrInternal,
// app.ErrStatementFailed or domain.ErrZeroDenominator. The failure's
// cause, which may hold a driver's text, is never exposed.
func (e *FailureError) Unwrap() error { return e.code.Sentinel() }

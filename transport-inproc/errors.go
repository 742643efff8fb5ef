package inproc

import (
	"errors"

	"sutura.dev/app/wire"
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
	Field string
	err   error
}

func newArgumentError(tool domain.Capability, err error) *ArgumentError {
	e := &ArgumentError{Tool: tool, err: err}
	var fe *domain.FieldError
	if errors.As(err, &fe) {
		e.Field = fe.Field
	}
	return e
}

// Error is the sentence the MCP surface returns for the same arguments.
func (e *ArgumentError) Error() string { return wire.NotAQuestion(e.err) }

// Unwrap returns the *domain.FieldError, which holds no caller value.
func (e *ArgumentError) Unwrap() error {
	var fe *domain.FieldError
	if errors.As(e.err, &fe) {
		return fe
	}
	return nil
}

// FailureError: the service could not answer (product.md §5: at capacity,
// out of time, a data system down, a defect, or a ratio defined to fail).
// Its text is the fixed sentence of the MCP surface; the underlying error,
// which may hold a driver's text, is never exposed.
type FailureError struct {
	// Code is wire.CodeAtCapacity, CodeTimeout, CodeUnavailable,
	// CodeInternal or CodeZeroDenominator.
	Code     string
	text     string
	sentinel error
}

func newFailureError(f wire.Failure) *FailureError {
	return &FailureError{Code: f.Code, text: f.Text, sentinel: f.Sentinel}
}

func (e *FailureError) Error() string { return e.text }

// Unwrap returns the sentinel: app.ErrAtCapacity, app.ErrTimeout,
// app.ErrUnavailable, app.ErrInternal or domain.ErrZeroDenominator.
func (e *FailureError) Unwrap() error { return e.sentinel }

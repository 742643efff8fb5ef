//go:build cgo

package duckdb

import (
	"context"
	"errors"
	"strings"

	duck "github.com/duckdb/duckdb-go/v2"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

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
	duck.ErrorTypeInvalidConfiguration: "invalid configuration error",
	duck.ErrorTypeSettings:             "settings error",
	duck.ErrorTypePlanner:              "planner error",
	duck.ErrorTypeOptimizer:            "optimizer error",
	duck.ErrorTypeObjectSize:           "object size error",
	duck.ErrorTypeConnection:           "connection error",
	duck.ErrorTypeSerialization:        "serialization error",
}

// systemErrors are the types of a failure of the database rather than of
// the statement: its file cannot be read, its connection or a transaction
// failed under it. Every other type DuckDB reports (a binder, catalog or
// conversion error, and the rarer planner, settings, configuration or
// internal ones a statement provokes, such as which_secret or
// duckdb_secrets in the sandbox) is the statement's failure, which asking
// again would only repeat; a fatal error is handled apart.
var systemErrors = map[duck.ErrorType]bool{
	duck.ErrorTypeIO: true, duck.ErrorTypeConnection: true, duck.ErrorTypeNetwork: true,
	duck.ErrorTypeHTTP: true, duck.ErrorTypeTransaction: true, duck.ErrorTypeSerialization: true,
}

// newError is a failure of DuckDB of kind, with DuckDB's class of error
// code (or "") and its message.
func newError(source string, kind error, code, message string, err error) *Error {
	sentence := "the statement failed"
	switch {
	case kind == domain.ErrUnavailable && code == kinds[duck.ErrorTypeFatal], code == "" && errors.Is(err, errClosed):
		sentence = "the database cannot be used"
	case code != "":
		sentence += " (" + code + ")"
	}
	return &Error{System: "duckdb", Source: source, Kind: kind, Code: code, Message: message, Sentence: sentence, Err: err}
}

// openError is New's failure to open the database file read-only.
func openError(source string, err error) *Error {
	return &Error{System: "duckdb", Source: source, Kind: domain.ErrUnavailable, Err: err,
		Sentence: "the database file cannot be opened read-only: it is not a DuckDB database, " +
			"its storage version is one this build cannot read, or a process holds it open for writing " +
			"(or this process holds it open with other settings)"}
}

// setUpError is New's failure to set the opened database up.
func setUpError(source string, err error) *Error {
	return &Error{System: "duckdb", Source: source, Kind: domain.ErrUnavailable, Err: err,
		Sentence: "the database cannot be set up for reading"}
}

// Refusal details. They name no value and no driver text.
// classify turns an error of a call on source into the call's error.
func classify(ctx context.Context, source string, err error) error {
	if out, ok := sqlsource.Settled(ctx, err); ok {
		return out
	}
	var de *duck.Error
	if !errors.As(err, &de) {
		// The driver's own errors: a closed connection or database, a value
		// it could not convert.
		return newError(source, domain.ErrUnavailable, "", "", err)
	}
	switch {
	case de.Type == duck.ErrorTypeOutOfMemory:
		return refusal(domain.ResourcesExhausted, detailResources)
	case de.Type == duck.ErrorTypePermission:
		// The sandbox: a file, a directory or an extension outside the
		// database (enable_external_access is off).
		return refusal(domain.SourceRefused, detailRefused)
	case de.Type == duck.ErrorTypeFatal || strings.Contains(de.Msg, "database has been invalidated"):
		return newError(source, domain.ErrUnavailable, kinds[duck.ErrorTypeFatal], "", err)
	}
	if systemErrors[de.Type] {
		return newError(source, domain.ErrUnavailable, kinds[de.Type], de.Msg, err)
	}
	return newError(source, domain.ErrRejected, kinds[de.Type], de.Msg, err)
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
	if !errors.As(e.Err, &de) {
		return false
	}
	return de.Type == duck.ErrorTypeDivideByZero ||
		de.Type == duck.ErrorTypeInvalidInput && strings.HasSuffix(strings.TrimSpace(de.Msg), ": "+zeroDenominatorText)
}

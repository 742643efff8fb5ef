//go:build cgo

package duckdb

import (
	"context"
	"errors"
	"strings"

	duck "github.com/duckdb/duckdb-go/v2"
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

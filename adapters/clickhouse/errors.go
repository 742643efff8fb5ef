package clickhouse

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// Error is a failure of the server or of the connection to it (see
// sqlsource.Error). Its kind is domain.ErrUnavailable when the server
// could not be reached or the connection to it broke (down, restarting,
// refusing connections, a failed TLS handshake or sign-in) or failed in a
// way it did not explain, and domain.ErrRejected when the server failed
// the statement; Code is then ClickHouse's error code. Its text is a
// fixed sentence naming the source and the code; Message is the server's
// message for a statement it failed (for run_sql's author only).
type Error = sqlsource.Error

// unreachableError is the failure to reach the server, or a connection
// that broke; code is ClickHouse's when the server said one.
func unreachableError(source string, code int32, err error) *Error {
	e := &Error{System: "clickhouse", Source: source, Kind: domain.ErrUnavailable, Sentence: "the server cannot be reached", Err: err}
	if code != 0 {
		e.Code = strconv.Itoa(int(code))
	}
	return e
}

// statementError is a statement the server failed with code and message.
func statementError(source string, code int32, message string, err error) *Error {
	c := strconv.Itoa(int(code))
	return &Error{System: "clickhouse", Source: source, Kind: domain.ErrRejected, Code: c, Message: message,
		Sentence: "the statement failed (code " + c + ")", Err: err}
}

// unexplained is a failure the adapter cannot place: the server failed in
// a way it did not say.
func unexplained(source string, err error) *Error {
	return &Error{System: "clickhouse", Source: source, Kind: domain.ErrUnavailable, Sentence: "the statement failed", Err: err}
}

// undecodableError is a statement whose result holds a value of a type
// the adapter cannot render (run_sql only: a certified statement's
// columns are checked at start).
func undecodableError(source string, err error) *Error {
	return &Error{System: "clickhouse", Source: source, Kind: domain.ErrRejected, Err: err,
		Message:  err.Error() + "; cast it to String (toString) or select its elements",
		Sentence: "the statement returned a value of a type that cannot be read"}
}

// hasCode reports whether err is an *Error with ClickHouse's code.
func hasCode(err error, code int32) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == strconv.Itoa(int(code))
}

// ClickHouse error codes the adapter tells apart (ErrorCodes.cpp).
const (
	codeTimeoutExceeded      = 159
	codeReadonly             = 164
	codeUnknownUser          = 192
	codeWrongPassword        = 193
	codeRequiredPassword     = 194
	codeIPNotAllowed         = 195
	codeTooManyQueries       = 202
	codeCannotAllocateMemory = 173
	codeMemoryLimitExceeded  = 241
	codeDatabaseAccessDenied = 291
	codeQueryWasCancelled    = 394
	codeThrowIf              = 395
	codeAccessDenied         = 497
	codeAuthenticationFailed = 516
)

// Refusal details. They name no value and no driver text.
// The details every SQL source shares are sqlsource's.
const (
	detailRefused     = "the server refused to read the data of this question for this caller"
	detailUserRefused = "the ClickHouse user of this caller at source %s cannot be assumed"
	detailResources   = "the server ran out of memory for this question; ask for less"
	detailReadOnly    = "run_sql is read-only: the statement tried to change data or settings"
	detailOneQuery    = "run_sql runs one query: a statement whose first word is SELECT, WITH, SHOW, DESCRIBE, DESC or EXISTS (KILL, SYSTEM, SET and writes are refused)"
)

// refusal is a *domain.RefusalError of code c.
var refusal = sqlsource.Refusal

// classify turns an error of a call on source into Execute's error.
// impersonating says the statement ran under EXECUTE AS, where an unknown
// user or a missing IMPERSONATE grant means the caller's user cannot be
// assumed.
func classify(ctx context.Context, source string, impersonating bool, err error) error {
	if out, ok := sqlsource.Settled(ctx, err); ok {
		return out
	}
	var ex *ch.Exception
	if errors.As(err, &ex) {
		return classifyServer(source, impersonating, ex)
	}
	if errors.Is(err, errUndecodable) {
		return undecodableError(source, err)
	}
	if unreachable(err) {
		return unreachableError(source, 0, err)
	}
	return unexplained(source, err)
}

func classifyServer(source string, impersonating bool, ex *ch.Exception) error {
	switch code := ex.Code; {
	case impersonating && (code == codeUnknownUser ||
		code == codeAccessDenied && strings.Contains(ex.Message, "IMPERSONATE")):
		// EXECUTE AS names a user that does not exist, or one the service
		// user may not impersonate.
		return refusal(domain.CredentialUnavailable, detailUserRefused, source)
	case code == codeTimeoutExceeded:
		// max_execution_time, set to the context's remaining budget, fired.
		return refusal(domain.DeadlineExceeded, sqlsource.DetailDeadline)
	case code == codeAccessDenied || code == codeDatabaseAccessDenied:
		return refusal(domain.SourceRefused, detailRefused)
	case code == codeMemoryLimitExceeded || code == codeCannotAllocateMemory:
		return refusal(domain.ResourcesExhausted, detailResources)
	case code == codeUnknownUser || code == codeWrongPassword || code == codeRequiredPassword ||
		code == codeIPNotAllowed || code == codeAuthenticationFailed || code == codeTooManyQueries:
		// The service user cannot sign in, or the server takes no more
		// queries: the server is not there for us.
		return unreachableError(source, code, ex)
	}
	return statementError(source, ex.Code, ex.Message, ex)
}

// unreachable reports whether err (not a server exception) says the
// connection could not be made or broke.
func unreachable(err error) bool {
	var netErr net.Error
	var opErr *net.OpError
	var certErr *tls.CertificateVerificationError
	var alertErr tls.AlertError
	var recordErr tls.RecordHeaderError
	var authorityErr x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	switch {
	case errors.As(err, &netErr), errors.As(err, &opErr):
		return true
	case errors.As(err, &certErr), errors.As(err, &alertErr), errors.As(err, &recordErr),
		errors.As(err, &authorityErr), errors.As(err, &hostErr):
		// The TLS handshake failed: a server name or certificate authority
		// that does not match, or a server that wants a client certificate.
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, ch.ErrAcquireConnTimeout), errors.Is(err, ch.ErrConnectionClosed),
		errors.Is(err, ch.ErrUnsupportedServerRevision):
		return true
	}
	// The driver reports a read on a connection the server closed with
	// errors that wrap none of the above.
	msg := err.Error()
	return strings.Contains(msg, "EOF") || strings.Contains(msg, "connection reset") ||
		strings.Contains(msg, "broken pipe") || strings.Contains(msg, "use of closed network connection")
}

// retryable reports whether a failed call may be run again on another
// connection: the connection broke, and no server error or refusal came
// back. Every statement only reads, so running it again changes nothing.
func retryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Unavailable() && e.Code == ""
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

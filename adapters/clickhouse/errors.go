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
	"sutura.dev/domain"
)

// ErrUnreachable is matched (errors.Is) by every *Error that says the
// server could not be reached or the connection to it broke: down,
// restarting, refusing connections, a failed TLS handshake or sign-in.
// The application maps it, like every other failure, to "unavailable".
var ErrUnreachable = errors.New("the server cannot be reached")

// Error is a failure of the server or of the connection to it. Its text is
// a fixed sentence naming the source and, for a statement the server
// failed, ClickHouse's error code; it never holds the server's or the
// driver's message, which Unwrap still reaches for an operator's log.
type Error struct {
	// Source is the configured source alias.
	Source string
	// Code is ClickHouse's error code for a statement the server failed;
	// zero when the server was not reached or did not say.
	Code int32
	// Message is the server's message for a statement it failed (empty
	// otherwise). It may name tables and columns of the statement: show
	// it only to whoever wrote the statement (run_sql), never to a caller
	// of a certified question.
	Message     string
	unreachable bool
	err         error
}

func (e *Error) Error() string {
	if e.unreachable {
		return "clickhouse source " + e.Source + ": the server cannot be reached"
	}
	if e.Code != 0 {
		return "clickhouse source " + e.Source + ": the statement failed (code " + strconv.Itoa(int(e.Code)) + ")"
	}
	return "clickhouse source " + e.Source + ": the statement failed"
}

// Unwrap returns the driver's error.
func (e *Error) Unwrap() error { return e.err }

// Is reports whether target is ErrUnreachable and e is a failure to reach
// the server.
func (e *Error) Is(target error) bool { return target == ErrUnreachable && e.unreachable }

// StatementFailed reports whether the server rejected the statement itself
// (a run_sql author's mistake), as opposed to the server being
// unreachable or failing: the app answers the former to the author and
// treats the latter as the service failing.
func (e *Error) StatementFailed() bool { return e.Code != 0 && !e.unreachable }

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
const (
	detailDeadline      = "the question ran out of its execution time and was stopped"
	detailRefused       = "the server refused to read the data of this question for this caller"
	detailNoUser        = "there is no ClickHouse user for this caller at source %s"
	detailUserRefused   = "the ClickHouse user of this caller at source %s cannot be assumed"
	detailTooManyRows   = "the answer has more than %d rows; ask for a coarser grain, a shorter range or fewer dimensions"
	detailTooManyBytes  = "the answer is larger than %d bytes; ask for less"
	detailResources     = "the server ran out of memory for this question; ask for less"
	detailReadOnly      = "run_sql is read-only: the statement tried to change data or settings"
	detailStatementRows = "the result has more than %d rows; ask for less (add a LIMIT or aggregate)"
)

func refusal(c domain.Code, format string, args ...any) error {
	return &domain.RefusalError{Reason: domain.Refuse(c, format, args...)}
}

// classify turns an error of a call on source into Execute's error.
// impersonating says the statement ran under EXECUTE AS, where an unknown
// user or a missing IMPERSONATE grant means the caller's user cannot be
// assumed.
func classify(ctx context.Context, source string, impersonating bool, err error) error {
	if err == nil {
		return nil
	}
	var re *domain.RefusalError
	if errors.As(err, &re) {
		return err
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return refusal(domain.DeadlineExceeded, detailDeadline)
		}
		return ctxErr
	}
	var ex *ch.Exception
	if errors.As(err, &ex) {
		return classifyServer(source, impersonating, ex)
	}
	if unreachable(err) {
		return &Error{Source: source, unreachable: true, err: err}
	}
	return &Error{Source: source, err: err}
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
		return refusal(domain.DeadlineExceeded, detailDeadline)
	case code == codeAccessDenied || code == codeDatabaseAccessDenied:
		return refusal(domain.SourceRefused, detailRefused)
	case code == codeMemoryLimitExceeded || code == codeCannotAllocateMemory:
		return refusal(domain.ResourcesExhausted, detailResources)
	case code == codeUnknownUser || code == codeWrongPassword || code == codeRequiredPassword ||
		code == codeIPNotAllowed || code == codeAuthenticationFailed || code == codeTooManyQueries:
		// The service user cannot sign in, or the server takes no more
		// queries: the server is not there for us.
		return &Error{Source: source, Code: code, unreachable: true, err: ex}
	}
	return &Error{Source: source, Code: ex.Code, Message: ex.Message, err: ex}
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
	return errors.As(err, &e) && e.unreachable && e.Code == 0
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

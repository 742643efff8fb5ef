package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"sutura.dev/domain"
)

// ErrUnreachable is matched (errors.Is) by every *Error that says the
// database could not be reached or the connection to it broke: down,
// restarting, refusing connections, a failed TLS handshake or login. The
// application maps it, like every other failure, to "unavailable".
var ErrUnreachable = errors.New("the database cannot be reached")

// Error is a failure of the database or of the connection to it. Its text
// is a fixed sentence naming the source and, for a statement the server
// failed, the SQLSTATE; it never holds the server's or the driver's
// message, which Unwrap still reaches for an operator's log.
type Error struct {
	// Source is the configured source alias.
	Source string
	// SQLState is the server's error code, empty when the database was
	// not reached.
	SQLState string
	// Message is the server's primary message for a statement it failed
	// (empty otherwise). It may name tables and columns of the statement:
	// show it only to whoever wrote the statement (run_sql), never to a
	// caller of a certified question.
	Message     string
	unreachable bool
	err         error
}

func (e *Error) Error() string {
	if e.unreachable {
		return "postgres source " + e.Source + ": the database cannot be reached"
	}
	if e.SQLState != "" {
		return "postgres source " + e.Source + ": the statement failed (SQLSTATE " + e.SQLState + ")"
	}
	return "postgres source " + e.Source + ": the statement failed"
}

// Unwrap returns the driver's error.
func (e *Error) Unwrap() error { return e.err }

// Is reports whether target is ErrUnreachable and e is a failure to reach
// the database.
func (e *Error) Is(target error) bool { return target == ErrUnreachable && e.unreachable }

// Refusal details. They name no value and no driver text.
const (
	detailDeadline      = "the question ran out of its execution time and was stopped"
	detailRefused       = "the database refused to read the data of this question for this caller"
	detailNoRole        = "there is no database role for this caller at source %s"
	detailRoleRefused   = "the database role of this caller at source %s cannot be assumed"
	detailTooManyRows   = "the answer has more than %d rows; ask for a coarser grain, a shorter range or fewer dimensions"
	detailTooManyBytes  = "the answer is larger than %d bytes; ask for less"
	detailResources     = "the database ran out of working memory or temporary space for this question; ask for less"
	detailReadOnly      = "run_sql is read-only: the statement tried to change data or the session"
	detailStatementRows = "the result has more than %d rows; ask for less (add a LIMIT or aggregate)"
)

func refusal(c domain.Code, format string, args ...any) error {
	return &domain.RefusalError{Reason: domain.Refuse(c, format, args...)}
}

// step is the part of a call an error came from; the same SQLSTATE means
// different things in different steps.
type step int

const (
	stepSetup     step = iota // a connection, BEGIN, the timeout, SET LOCAL ROLE
	stepStatement             // the question's statement or run_sql's
)

// classify turns an error of a call on source into Execute's error.
func classify(ctx context.Context, source string, s step, err error) error {
	if err == nil {
		return nil
	}
	var re *domain.RefusalError
	if errors.As(err, &re) {
		return err
	}
	var wide *pgproto3.ExceededMaxBodyLenErr
	if errors.As(err, &wide) {
		// A row longer than maxMessageBytes: refused from its length, and
		// the connection, mid-message, is closed.
		return refusal(domain.ResultTooLarge, detailTooManyBytes, domain.MaxResultBytes)
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return refusal(domain.DeadlineExceeded, detailDeadline)
		}
		return ctxErr
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return classifyServer(source, s, pgErr)
	}
	if unreachable(err) {
		return &Error{Source: source, unreachable: true, err: err}
	}
	return &Error{Source: source, err: err}
}

func classifyServer(source string, s step, pgErr *pgconn.PgError) error {
	code := pgErr.Code
	switch {
	case s == stepSetup && (code == "42501" || code == "22023" || code == "42704"):
		// Only SET LOCAL ROLE fails so in the setup: the service user is not
		// a member of the role (42501), or there is no such role.
		return refusal(domain.CredentialUnavailable, detailRoleRefused, source)
	case code == "57014":
		// query_canceled: the statement timeout, set to the context's
		// remaining budget, fired (a cancellation by ctx is handled above).
		return refusal(domain.DeadlineExceeded, detailDeadline)
	case code == "42501":
		// insufficient_privilege, including "permission denied for table"
		// and the row-level-security refusals.
		return refusal(domain.SourceRefused, detailRefused)
	case code == "53200" || code == "53400":
		// out_of_memory; configuration_limit_exceeded (temp_file_limit).
		return refusal(domain.ResourcesExhausted, detailResources)
	case strings.HasPrefix(code, "08"), strings.HasPrefix(code, "57P"), strings.HasPrefix(code, "28"), code == "53300":
		// connection_exception, admin/crash shutdown or cannot connect now,
		// invalid authorization (a wrong service password), too many
		// connections: the database is not there for us.
		return &Error{Source: source, SQLState: code, unreachable: true, err: pgErr}
	}
	return &Error{Source: source, SQLState: code, Message: pgErr.Message, err: pgErr}
}

// unreachable reports whether err (not a server error) says the
// connection could not be made or broke.
func unreachable(err error) bool {
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	var opErr *net.OpError
	switch {
	case errors.As(err, &connectErr), errors.As(err, &netErr), errors.As(err, &opErr):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return true
	}
	// pgconn reports a connection that broke mid-statement or was already
	// closed with errors that wrap none of the above.
	msg := err.Error()
	return strings.Contains(msg, "conn closed") || strings.Contains(msg, "unexpected EOF") ||
		pgconn.Timeout(err)
}

// retryable reports whether a failed call may be run again on another
// connection: the connection broke, and no server error or refusal came
// back. Every call is a read-only transaction, so running it again cannot
// change anything.
func retryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.unreachable && e.SQLState != "28P01" && e.SQLState != "28000"
}

// StatementFailed reports whether the server rejected the statement itself
// (a run_sql author's mistake), as opposed to the database being
// unreachable or failing: the app answers the former to the author and
// treats the latter as the service failing.
func (e *Error) StatementFailed() bool { return e.SQLState != "" && !e.unreachable }

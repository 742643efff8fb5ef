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
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// Error is a failure of the database or of the connection to it (see
// sqlsource.Error). Its kind is domain.ErrUnavailable when the database
// could not be reached or the connection to it broke (down, restarting,
// refusing connections, a failed TLS handshake or login) or failed in a
// way it did not explain, and domain.ErrRejected when the server failed
// the statement; Code is then the SQLSTATE. Its text is a fixed sentence
// naming the source and the SQLSTATE; Message is the server's primary
// message for a statement it failed (for run_sql's author only).
type Error = sqlsource.Error

// unreachableError is the failure to reach the database, or a connection
// that broke; code is the SQLSTATE when the server said one.
func unreachableError(source, code string, err error) *Error {
	return &Error{System: "postgres", Source: source, Kind: domain.ErrUnavailable, Code: code,
		Sentence: "the database cannot be reached", Err: err}
}

// signInError is the database refusing the service user's sign-in: a
// wrong password, a user it does not know, or a pg_hba.conf rule. It is
// still the source being unavailable to a caller, but the operator's
// sentence says the sign-in was refused, not that the server is down.
func signInError(source, code string, err error) *Error {
	return &Error{System: "postgres", Source: source, Kind: domain.ErrUnavailable, Code: code,
		Sentence: "the database refused the sign-in of the service user (SQLSTATE " + code +
			"): check sources." + source + ".user and its password", Err: err}
}

// statementError is a statement the server failed with SQLSTATE code
// and message.
func statementError(source, code, message string, err error) *Error {
	return &Error{System: "postgres", Source: source, Kind: domain.ErrRejected, Code: code, Message: message,
		Sentence: "the statement failed (SQLSTATE " + code + ")", Err: err}
}

// unexplained is a failure of the driver the adapter cannot place: the
// data system failed in a way it did not say.
func unexplained(source string, err error) *Error {
	return &Error{System: "postgres", Source: source, Kind: domain.ErrUnavailable, Sentence: "the statement failed", Err: err}
}

// Refusal details. They name no value and no driver text.
// The details every SQL source shares are sqlsource's.
const (
	detailRefused     = "the database refused to read the data of this question for this caller"
	detailRoleRefused = "the database role of this caller at source %s cannot be assumed"
	detailResources   = "the database ran out of working memory or temporary space for this question; ask for less"
	detailReadOnly    = "run_sql is read-only: the statement tried to change data or the session"
	detailOneQuery    = "run_sql runs exactly one read-only query (docs/operations.md, \"The role of a run_sql source\"): %s"
)

// refusal is a *domain.RefusalError of code c.
var refusal = sqlsource.Refusal

// step is the part of a call an error came from; the same SQLSTATE means
// different things in different steps.
type step int

const (
	stepSetup     step = iota // a connection, BEGIN, the timeout, SET LOCAL ROLE
	stepStatement             // the question's statement or run_sql's
)

// classify turns an error of a call on source into Execute's error.
func classify(ctx context.Context, source string, s step, err error) error {
	var wide *pgproto3.ExceededMaxBodyLenErr
	if err != nil && errors.As(err, &wide) {
		// A row longer than maxMessageBytes: refused from its length, and
		// the connection, mid-message, is closed.
		return refusal(domain.ResultTooLarge, sqlsource.DetailTooManyBytes, domain.MaxResultBytes)
	}
	if out, ok := sqlsource.Settled(ctx, err); ok {
		return out
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return classifyServer(source, s, pgErr)
	}
	if unreachable(err) {
		return unreachableError(source, "", err)
	}
	return unexplained(source, err)
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
		return refusal(domain.DeadlineExceeded, sqlsource.DetailDeadline)
	case code == "42501":
		// insufficient_privilege, including "permission denied for table"
		// and the row-level-security refusals.
		return refusal(domain.SourceRefused, detailRefused)
	case code == "53200" || code == "53400":
		// out_of_memory; configuration_limit_exceeded (temp_file_limit).
		return refusal(domain.ResourcesExhausted, detailResources)
	case strings.HasPrefix(code, "28"):
		// invalid_authorization_specification, invalid_password: the
		// service user's sign-in (user, password, pg_hba.conf) was refused.
		return signInError(source, code, pgErr)
	case strings.HasPrefix(code, "08"), strings.HasPrefix(code, "57P"), code == "53300":
		// connection_exception, admin/crash shutdown or cannot connect now,
		// too many connections: the database is not there for us.
		return unreachableError(source, code, pgErr)
	}
	return statementError(source, code, pgErr.Message, pgErr)
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
	return errors.As(err, &e) && e.Unavailable() && e.Code != "28P01" && e.Code != "28000"
}

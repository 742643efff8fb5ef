package oracle

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strconv"

	"github.com/sijms/go-ora/v2/network"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// Error is a failure of the database or of the connection to it (see
// sqlsource.Error). Its kind is domain.ErrUnavailable when the database
// could not be reached, refused the sign-in or the connection broke, and
// domain.ErrRejected when the server failed the statement; Code is then
// the ORA- number ("ORA-00942"). Its text is a fixed sentence naming the
// source and the number; Message is the server's message for a statement
// it failed (for run_sql's author only).
type Error = sqlsource.Error

// Refusal details. They name no value and no driver text.
const (
	detailRefused   = "the database refused to read the data of this question for this caller"
	detailProxy     = "the database user of this caller at source %s cannot be connected through the service user"
	detailResources = "the database ran out of memory or temporary space for this question; ask for less"
	detailReadOnly  = "run_sql is read-only: the statement tried to change data"
	detailOneQuery  = "run_sql on Oracle runs exactly one SELECT (docs/operations.md, \"BigQuery and Oracle sources\"): %s"
)

// errDivisionByZero is ORA-01476, which the caller turns into the plan's
// zero-denominator error.
var errDivisionByZero = errors.New("division by zero")

// ORA- numbers the classification tells apart.
const (
	oraCancelled       = 1013  // user requested cancel of current operation
	oraNoPrivilege     = 1031  // insufficient privileges
	oraReadOnly        = 1456  // may not perform insert/delete/update inside a READ ONLY transaction
	oraDivisionByZero  = 1476  // divisor is equal to zero
	oraBadLogin        = 1017  // invalid username/password; logon denied
	oraNoSession       = 1045  // user lacks CREATE SESSION privilege
	oraLocked          = 28000 // the account is locked
	oraExpired         = 28001 // the password has expired
	oraProxyNotAllowed = 28150 // proxy not authorized to connect as client
	oraTempSpace       = 1652  // unable to extend temp segment
	oraProcessMemory   = 4030  // out of process memory
	oraSharedMemory    = 4031  // unable to allocate shared memory
)

// unreachableCodes are the ORA- numbers of a server that is not there for
// the adapter: the listener, the instance, or a connection that broke.
var unreachableCodes = map[int]bool{
	1033: true, 1034: true, 1089: true, 1090: true, 1092: true, // starting, not available, shutting down
	3113: true, 3114: true, 3135: true, // end-of-file on the channel, not connected, connection lost
	12170: true, 12514: true, 12516: true, 12518: true, 12519: true, 12520: true, 12521: true,
	12528: true, 12537: true, 12541: true, 12543: true, 12547: true, 12560: true,
}

// oraCode is the "ORA-nnnnn" spelling of code.
func oraCode(code int) string {
	s := strconv.Itoa(code)
	for len(s) < 5 {
		s = "0" + s
	}
	return "ORA-" + s
}

// classify turns an error of a call on source into Execute's error;
// proxied reports whether the call ran through a proxy connection.
func classify(ctx context.Context, source string, proxied bool, err error) error {
	if out, ok := sqlsource.Settled(ctx, err); ok {
		return out
	}
	var oe *network.OracleError
	if errors.As(err, &oe) {
		return classifyServer(source, proxied, oe)
	}
	if unreachable(err) {
		return &Error{System: "oracle", Source: source, Kind: domain.ErrUnavailable, Sentence: "the database cannot be reached", Err: err}
	}
	return &Error{System: "oracle", Source: source, Kind: domain.ErrUnavailable, Sentence: "the statement failed", Err: err}
}

func classifyServer(source string, proxied bool, oe *network.OracleError) error {
	code := oe.ErrCode
	switch {
	case code == oraCancelled:
		// The break go-ora sends when a context ends; a context still alive
		// means the server's own limit (a resource profile) stopped it.
		return sqlsource.Refusal(domain.DeadlineExceeded, sqlsource.DetailDeadline)
	case code == oraProxyNotAllowed, proxied && (code == oraNoSession || code == oraLocked || code == oraBadLogin):
		return sqlsource.Refusal(domain.CredentialUnavailable, detailProxy, source)
	case code == oraNoPrivilege:
		return sqlsource.Refusal(domain.SourceRefused, detailRefused)
	case code == oraReadOnly:
		return sqlsource.Refusal(domain.SourceRefused, detailReadOnly)
	case code == oraDivisionByZero:
		return errDivisionByZero
	case code == oraTempSpace || code == oraProcessMemory || code == oraSharedMemory:
		return sqlsource.Refusal(domain.ResourcesExhausted, detailResources)
	case code == oraBadLogin || code == oraNoSession || code == oraLocked || code == oraExpired:
		return &Error{System: "oracle", Source: source, Kind: domain.ErrUnavailable, Code: oraCode(code),
			Sentence: "the database refused the sign-in of the service user (" + oraCode(code) + "): check sources." + source + ".user and its password", Err: oe}
	case unreachableCodes[code]:
		return &Error{System: "oracle", Source: source, Kind: domain.ErrUnavailable, Code: oraCode(code),
			Sentence: "the database cannot be reached (" + oraCode(code) + ")", Err: oe}
	}
	return &Error{System: "oracle", Source: source, Kind: domain.ErrRejected, Code: oraCode(code), Message: oe.ErrMsg,
		Sentence: "the statement failed (" + oraCode(code) + ")", Err: oe}
}

// unreachable reports whether err (not a server error) says the
// connection could not be made or broke.
func unreachable(err error) bool {
	var netErr net.Error
	return errors.As(err, &netErr) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}

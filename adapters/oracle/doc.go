// Package oracle is the Oracle Database data system of sutura: it executes
// plans with the SQL package semantic writes for the oracle dialect, over
// go-ora (github.com/sijms/go-ora/v2, a pure-Go driver of Oracle's TNS
// protocol), and returns their rows as canonical cells, so an answer from
// Oracle is byte-identical to the embedded engine's.
//
// # One question, one read-only transaction
//
// Every question is one transaction on a pooled connection that starts
// with SET TRANSACTION READ ONLY, runs the one SELECT and is rolled back.
// Values are never written into the SQL: the dialect writes :1, :2 ...
// once per occurrence (Oracle binds positional parameters by occurrence),
// and the driver binds dates (as TIMESTAMP without a time zone, so a DATE
// or TIMESTAMP time column is compared with UTC midnights whatever the
// session's time zone) and text in that order. Declare time columns DATE
// or TIMESTAMP holding UTC wall-clock time: a TIMESTAMP WITH TIME ZONE
// column is bucketed and compared in its own and the session's zones. The
// statement ends with FETCH FIRST n+1 ROWS ONLY, n the row cap: more rows
// than the cap, or more than the byte bound of rendered cells, are refused
// as result_too_large while reading, never truncated. When the question's
// context ends, go-ora breaks the call at the server (its context
// support), and the connection is not reused.
//
// # Connections
//
// transport_mode plaintext is allowed only to a loopback address or a unix
// socket; verified and mutual speak TCPS: the adapter dials TLS itself,
// verifying the server's certificate against ca_file (or the system roots)
// and tls_server_name (or host), with cert_file and key_file as the
// client's certificate under mutual. With wallet_dir, the wallet's
// certificates are go-ora's instead (an Oracle auto-login wallet,
// cwallet.sso).
//
// # Postures
//
// Under shared-service-user every leg runs as the configured user. Under
// impersonation-at-source, a leg runs as the database user
// Config.Impersonate maps the caller's subject to, through a proxy
// connection (the user connects on behalf of the client: ALTER USER
// <client> GRANT CONNECT THROUGH <user>), one small pool per client, so
// the server's own grants, VPD policies and roles decide what the caller
// sees. A subject with no mapping is refused as credential_unavailable
// before anything is sent; there is never a fallback to the service user.
// Execute, which has no caller (anchors at start-up), runs as
// Config.VerificationIdentity; without one it is refused the same way. A
// proxy connection the server does not allow (ORA-28150) is
// credential_unavailable.
//
// # Outcomes
//
// Execute returns the rows, a *domain.RefusalError, ctx.Err() when ctx was
// cancelled, or an error. A passed deadline (and ORA-01013 after it) is
// deadline_exceeded; ORA-01031 (insufficient privileges) and ORA-01456 (a
// write in the read-only transaction) are source_refused; ORA-01476
// (division by zero, a ratio declared zero_denominator: fails) wraps
// domain.ErrZeroDenominator; ORA-04030, ORA-04031 and ORA-01652 (memory,
// temporary space) are resources_exhausted. Everything else is an *Error:
// its text is a fixed sentence with at most the ORA- number, never the
// server's or the driver's message, and it wraps domain.ErrUnavailable for
// a server that cannot be reached or refused the sign-in (ORA-01017,
// ORA-28000, ORA-12514, ORA-12541, ORA-03113 ...) and domain.ErrRejected
// for a statement the server failed (ORA-00942, ORA-00904 ...).
//
// # Cells
//
// NUMBER arrives from go-ora as its exact decimal text and becomes an
// integer cell when integral and within 64 bits and the real nearest to
// its exact value otherwise (sqlsource.DecimalCell); a dimension declared
// boolean (stored as NUMBER(1)) becomes a boolean; BINARY_DOUBLE and
// BINARY_FLOAT become reals; DATE becomes a date cell where the plan
// says a date (the period, a dimension declared date) and otherwise, like
// TIMESTAMP, RFC 3339 text of its wall-clock time as UTC; TIMESTAMP WITH
// TIME ZONE its instant in UTC; VARCHAR2, CHAR, NVARCHAR2, NCHAR and CLOB
// text; NULL (and Oracle's empty string, which is NULL) null.
//
// # run_sql
//
// RunSQL runs one SELECT (or WITH ... SELECT) in the same read-only
// transaction; see RunSQL and CheckSQLPrivileges, which refuses at start a
// service user that holds DBA or a system privilege reaching past the
// read-only transaction (any ANY privilege, ALTER SYSTEM, BECOME USER ...).
//
// # What ran
//
// No Oracle server runs on this project's machines: binding, row decoding
// and error mapping are unit-tested against go-ora's types, and the oracle
// tier (SUTURA_ORACLE_URL) runs the contract suite against a live server
// where one is available (docs/operations.md).
package oracle

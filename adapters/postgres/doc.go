// Package postgres is the PostgreSQL data system of sutura: it executes
// plans with the SQL package semantic writes for the postgres dialect,
// over a pgx connection pool, and returns their rows as canonical cells, so
// an answer from PostgreSQL is byte-identical to the embedded engine's.
//
// # One question, one transaction
//
// Every question (and every run_sql statement) runs in its own
// BEGIN READ ONLY transaction on a pooled connection, ended by ROLLBACK
// (it wrote nothing, and a rollback also undoes any SET). The round trip
// that begins it sets statement_timeout to what is left of the context's
// deadline (in milliseconds), so the server stops the statement even if
// the process cannot; a context without a deadline gets
// Config.DefaultTimeout. Parameters are bound as typed values (dates as
// dates, text as text); the statement already carries its LIMIT of the
// plan's row cap plus one, and more rows than the row cap, or more than
// domain.MaxResultBytes of rendered cells, are refused as
// result_too_large while reading, never truncated; a row longer than that
// bound is refused from the length of its message, which is never read
// into memory (no message of more than the bound and 64 KiB is). A run_sql
// statement runs on a connection that is closed afterwards, so nothing it
// leaves on its session reaches a certified question, and it is never run
// a second time once sent (it may have ended its own connection).
//
// # run_sql's role
//
// A read-only transaction stops writes to tables, not what a privileged
// role reaches beyond them: COPY … TO PROGRAM, pg_read_file, lo_export,
// pg_terminate_backend. CheckSQLPrivileges, which the application asks at
// start when run_sql is enabled, refuses a login role that is a superuser
// or a member (directly or through other roles, inheriting or not) of a
// superuser role or of pg_execute_server_program, pg_read_server_files,
// pg_write_server_files or pg_signal_backend. And RunSQL runs exactly one
// read-only query: its text may call none of the functions that run SQL
// text, change the role or settings, end or cancel sessions (a role may
// always end its own role's), administer the server or read its files;
// the server parses it as one statement that returns rows; its first
// word is SELECT, WITH, VALUES or TABLE (docs/operations.md, "The role
// of a run_sql source"). Sessions are configured from
// Config alone (PG* environment variables do not apply) with TimeZone
// UTC and application_name sutura/<source>.
//
// # Cancellation
//
// When a question's context ends, the driver sends the server a cancel
// request at once (pgx's default would only close the socket, leaving the
// statement running at the server until it next writes), and closes the
// connection as a fallback if the server has not answered within a
// second. The server backend is idle again within a fraction of a second
// and the pooled connection is reused. Sessions also set
// client_connection_check_interval (PostgreSQL 14 and later) so a
// statement whose client vanished stops within a second either way, and
// turn JIT compilation off unless Config.JIT is set: the server does not
// interrupt a statement while LLVM compiles it, which takes up to seconds
// for a large statement, on every run.
//
// # Postures
//
// Under shared-service-user every leg runs as the configured user. Under
// impersonation-at-source, ExecuteAs runs the leg under the database role
// Config.Impersonate maps the caller's subject to, with SET LOCAL ROLE
// inside the transaction, so the database's own grants and row-level
// security decide what the caller sees. A subject with no mapping is
// refused as credential_unavailable before anything is sent to the
// database: there is never a fallback to the service user. Execute, which
// has no caller (anchors at start-up), runs as Config.VerificationIdentity,
// a role; without one it is refused the same way.
//
// # Outcomes
//
// Execute returns the rows, a *domain.RefusalError, ctx.Err() when ctx was
// cancelled, or an error. SQLSTATE 57014 (the statement timeout) or a
// passed deadline is deadline_exceeded; insufficient_privilege (42501,
// which includes row-level-security refusals) is source_refused; a role
// that cannot be assumed is credential_unavailable; out of memory or a
// temp_file_limit (53200, 53400) is resources_exhausted; division_by_zero
// (22012, a ratio declared zero_denominator: fails) wraps
// domain.ErrZeroDenominator. Everything else is an *Error: its text is a
// fixed sentence with at most a SQLSTATE, never the server's or the
// driver's message, and it wraps one error kind of package domain:
// domain.ErrUnavailable for a database that cannot be reached (down,
// restarting, refusing connections), domain.ErrRejected for a statement
// the database failed. A question whose connection broke before
// any row was read is retried once on a fresh connection: it is read-only,
// so running it twice is harmless, and a restarted database then answers
// the first question after it is back. A run_sql statement is retried
// only when its connection broke before the statement was sent.
//
// # Cells
//
// int2, int4 and int8 become integer cells; numeric becomes an integer
// cell when it is integral and fits in 64 bits (sum over an int8 column is
// numeric in PostgreSQL) and otherwise a decimal cell of its exact value
// (docs/contract.md §4.2); float4 and float8 become
// reals (declare real columns double precision: a float4 widened to 64
// bits is not the decimal the engine reads); date becomes a date cell;
// timestamp and timestamptz become RFC 3339 text in UTC, as the engine
// renders them; bool becomes a boolean; text, varchar, char and name
// become text; NULL is null. Any other type (run_sql only) is the server's
// own text rendering of the value. Sessions run with TimeZone UTC, so a
// timestamp time column is bucketed by its UTC date, as in the engine.
package postgres

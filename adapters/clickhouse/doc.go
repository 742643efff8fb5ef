// Package clickhouse is the ClickHouse data system of sutura: it executes
// plans with the SQL package semantic writes for the clickhouse dialect,
// over clickhouse-go's native protocol, and returns their rows as canonical
// cells, so an answer from ClickHouse is byte-identical to the embedded
// engine's.
//
// # One question, one statement
//
// Every question is one SELECT on a pooled connection, sent with a query
// id of its own and two settings: readonly = 1, so the server refuses
// anything but reading whatever the statement says, and
// max_execution_time, the rest of the context's deadline in whole seconds
// rounded up, so the server stops the statement even if the process
// cannot (a context without a deadline gets Config.DefaultTimeout). On a
// server with session_timezone (23.6 and later) the statement also runs
// in UTC, so a DateTime time column is bucketed by its UTC date, as in the
// engine; on an older server the column's own time zone, or the server's,
// applies: run it in UTC or declare such columns DateTime('UTC').
//
// Values are never written into the SQL. On a server whose native protocol
// carries query parameters (22.8 and later) they travel as typed
// parameters ({p1:Date}, {p2:String}) that the server binds; on an older
// server the statement is semantic.RenderClickHouseLegacy's, whose ?
// placeholders (toDate(?) for a date) the driver binds client-side,
// escaped. The server's version, asked once (SELECT version()), decides;
// Server reports it. The statement already carries its LIMIT of the
// plan's row cap plus one; more rows than the row cap, or more than
// domain.MaxResultBytes of rendered cells, are refused as result_too_large
// while reading, never truncated. Servers before 20.1 cannot run a
// statement with more than one JOIN: such a question is refused there as
// federation_not_executable before anything is sent.
//
// # Cancellation and deadlines
//
// When a question's context ends, the driver sends the server a cancel
// packet, and the adapter then stops the statement by its query id (KILL
// QUERY ... SYNC on a spare connection, waiting at most three seconds):
// the driver may see its socket time out at a deadline before it cancels,
// and ClickHouse 18.16 keeps running a statement whose client merely went
// away. Nothing of a cancelled or timed-out question is left in
// system.processes when Execute returns.
//
// # Postures
//
// Under shared-service-user every leg runs as the configured user. Under
// impersonation-at-source, ExecuteAs runs the leg as the ClickHouse user
// Config.Impersonate maps the caller's subject to, with EXECUTE AS <user>
// <statement> (ClickHouse 25.11 and later; the service user needs GRANT
// IMPERSONATE on those users, and KILL QUERY to stop their statements), so
// the server's own grants and row policies decide what the caller sees. A
// subject with no mapping is refused as credential_unavailable before
// anything is sent: there is never a fallback to the service user.
// Execute, which has no caller (anchors at start-up), runs as
// Config.VerificationIdentity; without one it is refused the same way.
// Validate refuses impersonation-at-source, naming the posture key, on a
// server without EXECUTE AS.
//
// # Outcomes
//
// Execute returns the rows, a *domain.RefusalError, ctx.Err() when ctx was
// cancelled, or an error. TIMEOUT_EXCEEDED (159) or a passed deadline is
// deadline_exceeded; ACCESS_DENIED (497) and DATABASE_ACCESS_DENIED (291)
// are source_refused; under EXECUTE AS an unknown user or a missing
// IMPERSONATE grant is credential_unavailable; MEMORY_LIMIT_EXCEEDED (241)
// is resources_exhausted; throwIf's error (395, a ratio declared
// zero_denominator: fails) wraps domain.ErrZeroDenominator. Everything
// else is an *Error: its text is a fixed sentence with at most
// ClickHouse's error code, never the server's or the driver's message, and
// it wraps one error kind of package domain: domain.ErrUnavailable for a
// server that cannot be reached (down, restarting, refusing the sign-in),
// domain.ErrRejected for a statement the server failed. A question whose connection broke before its rows were read is
// run once more on a fresh connection: it only reads, so running it twice
// is harmless, and a restarted server answers the first question after it
// is back.
//
// # Cells
//
// Int8 to Int64 and UInt8 to UInt32 become integer cells, as do UInt64,
// Int128 and the wider integers when they fit in 64 bits (a decimal cell
// of their exact value otherwise); Decimal becomes an integer cell when it
// is integral and fits in 64 bits and otherwise a decimal cell of its
// exact value (docs/contract.md §4.2); Float64 becomes a real (declare real
// columns Float64: a Float32 widened to 64 bits is not the decimal the
// engine reads); Date and Date32 become date cells; DateTime and DateTime64
// become RFC 3339 text in UTC, as the engine renders them; Bool, and a
// UInt8 dimension column declared boolean, become booleans; String,
// FixedString and Enum become text; NULL is null. Text orders by its
// bytes, which is how ClickHouse compares strings.
//
// # Cost
//
// ExecuteWithCost reports the rows and bytes the server's progress packets
// say it read for the statement (read_rows, read_bytes), so the realized
// cost of a question on ClickHouse is the server's own measure.
package clickhouse

// Package duckdb is the DuckDB data system of sutura: it executes plans
// with the SQL package semantic writes for the duckdb dialect on a DuckDB
// database file, through github.com/duckdb/duckdb-go (cgo, DuckDB linked
// into the binary), and returns their rows as canonical cells, so an
// answer from DuckDB is byte-identical to the embedded engine's.
//
// # The database
//
// New opens Config.Path read-only (access_mode read_only: nothing can be
// written to it, and other processes may read it at the same time; a
// process holding it open for writing keeps New from opening it). The
// database may reach no other file: enable_external_access is off, so
// ATTACH, COPY ... TO, read_csv, glob, remote URLs, and installing or
// loading extensions are all refused, and extensions are neither
// installed nor loaded automatically. The session time zone is UTC, so a
// timestamp time column is bucketed by its UTC date, as in the engine; a
// statement that needs more than Config.MemoryLimitBytes spills to a
// temporary directory of its own (made by New under the system's
// temporary directory, removed by Close; one that cannot is refused as
// resources_exhausted); and then every setting is locked
// (lock_configuration), so no statement can change any of this.
// Tables are t or schema.t of the file's database.
//
// # One question, one statement
//
// A question runs as one statement on a pooled connection, with its
// parameters bound as typed values (dates as dates, text as text) and its
// LIMIT of the plan's row cap plus one. More rows than the row cap, or
// more than domain.MaxResultBytes of rendered cells, are refused as
// result_too_large, never truncated. A context without a deadline gets
// Config.DefaultTimeout.
//
// # Cancellation and the deadline
//
// DuckDB has no statement timeout of its own: the context is the only
// clock. When it ends (cancelled, or its deadline passed), the driver
// calls duckdb_interrupt on the statement's connection, and repeats it
// every half second until the statement returns; DuckDB checks for it
// between vectors, so the statement stops within milliseconds and the
// connection is free again. A passed deadline is deadline_exceeded; a
// cancellation is ctx.Err().
//
// Neither the interrupt nor memory_limit reaches one function building
// one value: DuckDB folds constant expressions while it prepares a
// statement, and a string or list it builds is not accounted to
// memory_limit, so repeat('x', 1500000000) held gigabytes and ran long
// past its deadline. RunSQL therefore reads a statement's syntax tree
// first (json_serialize_sql, which runs nothing) and refuses as
// resources_exhausted the calls that build a value past a bound from a
// small text: repeat, lpad, rpad and bar past 64 KiB (repeat of what is
// not a constant past 64 times), range, generate_series, list_resize and
// array_resize (as scalar functions) past 8,192 elements, such builders
// inside replace, regexp_replace, printf, format or a lambda over a list
// (nor texts longer than 1 KiB there), and folds (list_reduce); a
// statement DuckDB does not serialize (PIVOT, a write) is refused as
// source_refused before it is prepared. What a
// statement accumulates across vectors and iterations (an aggregate, a
// recursive CTE) is accounted and refused by memory_limit.
//
// # Posture
//
// A DuckDB file has no users: every leg runs as the process
// (shared-service-user), and New refuses impersonation-at-source, naming
// the key posture. The source has no PrincipalExecutor ability.
//
// # Outcomes
//
// Execute returns the rows, a *domain.RefusalError, ctx.Err() when ctx was
// cancelled, or an error. Out of memory is resources_exhausted; a
// statement reaching outside the database file (run_sql only) is
// source_refused; a ratio declared zero_denominator: fails whose
// denominator is zero (the dialect raises it with error(), since DuckDB
// divides by zero to null) wraps domain.ErrZeroDenominator. Everything
// else is an *Error: its text is a fixed sentence with at most the kind
// of DuckDB error, never DuckDB's or the driver's message, and it wraps
// one error kind of package domain: domain.ErrUnavailable for a database
// that cannot be used (closed, or invalidated by a fatal error),
// domain.ErrRejected for a statement DuckDB rejected for what it says.
//
// # Cells
//
// TINYINT to BIGINT and their unsigned forms become integer cells (a
// UBIGINT past the int64 range a decimal cell); HUGEINT (sum over an
// integer column is one) and DECIMAL become an integer cell when integral
// and within 64 bits and otherwise a decimal cell of their exact value
// (docs/contract.md §4.2); DOUBLE
// is a real, and FLOAT the real of the shortest decimal that reads back
// as the same FLOAT (declare real columns DOUBLE all the same: a sum over
// a FLOAT column adds float32 values); DATE is a date cell; TIMESTAMP and
// TIMESTAMPTZ are RFC 3339 text in UTC, as the engine renders them (an
// infinite date or timestamp is the text infinity or -infinity);
// BOOLEAN is a boolean; VARCHAR (and an ENUM, in run_sql) is text; NULL is
// null. The other types, which only run_sql meets, are text: TIME as
// HH:MM:SS, INTERVAL as DuckDB writes it, UUID in its usual form, BLOB
// with \xHH escapes, and lists, structs, maps and unions as JSON.
//
// # Text order
//
// DuckDB compares and orders VARCHAR by its bytes, which is the order
// every answer uses, so the dialect needs no COLLATE. A column declared
// with a collation (NOCASE, NOACCENT, a language's) would group, filter
// and order otherwise; Validate refuses it, as it refuses an ENUM column
// declared text (ENUMs order by their declaration).
//
// # What it does not measure
//
// The source has no CostReporter ability. DuckDB's profiler counts the
// rows a statement scanned after zone-map pruning, but its bytes read
// count only blocks read from the file, not those served from its buffer
// pool, so a warm question would report nothing read, which is not the
// realized cost the port defines; and profiling is a per-connection
// setting that the locked configuration forbids. Answers from a duckdb
// source therefore have an unmeasured cost (measured: false).
//
// # Without cgo
//
// DuckDB is C++ linked in through cgo. Built without cgo (CGO_ENABLED=0),
// the package keeps its API, so a program that opens its sources from
// configuration still builds, and New validates the configuration and then
// refuses with ErrNoDuckDB: such a binary serves every other kind of
// source and no duckdb source.
package duckdb

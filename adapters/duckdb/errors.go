package duckdb

import (
	"sutura.dev/adapters/sqlsource"
)

// ErrEmptyStatement is RunSQL's error for a statement with no text.
var ErrEmptyStatement = sqlsource.ErrEmptyStatement

// Error is a failure of DuckDB (see sqlsource.Error). Its kind is
// domain.ErrUnavailable when the database cannot be used (it was closed,
// or DuckDB invalidated it after a fatal error; a restart reopens it),
// cannot be opened, or failed reading its file or in a connection or
// transaction of its own; and domain.ErrRejected when DuckDB failed the
// statement for what it says (a syntax error, an unknown table or column,
// a value that does not convert, a function the sandbox leaves
// unconfigured: a run_sql author's mistake). Code names the
// class of DuckDB error ("binder error"), empty when DuckDB gave none. Its
// text is a fixed sentence naming the source and Code, never DuckDB's or
// the driver's message; Message is DuckDB's message for a statement it
// rejected (for run_sql's author only).
type Error = sqlsource.Error

// The details every SQL source shares are sqlsource's.
const (
	detailRefused    = "the database refused this statement: it may read only the tables of its own database file"
	detailResources  = "the database ran out of working memory for this question; ask for less"
	detailBuiltValue = "run_sql bounds the values a statement builds (docs/operations.md, DuckDB sources): %s"
	detailReadOnly   = "run_sql is read-only and runs one query (a SELECT): the statement tried to do something else"
)

// refusal is a *domain.RefusalError of code c.
var refusal = sqlsource.Refusal

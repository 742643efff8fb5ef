package clickhouse

import (
	"context"
	"errors"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// ErrEmptyStatement is RunSQL's error for a statement with no text.
var ErrEmptyStatement = sqlsource.ErrEmptyStatement

// RunSQL runs one statement of run_sql (docs/contract.md §6) and returns at most
// rowCap rows (domain.MaxRowCap when rowCap is not positive or larger),
// named after the result's columns, with no role and no provenance. It
// runs like a question: with readonly = 1 and max_execution_time from the
// deadline, as the service user or, under impersonation-at-source, as the
// verification identity (refused as credential_unavailable without one).
//
// The statement must be one query: its first word (after comments and
// opening parentheses) SELECT, WITH, SHOW, DESCRIBE, DESC or EXISTS;
// anything else is refused as source_refused before it is sent. That
// keeps out KILL QUERY and KILL MUTATION, which readonly = 1 does not stop
// and which would end the statements of the same service user (the
// certified questions in flight), and SYSTEM, SET, USE and every write. A
// column of a type the adapter cannot render (an Array, a Map, a Tuple)
// is the statement's failure, an *Error of kind domain.ErrRejected whose
// Message names the type.
//
// The native protocol runs exactly one statement per query, and readonly
// = 1 makes the server refuse every write and every change of a setting
// (a SETTINGS clause included), so a statement can neither write nor lift
// the limits it runs under. More rows than rowCap, or more than
// domain.MaxResultBytes of rendered cells, is result_too_large, and the
// statement is stopped at the server rather than read to its end; a
// statement that tries to write or change a setting (READONLY, code 164)
// or lacks a grant is source_refused. Any other failure of the statement
// is an *Error whose Message is the server's, for the person who wrote
// the statement.
func (db *DB) RunSQL(ctx context.Context, sql string, rowCap int) (*domain.RowSet, error) {
	rowCap, err := sqlsource.Statement(sql, rowCap)
	if err != nil {
		return nil, err
	}
	// The text checked and sent ends with the call's traceparent comment
	// (docs/contract.md §16).
	sql = sqlsource.Traced(ctx, sql)
	if !isQuery(sql) {
		return nil, refusal(domain.SourceRefused, detailOneQuery)
	}
	user, err := db.ownUser()
	if err != nil {
		return nil, err
	}
	ctx, cancel := sqlsource.Budget(ctx, db.cfg.DefaultTimeout)
	defer cancel()
	st := statement{sql: sql, user: user}
	if user != "" {
		srv, err := db.Server(ctx)
		if err != nil {
			return nil, err
		}
		if !srv.ExecuteAs() {
			return nil, unexplained(db.cfg.Source, errNoExecuteAs)
		}
		st.sql = "EXECUTE AS " + quoteIdent(user) + " " + sql
	}
	rd := reader{rowCap: rowCap, tooMany: sqlsource.DetailStatementRows}
	// A statement stopped early by the row cap, or at a value the reader
	// cannot read, is cancelled, and so stopped at the server by its query
	// id, instead of being read to its end when its rows are closed. A
	// failure the server sent while the rows streamed (a statement someone
	// else stopped: QUERY_WAS_CANCELLED) has ended the statement already,
	// and is the statement's failure: cancelling would make it read as the
	// caller's cancellation.
	qctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var rs *domain.RowSet
	_, err = db.run(qctx, st, func(rows driver.Rows) error {
		got, err := rd.read(rows)
		var re *domain.RefusalError
		if errors.As(err, &re) || errors.Is(err, errUndecodable) {
			stop(err)
		}
		if err != nil {
			return err
		}
		rs = got
		return nil
	})
	var re *domain.RefusalError
	cause := context.Cause(qctx)
	if errors.As(cause, &re) {
		return nil, re
	}
	if errors.Is(cause, errUndecodable) {
		// The reader stopped the statement at a value it cannot read: the
		// statement's failure, not the server's (the cancellation it
		// caused would otherwise stand for the error).
		return nil, undecodableError(db.cfg.Source, cause)
	}
	if hasCode(err, codeReadonly) {
		return nil, refusal(domain.SourceRefused, detailReadOnly)
	}
	if err != nil {
		return nil, err
	}
	return rs, nil
}

package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// ErrEmptyStatement is RunSQL's error for a statement with no text.
var ErrEmptyStatement = sqlsource.ErrEmptyStatement

// RunSQL runs one statement of run_sql (docs/contract.md §6) and returns at most
// rowCap rows (domain.MaxRowCap when rowCap is not positive or larger),
// named after the result's fields, with no role and no provenance. It runs
// like a question: in a READ ONLY transaction under the deadline, as the
// service user or, under impersonation-at-source, as the verification
// identity (refused as credential_unavailable without one).
//
// The statement must be exactly one read-only query: a text that calls a
// function run_sql refuses (one that runs SQL text, changes the role or
// a setting, ends or cancels a session, administers the server or reads
// its files), that the server's parser does not take as one statement
// returning rows, or whose first word is not SELECT, WITH, VALUES or
// TABLE, is refused as source_refused and never executed. It is sent with
// the extended protocol, which admits exactly
// one statement, so it cannot end the read-only transaction and go on; the
// transaction is rolled back, which undoes any SET, and the connection is
// closed afterwards, so nothing the statement left on its session (a
// prepared statement, an advisory lock) reaches a later question.
// More rows than rowCap, or more than domain.MaxResultBytes of rendered
// cells, is result_too_large; a statement that tries to write
// (read_only_sql_transaction) or lacks a permission is source_refused.
// Any other failure of the statement is an *Error whose Message is the
// server's, for the person who wrote the statement.
func (db *DB) RunSQL(ctx context.Context, statement string, rowCap int) (*domain.RowSet, error) {
	rowCap, err := sqlsource.Statement(statement, rowCap)
	if err != nil {
		return nil, err
	}
	// The text sent, checked and run ends with the call's traceparent
	// comment (docs/contract.md §16).
	statement = sqlsource.Traced(ctx, statement)
	role, err := db.ownRole()
	if err != nil {
		return nil, err
	}
	var rs *domain.RowSet
	err = db.runAlone(ctx, role, func(ctx context.Context, conn *pgxpool.Conn) error {
		// DescribeExec: an unnamed prepared statement, so no statement of a
		// person's fills the connection's statement cache.
		conforming := conn.Conn().PgConn().ParameterStatus("standard_conforming_strings") != "off"
		reason, query := checkStatement(statement, conforming)
		if reason != "" {
			return refusal(domain.SourceRefused, detailOneQuery, reason)
		}
		qctx, stop := context.WithCancel(ctx)
		// The server's part of the rule: it parses the text (which runs
		// nothing, and is where an author's syntax error is reported) as
		// one statement and describes the rows it returns; a statement
		// that returns none (DO, SET, COPY, CALL without results) is not a
		// query either.
		desc, err := conn.Conn().PgConn().Prepare(qctx, "", statement, nil)
		if err != nil {
			stop()
			return err
		}
		if !query || len(desc.Fields) == 0 {
			stop()
			return refusal(domain.SourceRefused, detailOneQuery, notAQuery)
		}
		rows, err := conn.Query(qctx, statement, pgx.QueryExecModeDescribeExec, binaryResults)
		if err != nil {
			stop()
			return err
		}
		// Deferred calls run last first: a statement stopped early by the
		// row cap is cancelled at the server before closing the rows, which
		// would otherwise read the whole result.
		defer rows.Close()
		defer stop()
		got, err := readRows(rows, rowCap, domain.MaxResultBytes, nil, sqlsource.DetailStatementRows)
		if err != nil {
			return err
		}
		rs = got
		return nil
	})
	var e *Error
	if errors.As(err, &e) && e.Code == "25006" {
		return nil, refusal(domain.SourceRefused, detailReadOnly)
	}
	if err != nil {
		return nil, err
	}
	return rs, nil
}

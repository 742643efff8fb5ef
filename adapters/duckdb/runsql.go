//go:build cgo

package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strconv"

	duck "github.com/duckdb/duckdb-go/v2"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// oneStatement is the Message of RunSQL's *Error for a text that holds
// no statement or several.
const oneStatement = "run_sql runs exactly one statement"

// RunSQL runs one statement of run_sql and returns at most rowCap rows
// (domain.MaxRowCap when rowCap is not positive or larger), named after
// the result's columns, with no role and no provenance. It is the
// app.SQLRunner ability.
//
// The statement must be exactly one query (a SELECT, including FROM-first
// queries, VALUES, DESCRIBE, SHOW and SUMMARIZE): it is parsed and bound
// on its own first, and anything else (an INSERT, CREATE, SET, ATTACH,
// COPY, INSTALL, LOAD, PRAGMA, CALL, EXPLAIN, a transaction) is refused
// as source_refused before it runs. A query that reaches outside the
// database file (read_csv('/etc/passwd'), glob, a remote URL) is refused
// by DuckDB itself (enable_external_access is off) and is source_refused
// too. The query then runs as SELECT * FROM query($1) LIMIT rowCap+1 with
// the statement bound as a parameter, so DuckDB stops after the rows it
// may return instead of materialising the whole result; more rows than
// rowCap, or more than domain.MaxResultBytes of rendered cells, is
// result_too_large. DuckDB builds that result before it is read, so the
// byte bound applies to rows it already holds (within
// Config.MemoryLimitBytes); and it notices a cancellation or the deadline
// between vectors of 2,048 values, which for a query that computes values
// of megabytes each comes seconds late. It runs on a connection that is
// closed afterwards. Any other failure of the statement is an *Error whose Message is
// DuckDB's, for the person who wrote the statement.
func (db *DB) RunSQL(ctx context.Context, statement string, rowCap int) (*domain.RowSet, error) {
	rowCap, err := sqlsource.Statement(statement, rowCap)
	if err != nil {
		return nil, err
	}
	var rs *domain.RowSet
	err = db.withConn(ctx, func(ctx context.Context, c *sql.Conn) error {
		// The connection is closed rather than given back, whatever the
		// statement did.
		defer func() { _ = c.Raw(func(any) error { return driver.ErrBadConn }) }()
		// The values first: preparing a statement folds its constant
		// expressions, so repeat('x', 1500000000) would be built by the
		// check below, where no interrupt reaches it.
		reason, err := checkValues(ctx, c, statement)
		if errors.Is(err, errNotSerialized) {
			return refusal(domain.SourceRefused, detailReadOnly)
		}
		if err != nil {
			return err
		}
		if reason != "" {
			return refusal(domain.ResourcesExhausted, detailBuiltValue, reason)
		}
		if err := checkQuery(c, db.cfg.Source, statement); err != nil {
			return err
		}
		rows, err := c.QueryContext(ctx, "SELECT * FROM query($1) LIMIT "+strconv.Itoa(rowCap+1)+sqlsource.TraceComment(ctx), statement)
		if err != nil {
			return err
		}
		defer rows.Close()
		rs, err = readRows(rows, rowCap, domain.MaxResultBytes, nil, sqlsource.DetailStatementRows)
		return err
	})
	if err != nil {
		return nil, err
	}
	return rs, nil
}

// checkQuery prepares statement alone (the driver's Prepare refuses a
// text of several statements, where its other entry points would run all
// but the last) and refuses it unless it is a query.
func checkQuery(c *sql.Conn, source, statement string) error {
	return c.Raw(func(dc any) error {
		conn, ok := dc.(*duck.Conn)
		if !ok {
			return errors.New("the connection is not a DuckDB connection")
		}
		st, err := conn.Prepare(statement)
		if err != nil {
			var de *duck.Error
			if !errors.As(err, &de) {
				return newError(source, domain.ErrRejected, "not one statement", oneStatement, err)
			}
			return err
		}
		defer st.Close()
		typ, err := st.(*duck.Stmt).StatementType()
		if err != nil {
			return err
		}
		if typ != duck.STATEMENT_TYPE_SELECT {
			return refusal(domain.SourceRefused, detailReadOnly)
		}
		return nil
	})
}

//go:build cgo

package duckdb

import (
	"context"
	"database/sql"

	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// Statement is the statement a leg of plan sends under ctx, with its
// traceparent comment, for an explanation (docs/contract.md §16).
func (db *DB) Statement(ctx context.Context, plan *domain.Plan) (domain.Statement, error) {
	return sqlsource.ExplainStatement(ctx, "duckdb", db.cfg.Source, plan, semantic.DuckDB)
}

// DataThrough is the newest day column of model holds, read with one max()
// over the column (bounded by ctx): the explanation's data_through
// (docs/contract.md §16), asked at start and at each catalogue refresh,
// never per question. ok is false for a model this source does not serve
// or a column with no value.
func (db *DB) DataThrough(ctx context.Context, model, column string) (domain.Date, bool, error) {
	m := sqlsource.ServedModel(db.cfg.Models, model)
	if m == nil {
		return 0, false, nil
	}
	// Identifiers come from the catalogue, quoted; no value is written.
	query := "SELECT CAST(max(" + quote(column) + ") AS DATE) FROM " + quotedPath(m)
	var last sql.NullTime
	err := db.withConn(ctx, func(ctx context.Context, c *sql.Conn) error {
		return c.QueryRowContext(ctx, query).Scan(&last)
	})
	if err != nil || !last.Valid {
		return 0, false, err
	}
	return domain.DateFromTime(last.Time), true, nil
}

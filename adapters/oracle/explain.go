package oracle

import (
	"context"
	"database/sql"
	"strings"

	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// Statement is the statement a leg of plan sends under ctx, with its
// traceparent comment, for an explanation (docs/contract.md §16).
func (db *DB) Statement(ctx context.Context, plan *domain.Plan) (domain.Statement, error) {
	return sqlsource.ExplainStatement(ctx, "oracle", db.cfg.Source, plan, semantic.Oracle)
}

// Identity is the database user a leg of principal runs as: the service
// user, or under impersonation the proxy client (CONNECT THROUGH) the
// configuration maps it to.
func (db *DB) Identity(principal domain.Principal, impersonated bool) string {
	return db.ids.Name(principal, impersonated, db.cfg.User)
}

// DataThrough is the newest day column of model holds, read with one
// MAX() over the column (bounded by ctx and the source's timeout) in the
// read-only transaction of a call without a caller (docs/contract.md
// §16): the explanation's data_through, asked at start and at each
// catalogue refresh, never per question. ok is false for a model this
// source does not serve or a column with no value.
func (db *DB) DataThrough(ctx context.Context, model, column string) (domain.Date, bool, error) {
	m := sqlsource.ServedModel(db.cfg.Models, model)
	if m == nil {
		return 0, false, nil
	}
	client, err := db.ids.Own()
	if err != nil {
		return 0, false, err
	}
	query := throughStatement(m, column) + sqlsource.TraceComment(ctx)
	var last sql.NullTime
	err = db.run(ctx, client, func(ctx context.Context, tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, query).Scan(&last)
	})
	if err != nil || !last.Valid {
		return 0, false, err
	}
	return domain.DateFromTime(last.Time), true, nil
}

// throughStatement is DataThrough's statement for column of m: a DATE or
// TIMESTAMP column's greatest value, truncated to its day. Identifiers come
// from the catalogue, quoted; no value is written.
func throughStatement(m *domain.Model, column string) string {
	path := make([]string, 0, 2)
	for _, p := range m.TableParts() {
		path = append(path, quoteIdent(p))
	}
	return "SELECT CAST(TRUNC(MAX(" + quoteIdent(column) + ")) AS DATE) FROM " + strings.Join(path, ".")
}

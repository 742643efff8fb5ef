package postgres

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// Statement is the statement a leg of plan sends under ctx, with its
// traceparent comment, for an explanation (docs/contract.md §16).
func (db *DB) Statement(ctx context.Context, plan *domain.Plan) (domain.Statement, error) {
	return sqlsource.ExplainStatement(ctx, "postgres", db.cfg.Source, plan, semantic.Postgres)
}

// Identity is the database role a leg of principal runs as: the service
// user, or under impersonation the role Config.Impersonate maps it to.
func (db *DB) Identity(principal domain.Principal, impersonated bool) string {
	return db.ids.Name(principal, impersonated, db.cfg.User)
}

// execMode is the leading options of a question's statement: a statement
// that carries a traceparent comment is unique to its call, so it is
// described and run unnamed rather than prepared into the connection's
// statement cache, which it would only churn (each would evict another
// and leave a server-side statement to deallocate).
func execMode(query string, opts ...any) []any {
	if strings.HasSuffix(query, "' */") {
		return append([]any{pgx.QueryExecModeDescribeExec}, opts...)
	}
	return opts
}

// DataThrough is the newest day column of model holds, read with one
// max() over the column (bounded by ctx and the statement timeout), as the
// service identity: the explanation's data_through (docs/contract.md §16).
// ok is false for a model this source does not serve or a column with no
// value.
func (db *DB) DataThrough(ctx context.Context, model, column string) (domain.Date, bool, error) {
	m := sqlsource.ServedModel(db.cfg.Models, model)
	if m == nil {
		return 0, false, nil
	}
	role, err := db.ownRole()
	if err != nil {
		return 0, false, err
	}
	// Identifiers come from the catalogue, quoted; no value is written.
	query := "SELECT max(" + pgx.Identifier{column}.Sanitize() + ")::date FROM " + pgx.Identifier(m.TableParts()).Sanitize()
	var last *time.Time
	err = db.run(ctx, role, func(ctx context.Context, conn *pgxpool.Conn) error {
		return conn.QueryRow(ctx, query).Scan(&last)
	})
	if err != nil || last == nil {
		return 0, false, err
	}
	return domain.DateFromTime(*last), true, nil
}

package postgres

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

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

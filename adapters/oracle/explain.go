package oracle

import (
	"context"

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

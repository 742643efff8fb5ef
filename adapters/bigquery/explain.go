package bigquery

import (
	"context"

	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// Statement is the statement a leg of plan sends under ctx, with its
// traceparent comment and its parameters' values, for an explanation
// (docs/contract.md §16).
func (db *DB) Statement(ctx context.Context, plan *domain.Plan) (domain.Statement, error) {
	return sqlsource.ExplainStatement(ctx, "bigquery", db.cfg.Source, plan, semantic.BigQuery)
}

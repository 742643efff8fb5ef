package clickhouse

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// Statement is the statement a leg of plan sends under ctx, with its
// traceparent comment, for an explanation (docs/contract.md §16): the
// rendering render chooses for the server (typed query parameters, or the
// legacy one whose values the driver binds), without the EXECUTE AS of an
// impersonated call.
func (db *DB) Statement(ctx context.Context, plan *domain.Plan) (domain.Statement, error) {
	if err := sqlsource.Leg("clickhouse", db.cfg.Source, plan); err != nil {
		return domain.Statement{}, err
	}
	srv, err := db.Server(ctx)
	if err != nil {
		return domain.Statement{}, err
	}
	var st semantic.Statement
	if srv.QueryParameters() {
		st, err = semantic.Render(plan, semantic.ClickHouse)
	} else {
		st, err = semantic.RenderClickHouseLegacy(plan)
	}
	if err != nil {
		return domain.Statement{}, fmt.Errorf("clickhouse source %s: %w", db.cfg.Source, err)
	}
	return sqlsource.Explained(ctx, db.cfg.Source, string(semantic.ClickHouse), st), nil
}

// Identity is the ClickHouse user a leg of principal runs as: the service
// user, or under impersonation the user Config.Impersonate maps it to.
func (db *DB) Identity(principal domain.Principal, impersonated bool) string {
	return db.ids.Name(principal, impersonated, db.cfg.User)
}

// tracedQueryID is the query id of a statement under ctx: for a traced
// call "sutura-<trace id>-" and 8 random bytes in hex, so that
// system.query_log (whose query column ClickHouse cuts at the end of the
// statement, dropping a trailing comment) links back to the trace by its
// query_id too; queryID otherwise.
func tracedQueryID(ctx context.Context) string {
	tp := domain.TraceParent(ctx)
	if !domain.ValidTraceParent(tp) {
		return queryID()
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "sutura-" + tp[3:35] + "-" + hex.EncodeToString(b)
}

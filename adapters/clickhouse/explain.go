package clickhouse

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// Statement is the statement a leg of plan sends under ctx, with its
// traceparent comment, for an explanation (docs/contract.md §16): the
// rendering render chooses for the server (typed query parameters, or the
// legacy one whose values the driver binds), as the service user.
func (db *DB) Statement(ctx context.Context, plan *domain.Plan) (domain.Statement, error) {
	user, err := db.ownUser()
	if err != nil {
		return domain.Statement{}, err
	}
	return db.statementAs(ctx, user, plan)
}

// StatementAs is Statement for a leg run as principal under
// impersonation-at-source: the text starts with the EXECUTE AS <user>
// that ExecuteAs sends.
func (db *DB) StatementAs(ctx context.Context, principal domain.Principal, plan *domain.Plan) (domain.Statement, error) {
	user, err := db.userOf(principal)
	if err != nil {
		return domain.Statement{}, err
	}
	return db.statementAs(ctx, user, plan)
}

// statementAs is the statement of plan run as user ("" is the service
// user), as render writes it for the server.
func (db *DB) statementAs(ctx context.Context, user string, plan *domain.Plan) (domain.Statement, error) {
	if err := sqlsource.Leg("clickhouse", db.cfg.Source, plan); err != nil {
		return domain.Statement{}, err
	}
	srv, err := db.Server(ctx)
	if err != nil {
		return domain.Statement{}, err
	}
	st, err := renderAs(plan, srv, user)
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

// DataThrough is the newest day column of model holds, read with one max()
// over the column as the service user (bounded by ctx): the explanation's
// data_through (docs/contract.md §16), asked at start and at each
// catalogue refresh, never per question. ClickHouse's max over no row is
// the type's default, not NULL, so the statement also counts the rows;
// ok is false for a model this source does not serve or an empty table.
func (db *DB) DataThrough(ctx context.Context, model, column string) (domain.Date, bool, error) {
	m := sqlsource.ServedModel(db.cfg.Models, model)
	if m == nil {
		return 0, false, nil
	}
	var path []string
	for _, p := range m.TableParts() {
		path = append(path, quoteIdent(p))
	}
	// Identifiers come from the catalogue, quoted; no value is written.
	st := statement{sql: "SELECT toDate(max(" + quoteIdent(column) + ")), count() FROM " + strings.Join(path, ".")}
	var (
		last time.Time
		n    uint64
		seen bool
	)
	_, err := db.run(ctx, st, func(rows driver.Rows) error {
		for rows.Next() {
			if err := rows.Scan(&last, &n); err != nil {
				return err
			}
			seen = true
		}
		return rows.Err()
	})
	if err != nil || !seen || n == 0 {
		return 0, false, err
	}
	return domain.DateFromTime(last), true, nil
}

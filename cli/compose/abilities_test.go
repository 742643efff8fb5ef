package compose

import (
	"sutura.dev/adapters/bigquery"
	"sutura.dev/adapters/clickhouse"
	"sutura.dev/adapters/duckdb"
	"sutura.dev/adapters/oracle"
	"sutura.dev/adapters/postgres"
	"sutura.dev/app"
	"sutura.dev/app/explain"
)

// Every database adapter the composition opens tells what an explanation
// needs (docs/contract.md §16): the statement it sends, the identity a leg
// runs as, and data_through; ClickHouse also the statement it sends as a
// caller (EXECUTE AS). The application finds these abilities by type, so
// one lost here would silently drop a field.
var (
	_ app.StatementTeller = (*postgres.DB)(nil)
	_ app.StatementTeller = (*duckdb.DB)(nil)
	_ app.StatementTeller = (*clickhouse.DB)(nil)
	_ app.StatementTeller = (*bigquery.DB)(nil)
	_ app.StatementTeller = (*oracle.DB)(nil)

	_ explain.PrincipalStatementTeller = (*clickhouse.DB)(nil)

	_ app.IdentityTeller = (*postgres.DB)(nil)
	_ app.IdentityTeller = (*clickhouse.DB)(nil)
	_ app.IdentityTeller = (*oracle.DB)(nil)

	_ app.ThroughTeller = (*postgres.DB)(nil)
	_ app.ThroughTeller = (*duckdb.DB)(nil)
	_ app.ThroughTeller = (*clickhouse.DB)(nil)
	_ app.ThroughTeller = (*bigquery.DB)(nil)
	_ app.ThroughTeller = (*oracle.DB)(nil)
)

package bigquery_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/bigquery"
	"sutura.dev/adapters/bigquery/bqtest"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
)

// The tests drive the real client library against bqtest's double of the
// REST API (it never evaluates SQL: each test gives it the rows BigQuery
// would return). The live tier (live_test.go) runs against BigQuery
// itself when SUTURA_BIGQUERY_PROJECT and credentials are set.

const source = sqltest.DemoSource

// dataSystem, validator, costReporter and sqlRunner are app's ports,
// restated: this module may not import app.
type dataSystem interface {
	Execute(ctx context.Context, plan *domain.Plan) (*domain.RowSet, error)
}

type validator interface {
	Validate(ctx context.Context) error
}

type costReporter interface {
	ExecuteWithCost(ctx context.Context, plan *domain.Plan) (*domain.RowSet, domain.Cost, error)
}

type sqlRunner interface {
	RunSQL(ctx context.Context, statement string, rowCap int) (*domain.RowSet, error)
}

var (
	_ dataSystem   = (*bigquery.DB)(nil)
	_ validator    = (*bigquery.DB)(nil)
	_ costReporter = (*bigquery.DB)(nil)
	_ sqlRunner    = (*bigquery.DB)(nil)
)

// demoBundle is the demo catalogue on source, mirrored by app/conformance.
func demoBundle(t testing.TB) *domain.Bundle {
	t.Helper()
	b, err := conformance.DemoBundle(source)
	require.NoError(t, err)
	return b
}

// config is a source on the double d: project proj, location EU, dataset
// shop, the demo models.
func config(d *bqtest.Server) bigquery.Config {
	return bigquery.Config{Source: source, Project: "proj-sutura", Location: "EU", Dataset: "shop",
		Models: conformance.DemoDefinitions(source).Models, ClientOptions: d.ClientOptions()}
}

// open opens cfg, closed when t ends.
func open(t testing.TB, cfg bigquery.Config) *bigquery.DB {
	t.Helper()
	db, err := bigquery.New(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(db.Close)
	return db
}

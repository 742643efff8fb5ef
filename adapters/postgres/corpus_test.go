package postgres_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	postgres "sutura.dev/adapters/postgres"
	"sutura.dev/adapters/postgres/pgtest"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
)

// TestCorpus runs the data-system conformance suite (every question of
// the corpus, compiled over the mirrored demo bundle and executed by the
// adapter) on the demo tables.
func TestCorpus(t *testing.T) {
	f := needDB(t)
	runCorpus(t, open(t, f.config()))
}

// TestCorpusOnPgtest runs the corpus again on tables pgtest creates from
// the catalogue's declared types (every integer a bigint), as cli's
// conformance run will load them.
func TestCorpusOnPgtest(t *testing.T) {
	d := pgtest.New(t)
	models := demoModels(source)
	d.Load(t, os.DirFS(dataDir), models)
	db := open(t, d.Config(source, models))
	require.NoError(t, db.Validate(context.Background()))
	runCorpus(t, db)
}

func runCorpus(t *testing.T, db *postgres.DB) {
	conformance.RunSystem(t, db, source)
}

// TestFederatedLegs runs the legs of federated plans (a base leg of
// partials, a lookup leg) on Postgres: added up, they give its own
// single-statement answers.
func TestFederatedLegs(t *testing.T) {
	f := needDB(t)
	conformance.RunLegs(t, open(t, f.config()), source)
}

// TestAnchors re-runs every anchor of the demo catalogue, as start-up
// validation does: the metric alone over the anchor's range at its
// coarsest grain, one cell, compared as canonical text.
func TestAnchors(t *testing.T) {
	f := needDB(t)
	db := open(t, f.config())
	b := demoBundle(t, source)
	require.Equal(t, 13, sqltest.Anchors(t, b, db.Execute))
}

// TestHandWrittenSQL compares the adapter with straightforward SQL written
// by hand for three questions, as a check that does not go through the
// corpus generator.
func TestHandWrittenSQL(t *testing.T) {
	f := needDB(t)
	db := open(t, f.config())
	b := demoBundle(t, source)
	cases := []struct{ question, sql string }{
		{`{"metrics":["net_sales"],"grain":"month","range":{"start":"2025-01-01","end":"2025-04-01"},"dimensions":["area"]}`,
			`SELECT r.region_name, to_char(date_trunc('month', o.order_date), 'YYYY-MM-DD'), sum(o.net_amount_cents)::text
			 FROM orders o LEFT JOIN customers c USING (customer_id) LEFT JOIN regions r ON r.region_id = c.region_id
			 WHERE o.order_date >= '2025-01-01' AND o.order_date < '2025-04-01' AND o.status <> 'cancelled' AND o.is_paid
			 GROUP BY 1, 2 ORDER BY r.region_name COLLATE "C" NULLS LAST, 2`},
		{`{"metrics":["units_sold"],"grain":"week","range":{"start":"2025-12-01","end":"2026-01-05"},"filters":[{"op":"in","dimension":"channel","values":["online"]}]}`,
			`SELECT to_char(date_trunc('week', order_date), 'YYYY-MM-DD'), sum(quantity)::text FROM orders
			 WHERE order_date >= '2025-12-01' AND order_date < '2026-01-05' AND channel = 'online' AND status = 'completed'
			 GROUP BY 1 ORDER BY 1`},
		{`{"metrics":["returned_orders"],"grain":"year","range":{"start":"2024-01-01","end":"2026-01-01"},"dimensions":["product_category"]}`,
			`SELECT p.category, to_char(date_trunc('year', o.order_date), 'YYYY-MM-DD'), count(*) FILTER (WHERE o.is_returned)::text
			 FROM orders o LEFT JOIN products p USING (product_id)
			 WHERE o.order_date >= '2024-01-01' AND o.order_date < '2026-01-01' AND o.status = 'completed'
			 GROUP BY 1, 2 ORDER BY p.category COLLATE "C" NULLS LAST, 2`},
	}
	ctx := context.Background()
	c, err := f.connect(ctx, f.db)
	require.NoError(t, err)
	defer c.Close(ctx)
	for _, tc := range cases {
		rs, err := db.Execute(ctx, compile(t, b, domain.LocalOperator, tc.question))
		require.NoError(t, err)
		rows, err := c.Query(ctx, tc.sql)
		require.NoError(t, err)
		var want [][]string
		for rows.Next() {
			vals, err := rows.Values()
			require.NoError(t, err)
			var row []string
			for _, v := range vals {
				if v == nil {
					row = append(row, "null")
				} else {
					row = append(row, v.(string))
				}
			}
			want = append(want, row)
		}
		require.NoError(t, rows.Err())
		require.NotEmpty(t, want)
		assert.Equal(t, want, rendered(rs), tc.question)
	}
}

// errorsAs is errors.As for a target type, for brevity in assertions.
func errorsAs[T error](err error) (T, bool) {
	var target T
	ok := errors.As(err, &target)
	return target, ok
}

// TestTimestampTimeColumn: a timestamptz time column buckets by its UTC
// date and the range compares with UTC midnights, as in the engine,
// whatever the server's own time zone.
func TestTimestampTimeColumn(t *testing.T) {
	f := needDB(t)
	f.exec(t, `CREATE TABLE IF NOT EXISTS events (at timestamptz, at_local timestamp, n bigint);
TRUNCATE events;
INSERT INTO events VALUES
  ('2025-01-31 23:30:00+00', '2025-01-31 23:30:00', 1),
  ('2025-02-01 00:30:00+00', '2025-02-01 00:30:00', 10),
  ('2025-02-01 00:30:00+02', '2025-02-01 00:30:00', 100),
  ('2025-03-01 00:00:00+00', '2025-03-01 00:00:00', 1000);
GRANT SELECT ON events TO `+f.role("reader"))
	f.exec(t, "ALTER DATABASE "+f.db+" SET timezone = 'Pacific/Auckland'")
	cfg := f.config()
	cfg.Models = nil
	db := open(t, cfg)
	for _, column := range []string{"at", "at_local"} {
		defs := domain.Definitions{
			Models: []domain.Model{{Name: "events", Source: source, Table: "events",
				Columns: cols(column, "timestamp", "n", "integer")}},
			Metrics: []domain.Metric{{Name: "total", Model: "events", TimeColumn: column, Description: "total",
				Measure: &domain.Measure{Simple: &domain.Term{Aggregate: domain.Sum, Column: "n"}},
				Grains:  []domain.Grain{domain.Day, domain.Month}}},
		}
		b, err := domain.NewBundle("events", defs, domain.Knowledge{})
		require.NoError(t, err)
		rs, err := db.Execute(context.Background(), compile(t, b, domain.LocalOperator,
			`{"metrics":["total"],"grain":"day","range":{"start":"2025-01-31","end":"2025-03-01"}}`))
		require.NoError(t, err)
		want := [][]string{{"2025-01-31", "101"}, {"2025-02-01", "10"}}
		if column == "at_local" {
			want = [][]string{{"2025-01-31", "1"}, {"2025-02-01", "110"}}
		}
		require.Equal(t, want, rendered(rs), column)
	}
}

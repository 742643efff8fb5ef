package pgtest_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	postgres "sutura.dev/adapters/postgres"
	"sutura.dev/adapters/postgres/pgtest"
	"sutura.dev/domain"
)

func TestLoad(t *testing.T) {
	d := pgtest.New(t)
	models := []domain.Model{
		{Name: "regions", Source: "demo", Table: "ref.regions", Columns: []domain.ModelColumn{
			{Name: "region_id", Type: domain.TypeInteger}, {Name: "region_name", Type: domain.TypeText}}},
		{Name: "customers", Source: "demo", Table: "customers", Columns: []domain.ModelColumn{
			{Name: "customer_id", Type: domain.TypeInteger}, {Name: "signup_date", Type: domain.TypeDate}}},
	}
	d.Load(t, os.DirFS("../../../examples/demo/data"), models)
	db, err := postgres.New(context.Background(), d.Config("demo", models))
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.Validate(context.Background()))
	rs, err := db.RunSQL(context.Background(), `SELECT (SELECT count(*) FROM ref.regions), count(*), count(region_id), min(signup_date),
  pg_typeof(min(signup_date))::text, pg_typeof(min(segment))::text FROM customers`, 1)
	require.NoError(t, err)
	var got []string
	for _, c := range rs.Rows[0] {
		got = append(got, c.Render())
	}
	// 20 customers have no region: an empty CSV field is null.
	require.Equal(t, []string{"4", "1500", "1480", "2023-01-01", "date", "text"}, got)
}

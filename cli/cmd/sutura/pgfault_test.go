package main

import (
	"context"
	goruntime "runtime"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/adapters/postgres"
	"sutura.dev/adapters/postgres/pgtest"
	"sutura.dev/examples/demo"
)

// TestPostgresDiesUnderLoad (issue 28, fault suite): 32 callers ask the
// demo through the application's surface over a PostgreSQL cluster of the
// test's own, which is stopped mid-load and started again. While it is
// down every question ends promptly as unavailable (no other failure);
// once it is back, answers resume without a new source or surface; no
// goroutine is left behind; and every question that returned has exactly
// one audit record. It stops only its own cluster.
func TestPostgresDiesUnderLoad(t *testing.T) {
	pgtest.URL(t) // where the postgres tier runs
	out, err := tryFaultScript("pg", "start")
	if err != nil && !pgtest.Tier.Required() {
		t.Skipf("NOT RUN: postgres, a cluster of the test's own (%v)", err)
	}
	require.NoError(t, err)
	vars := scriptExports(out)
	dir := vars["SUTURA_PG_DIR"]
	require.NotEmpty(t, dir)
	t.Cleanup(func() { faultScript(t, "pg", "stop", dir) })
	t.Setenv("SUTURA_PG_URL", vars["SUTURA_PG_URL"])

	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	models := b.Definitions().Models
	d := pgtest.New(t) // on the cluster of its own
	d.Load(t, demo.Data(), models)
	cfg := d.Config(demo.SourceAlias, models)
	cfg.MaxConns = 8
	db, err := postgres.New(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(db.Close)
	ask, audit := faultApp(t, b, db)
	before := goruntime.NumGoroutine()

	const callers = 32
	load := underFault(t, callers, ask,
		func() { faultScript(t, "pg", "down", dir) }, func() { faultScript(t, "pg", "up", dir) })
	load.check(t)

	// No connection left behind: the source holds at most its pool.
	var backends int
	admin, err := pgx.Connect(context.Background(), vars["SUTURA_PG_URL"])
	require.NoError(t, err)
	defer admin.Close(context.Background())
	require.NoError(t, admin.QueryRow(context.Background(),
		"SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", "sutura/"+demo.SourceAlias).Scan(&backends))
	assert.LessOrEqual(t, backends, cfg.MaxConns, "backends of the source after the load")
	t.Logf("backends of the source after the load: %d (pool of %d)", backends, cfg.MaxConns)

	load.checkAudit(t, audit.Records(), faultWarm)
	noGoroutineLeft(t, before)
}

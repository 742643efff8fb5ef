package main

import (
	"context"
	"os/exec"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/adapters/clickhouse"
	"sutura.dev/adapters/clickhouse/chtest"
	"sutura.dev/examples/demo"
	"sutura.dev/testtier"
)

// TestClickHouseDiesUnderLoad (issue 28, fault suite): the fault test of
// PostgreSQL (TestPostgresDiesUnderLoad) on a ClickHouse server of the
// test's own (scripts/ch start), stopped while 32 callers ask and started
// again on the same ports. While it is down every question ends promptly
// as unavailable (no other failure); once it is back, answers resume
// without a new source or surface; the server holds no more connections
// of the source than its pool; no goroutine is left behind; and every
// question has exactly one audit record of its outcome. Without
// clickhouse-server it says NOT RUN (clickhouse tier). It stops only its
// own server.
func TestClickHouseDiesUnderLoad(t *testing.T) {
	if !serverInstalled("clickhouse-server", "/usr/sbin/clickhouse-server") || !serverInstalled("clickhouse-client", "/usr/bin/clickhouse-client") {
		testtier.Need(t, "clickhouse", "clickhouse-server and clickhouse-client are not installed, for a server of the test's own")
	}
	out, err := tryFaultScript("ch", "start")
	if err != nil {
		testtier.Need(t, "clickhouse", "a server of the test's own: "+err.Error())
	}
	vars := scriptExports(out)
	dir := vars["SUTURA_CH_DIR"]
	require.NotEmpty(t, dir)
	t.Cleanup(func() { faultScript(t, "ch", "stop", dir) })
	t.Setenv("SUTURA_CH_URL", vars["SUTURA_CH_URL"])

	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	models := b.Definitions().Models
	d := chtest.New(t) // on the server of its own
	d.Load(t, demo.Data(), models)
	cfg := d.Config(demo.SourceAlias, models)
	cfg.MaxConns = 8
	cfg.ConnectTimeout = 2 * time.Second
	db, err := clickhouse.New(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(db.Close)
	ask, audit := faultApp(t, b, db)
	before := goruntime.NumGoroutine()

	const callers = 32
	load := underFault(t, callers, ask,
		func() { faultScript(t, "ch", "down", dir) }, func() { faultScript(t, "ch", "up", dir) })
	load.check(t)

	// No connection left behind: the server holds at most the source's
	// pool (MaxConns and the one kept for stopping statements) and the
	// test's administrator connection, which reconnects after the restart.
	var conns uint64
	require.Eventually(t, func() bool {
		return d.Admin.QueryRow(context.Background(),
			"SELECT toUInt64(value) FROM system.metrics WHERE metric = 'TCPConnection'").Scan(&conns) == nil
	}, 10*time.Second, 100*time.Millisecond, "the administrator reconnects")
	assert.LessOrEqual(t, conns, uint64(cfg.MaxConns+1+1), "connections to the server after the load")
	t.Logf("connections to the server after the load: %d (pool of %d, 1 for stopping statements, 1 administrator)", conns, cfg.MaxConns)

	load.checkAudit(t, audit.Records(), faultWarm)
	noGoroutineLeft(t, before)
}

// serverInstalled reports whether the program name is on PATH or at path.
func serverInstalled(name, path string) bool {
	if _, err := exec.LookPath(name); err == nil {
		return true
	}
	_, err := exec.LookPath(path)
	return err == nil
}

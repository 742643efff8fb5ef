package main

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/adapters/clickhouse"
	"sutura.dev/adapters/clickhouse/chtest"
	"sutura.dev/app"
	"sutura.dev/examples/demo"
)

// The abilities a clickhouse source has.
var (
	_ app.DataSystem   = (*clickhouse.DB)(nil)
	_ app.Validator    = (*clickhouse.DB)(nil)
	_ app.SQLRunner    = (*clickhouse.DB)(nil)
	_ app.CostReporter = (*clickhouse.DB)(nil)
)

// TestServeAClickHouseSource serves the demo catalogue from the ClickHouse
// server of SUTURA_CH_URL (a required tier in CI: Debian's 18.16) with
// nothing but configuration: doctor reaches it, validate re-runs the 13
// anchors (each reads one table, so every server runs them), serve answers
// over HTTP with the embedded demo's answers and sutura mcp over stdio.
// The questions are those a server before 20.1 can run: through no join
// and through one. A question through two joins (area: orders → customers
// → regions) is refused there as federation_not_executable before
// anything is sent, and answered on a newer server.
func TestServeAClickHouseSource(t *testing.T) {
	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	d := chtest.New(t)
	d.Load(t, demo.Data(), b.Definitions().Models)
	cc := d.Config(demo.SourceAlias, nil)
	dir := demoConfig(t, "ch-1", fmt.Sprintf("{kind: clickhouse, posture: shared-service-user, host: %s, port: %d, database: %s, user: %s, password_file: chpass, transport_mode: plaintext}",
		cc.Host, cc.Port, cc.Database, cc.User), "", map[string][]byte{"chpass": cc.Password})
	s := servesTheDemo(t, dir, "clickhouse", cc.Password, byChannel, byCategory)

	version := d.Version(t)
	status, _, body := s.do(t, "POST", "/v1/query", byArea)
	if before(version, 20, 1) {
		assert.Equal(t, 409, status, body)
		assert.Contains(t, body, "federation_not_executable", "ClickHouse %s runs one join per statement", version)
		return
	}
	require.Equal(t, 200, status, body)
	assert.Equal(t, demoRows(t, byArea), rowsOf(t, body))
}

// before reports whether a ClickHouse version such as 18.16.1 is older
// than major.minor.
func before(version string, major, minor int) bool {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, _ := strconv.Atoi(parts[0])
	mi, _ := strconv.Atoi(parts[1])
	return ma < major || ma == major && mi < minor
}

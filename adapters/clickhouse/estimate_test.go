package clickhouse_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEstimate: a server with EXPLAIN ESTIMATE (21.9 and later) estimates
// a question's bytes, a narrow range no more than a wide one; an older
// server says unknown.
func TestEstimate(t *testing.T) {
	d := loaded(t)
	db := open(t, d.Config(source, demoModels()))
	b := demoBundle(t)
	ctx := context.Background()
	srv, err := db.Server(ctx)
	require.NoError(t, err)
	year, known, err := db.Estimate(ctx, compile(t, b, `{"metrics":["order_count"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`))
	require.NoError(t, err)
	if !srv.ExplainEstimate() {
		assert.False(t, known, "ClickHouse %s has no EXPLAIN ESTIMATE", srv.Version)
		return
	}
	require.True(t, known)
	assert.Positive(t, year)
	month, known, err := db.Estimate(ctx, compile(t, b, `{"metrics":["order_count"],"grain":"month","range":{"start":"2025-03-01","end":"2025-04-01"}}`))
	require.NoError(t, err)
	require.True(t, known)
	assert.LessOrEqual(t, month, year)
	t.Logf("ClickHouse %s: month %d bytes, year %d", srv.Version, month, year)
}

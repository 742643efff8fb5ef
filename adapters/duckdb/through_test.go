//go:build cgo

package duckdb_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/adapters/duckdb/ducktest"
	"sutura.dev/domain"
)

// TestDataThrough: the newest day of a model's time column is DuckDB's own
// max over it; a model the source does not serve and an empty table tell
// nothing (docs/contract.md §16).
func TestDataThrough(t *testing.T) {
	ctx := context.Background()
	path := demoFile(t)
	w, err := sqlOpenWriter(path)
	require.NoError(t, err)
	var want time.Time
	require.NoError(t, w.QueryRow(`SELECT max(order_date) FROM orders`).Scan(&want))
	require.NoError(t, w.Close())

	db := open(t, ducktest.Config(source, path, demoModels()))
	got, ok, err := db.DataThrough(ctx, "orders", "order_date")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, domain.DateFromTime(want), got)

	_, ok, err = db.DataThrough(ctx, "not_a_model", "order_date")
	require.NoError(t, err)
	assert.False(t, ok)

	empty := openDemo(t, "DELETE FROM customers")
	_, ok, err = empty.DataThrough(ctx, "customers", "signup_date")
	require.NoError(t, err)
	assert.False(t, ok, "an empty table tells no day")
}

//go:build cgo

package duckdb_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEstimateFromThePlan(t *testing.T) {
	db := openDemo(t)
	b := demoBundle(t)
	est := func(q string) int64 {
		n, known, err := db.Estimate(context.Background(), compile(t, b, q))
		require.NoError(t, err)
		require.True(t, known)
		return n
	}
	year := est(`{"metrics":["order_count"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`)
	month := est(`{"metrics":["order_count"],"grain":"month","range":{"start":"2025-03-01","end":"2025-04-01"}}`)
	wide := est(`{"metrics":["order_count"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"},"dimensions":["channel","product_category"]}`)
	assert.Positive(t, month)
	// DuckDB estimates a range filter with a fixed selectivity: a month is
	// not estimated below a year.
	assert.LessOrEqual(t, month, year)
	assert.Greater(t, wide, year, "more columns and a join estimate more")
	t.Logf("month %d, year %d, by channel and category %d", month, year, wide)
}

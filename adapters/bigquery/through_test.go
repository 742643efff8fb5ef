package bigquery_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/bigquery/bqtest"
	"sutura.dev/domain"
)

// TestDataThrough: data_through (docs/contract.md §16) is one MAX() job
// over the model's time column in its table, under the source's
// maximum_bytes_billed; a column with no value, a model of another
// source and a job that fails tell nothing.
func TestDataThrough(t *testing.T) {
	d := bqtest.Start(t)
	d.Answer(bqtest.Answer{Match: "MAX(", Schema: []bqtest.Field{{Name: "through", Type: "DATE"}}, Rows: [][]any{{"2026-06-30"}}})
	cfg := config(d)
	cfg.MaximumBytesBilled = 1 << 30
	db := open(t, cfg)
	last, ok, err := db.DataThrough(context.Background(), "orders", "order_date")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, domain.DateOf(2026, 6, 30), last)
	jobs := d.Jobs()
	require.Len(t, jobs, 1)
	assert.Equal(t, "SELECT CAST(MAX(`order_date`) AS DATE) AS through FROM `proj-sutura`.`shop`.`orders`", jobs[0].Query)
	assert.Equal(t, int64(1<<30), jobs[0].MaximumBytesBilled, "bounded like a question")

	_, ok, err = db.DataThrough(context.Background(), "no_such_model", "order_date")
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Len(t, d.Jobs(), 1, "a model of another source asks nothing")

	empty := bqtest.Start(t)
	empty.Answer(bqtest.Answer{Match: "MAX(", Schema: []bqtest.Field{{Name: "through", Type: "DATE"}}, Rows: [][]any{{nil}}})
	_, ok, err = open(t, config(empty)).DataThrough(context.Background(), "orders", "order_date")
	require.NoError(t, err)
	assert.False(t, ok, "an empty column tells nothing")

	over := bqtest.Start(t)
	over.Answer(bqtest.Answer{Match: "MAX(", Error: &bqtest.APIError{Status: 400, Reason: "bytesBilledLimitExceeded", Message: "Query exceeded limit for bytes billed"}})
	_, ok, err = open(t, config(over)).DataThrough(context.Background(), "orders", "order_date")
	assert.Error(t, err)
	assert.False(t, ok)
}

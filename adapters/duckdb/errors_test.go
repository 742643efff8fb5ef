//go:build cgo

package duckdb_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	duckdb "sutura.dev/adapters/duckdb"
	"sutura.dev/adapters/duckdb/ducktest"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
)

// TestFaultsAreFixedSentences: a question DuckDB fails (here, a column
// the catalogue declares and the file lacks, which Validate would have
// reported at start) is an *Error whose text names the source and the
// kind of error, never DuckDB's message or any name from the statement.
func TestFaultsAreFixedSentences(t *testing.T) {
	path := demoFile(t, `CREATE VIEW orders_without_status AS SELECT * EXCLUDE (status) FROM orders`)
	defs := conformance.DemoDefinitions(source)
	for i := range defs.Models {
		if defs.Models[i].Name == "orders" {
			defs.Models[i].Table = "orders_without_status"
		}
	}
	b, err := domain.NewBundle("broken", defs, domain.Knowledge{})
	require.NoError(t, err)
	db := open(t, ducktest.Config(source, path, defs.Models))
	require.Error(t, db.Validate(context.Background()))
	_, err = db.Execute(context.Background(), compile(t, b,
		`{"metrics":["order_count"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`))
	var e *duckdb.Error
	require.True(t, errors.As(err, &e), "error: %v", err)
	assert.Equal(t, "duckdb source demo: the statement failed (binder error)", err.Error())
	assert.NotContains(t, err.Error(), "status")
	assert.NotErrorIs(t, err, domain.ErrUnavailable)
	assert.Contains(t, e.Message, "status", "DuckDB's message is kept for a statement's author")
}

// TestPlanForAnotherSource: a plan whose leg reads another source is not
// executed.
func TestPlanForAnotherSource(t *testing.T) {
	db := open(t, ducktest.Config("other", demoFile(t), conformance.DemoDefinitions("other").Models))
	_, err := db.Execute(context.Background(), compile(t, demoBundle(t),
		`{"metrics":["order_count"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the plan reads source demo")
	_, err = db.Execute(context.Background(), nil)
	require.Error(t, err)
}

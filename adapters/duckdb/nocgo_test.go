//go:build !cgo

package duckdb_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	duckdb "sutura.dev/adapters/duckdb"
	"sutura.dev/domain"
	"sutura.dev/testtier"
)

// TestWithoutCgo: a build without cgo has no DuckDB; New still checks the
// configuration, and then refuses with ErrNoDuckDB. Every other test of
// this package needs DuckDB: it is reported as not run (or fails when CI
// requires the duckdb tier).
func TestWithoutCgo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.duckdb")
	require.NoError(t, os.WriteFile(path, []byte("x"), 0o600))
	_, err := duckdb.New(context.Background(), duckdb.Config{Source: "demo", Path: path})
	require.ErrorIs(t, err, duckdb.ErrNoDuckDB)
	_, err = duckdb.New(context.Background(), duckdb.Config{Source: "demo", Path: path, Posture: domain.ImpersonationAtSource})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "posture")

	testtier.Need(t, "duckdb", "built without cgo: CGO_ENABLED=0")
}

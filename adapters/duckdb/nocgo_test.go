//go:build !cgo

package duckdb_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	duckdb "sutura.dev/adapters/duckdb"
	"sutura.dev/domain"
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

	for _, tier := range strings.Split(os.Getenv("SUTURA_REQUIRE_TIERS"), ",") {
		if strings.TrimSpace(tier) == "duckdb" {
			t.Fatal("duckdb is a required tier (SUTURA_REQUIRE_TIERS) but this test binary was built without cgo")
		}
	}
	t.Skip("NOT RUN: duckdb (built without cgo: CGO_ENABLED=0)")
}

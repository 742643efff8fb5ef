//go:build cgo

package duckdb_test

import (
	"database/sql"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	duckdb "sutura.dev/adapters/duckdb"
	"sutura.dev/adapters/duckdb/ducktest"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
)

// The tests build their DuckDB files at test time from the demo's CSV
// files (examples/demo/data) with ducktest; nothing is committed. DuckDB
// is linked into the test binary, so every test here always runs.

const (
	source  = sqltest.DemoSource
	dataDir = sqltest.DemoData
)

// demoModels are the demo catalogue's models, as the conformance suite
// mirrors them.
func demoModels() []domain.Model { return conformance.DemoDefinitions(source).Models }

// demoFile builds a DuckDB file of the demo tables (and runs setup on it)
// and returns its path.
func demoFile(t *testing.T, setup ...string) string {
	t.Helper()
	return ducktest.Build(t, os.DirFS(dataDir), demoModels(), setup...)
}

// open opens the source cfg describes and closes it when t ends.
func open(t *testing.T, cfg duckdb.Config) *duckdb.DB { return sqltest.Open(t, duckdb.New, cfg) }

// openDemo opens a source over a fresh demo file.
func openDemo(t *testing.T, setup ...string) *duckdb.DB {
	t.Helper()
	return open(t, ducktest.Config(source, demoFile(t, setup...), demoModels()))
}

// demoBundle is the mirrored demo catalogue.
func demoBundle(t *testing.T) *domain.Bundle {
	t.Helper()
	b, err := conformance.DemoBundle(source)
	require.NoError(t, err)
	return b
}

// sqlOpenWriter opens the database file at path for writing.
func sqlOpenWriter(path string) (*sql.DB, error) {
	db, err := sql.Open("duckdb", path)
	if err != nil {
		return nil, err
	}
	return db, db.Ping()
}

// The helpers every SQL adapter's tests share.
var (
	cols        = sqltest.Cols
	rendered    = sqltest.Rendered
	refusalCode = sqltest.RefusalCode
)

// compile compiles a wire question against b as the local operator.
func compile(t *testing.T, b *domain.Bundle, question string) *domain.Plan {
	t.Helper()
	return sqltest.Compile(t, b, domain.LocalOperator, question)
}

// compileQuestion compiles q against b as the local operator.
func compileQuestion(t *testing.T, b *domain.Bundle, q domain.Question) *domain.Plan {
	t.Helper()
	return sqltest.CompileQuestion(t, b, domain.LocalOperator, q)
}

//go:build !cgo

package duckdb

import (
	"context"
	"errors"
	"fmt"

	"sutura.dev/domain"
)

// DuckDB is a C++ library linked in through cgo. A binary built without
// cgo (CGO_ENABLED=0) still builds with this package, so that a program
// that opens its sources from configuration builds either way; it only
// cannot open a duckdb source. The API is the same; New validates the
// configuration and then refuses with ErrNoDuckDB.

// ErrNoDuckDB is New's error in a build without cgo.
var ErrNoDuckDB = errors.New("this binary was built without cgo (CGO_ENABLED=0), so it has no DuckDB: build it with cgo to read duckdb sources")

// DB is one duckdb source. In a build without cgo there is none: New
// never returns one.
type DB struct{ cfg Config }

// New validates cfg as a build with cgo does, and then refuses with
// ErrNoDuckDB.
func New(ctx context.Context, cfg Config) (*DB, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("duckdb source %s: %w", cfg.Source, ErrNoDuckDB)
}

// Close does nothing.
func (db *DB) Close() {}

// Source returns the configured source alias.
func (db *DB) Source() string { return db.cfg.Source }

// Posture returns shared-service-user.
func (db *DB) Posture() domain.Posture { return domain.SharedServiceUser }

// Ping returns ErrNoDuckDB.
func (db *DB) Ping(context.Context) error { return ErrNoDuckDB }

// Execute returns ErrNoDuckDB.
func (db *DB) Execute(context.Context, *domain.Plan) (*domain.RowSet, error) { return nil, ErrNoDuckDB }

// Validate returns ErrNoDuckDB.
func (db *DB) Validate(context.Context) error { return ErrNoDuckDB }

// RunSQL returns ErrNoDuckDB.
func (db *DB) RunSQL(context.Context, string, int) (*domain.RowSet, error) { return nil, ErrNoDuckDB }

// Estimate fails as every call of a build without DuckDB does.
func (db *DB) Estimate(context.Context, *domain.Plan) (int64, bool, error) {
	return 0, false, ErrNoDuckDB
}

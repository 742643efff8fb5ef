//go:build cgo

package duckdb

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"time"

	duck "github.com/duckdb/duckdb-go/v2"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// DB is one duckdb source: a DuckDB database file opened read-only, and
// the connections questions run on. It is safe for concurrent use.
type DB struct {
	cfg    Config
	db     *sql.DB
	spill  string // the temporary directory this DB made, removed by Close
	closed atomic.Bool
}

// openTimeout bounds opening the database and setting it up.
const openTimeout = 30 * time.Second

// New opens the database file cfg names, read-only. It validates the
// configuration first and refuses, naming the key, a missing or unreadable
// file and the posture impersonation-at-source. The database is opened
// here, so a file DuckDB cannot read (not a DuckDB database, a newer
// storage version, or held open for writing by another process) is
// reported by New, as an *Error.
func New(ctx context.Context, cfg Config) (*DB, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	connector, err := duck.NewConnector(cfg.dsn(), nil)
	if err != nil {
		return nil, openError(cfg.Source, err)
	}
	db := sql.OpenDB(connector) // its Close closes the connector
	db.SetMaxOpenConns(cfg.MaxConns)
	db.SetMaxIdleConns(cfg.MaxConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	ctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	spill, err := setUp(ctx, db)
	if err != nil {
		_ = db.Close()
		return nil, setUpError(cfg.Source, err)
	}
	return &DB{cfg: cfg, db: db, spill: spill}, nil
}

// setUp sets what the connection string cannot, before any statement
// runs, and then locks every setting, so that no statement can change
// one: no access to any file but the database's own
// (enable_external_access off: no ATTACH, COPY, read_csv, glob, remote
// URL or extension file); the time zone UTC, so a timestamp is bucketed
// by its UTC date as in the engine; and a spill directory of its own under
// the system's temporary directory rather than beside the database file.
// It returns that directory. A database this process already opened with
// the same connection string is shared by DuckDB and is set up already
// (its first DB owns the spill directory).
func setUp(ctx context.Context, db *sql.DB) (string, error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer c.Close()
	var locked, external bool
	var tz string
	row := c.QueryRowContext(ctx, "SELECT current_setting('lock_configuration'), current_setting('enable_external_access'), current_setting('TimeZone')")
	if err := row.Scan(&locked, &external, &tz); err != nil {
		return "", err
	}
	if locked {
		if external || tz != "UTC" {
			return "", errors.New("it is open in this process with other settings")
		}
		return "", nil
	}
	spill, err := os.MkdirTemp("", "sutura-duckdb-")
	if err != nil {
		return "", err
	}
	for _, s := range []string{
		"SET GLOBAL temp_directory = '" + strings.ReplaceAll(spill, "'", "''") + "'",
		"SET GLOBAL enable_external_access = false",
		"SET GLOBAL TimeZone = 'UTC'",
		"SET GLOBAL lock_configuration = true",
	} {
		if _, err := c.ExecContext(ctx, s); err != nil {
			_ = os.RemoveAll(spill)
			return "", err
		}
	}
	return spill, nil
}

// Close closes the database and removes its spill directory. Calls in
// flight are interrupted by their own contexts, not by Close; calls after
// Close fail with an *Error of kind domain.ErrUnavailable.
func (db *DB) Close() {
	if db.closed.CompareAndSwap(false, true) {
		_ = db.db.Close()
		if db.spill != "" {
			_ = os.RemoveAll(db.spill)
		}
	}
}

// Source returns the configured source alias.
func (db *DB) Source() string { return db.cfg.Source }

// Posture returns the posture the source's legs run under: always
// shared-service-user.
func (db *DB) Posture() domain.Posture { return db.cfg.Posture }

// Ping runs an empty query on a connection: what `sutura doctor` asks to
// tell whether the source can be used. The error is an *Error or ctx's.
func (db *DB) Ping(ctx context.Context) error {
	return db.withConn(ctx, func(ctx context.Context, c *sql.Conn) error {
		var one int
		return c.QueryRowContext(ctx, "SELECT 1").Scan(&one)
	})
}

// Execute runs plan: the app.DataSystem port; anchors at start-up come
// this way too. It returns the rows, a *domain.RefusalError, ctx.Err()
// when ctx was cancelled, an error wrapping domain.ErrZeroDenominator, or
// an *Error; the package documentation says which is which.
func (db *DB) Execute(ctx context.Context, plan *domain.Plan) (*domain.RowSet, error) {
	query, args, err := sqlsource.Render(ctx, "duckdb", db.cfg.Source, plan, semantic.DuckDB)
	if err != nil {
		return nil, err
	}
	rowCap, byteCap := plan.Bounds()
	var rs *domain.RowSet
	err = db.withConn(ctx, func(ctx context.Context, c *sql.Conn) error {
		rows, err := c.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		rs, err = readRows(rows, rowCap, byteCap, plan.Columns, sqlsource.DetailTooManyRows)
		return err
	})
	if isZeroDenominator(err) {
		return nil, plan.ZeroDenominatorError()
	}
	if err != nil {
		return nil, err
	}
	return rs, nil
}

// withConn calls fn with a connection of the pool, under
// Config.DefaultTimeout when ctx has no deadline, and classifies its
// error. When ctx ends, the driver interrupts the statement running on the
// connection (duckdb_interrupt), which stops DuckDB's work between
// vectors.
func (db *DB) withConn(ctx context.Context, fn func(context.Context, *sql.Conn) error) error {
	ctx, cancel := sqlsource.Budget(ctx, db.cfg.DefaultTimeout)
	defer cancel()
	src := db.cfg.Source
	if db.closed.Load() {
		return classify(ctx, src, errClosed)
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= 0 {
		return refusal(domain.DeadlineExceeded, sqlsource.DetailDeadline)
	}
	c, err := db.db.Conn(ctx)
	if err != nil {
		if errors.Is(err, sql.ErrConnDone) || db.closed.Load() {
			err = errors.Join(errClosed, err)
		}
		return classify(ctx, src, err)
	}
	defer c.Close()
	return classify(ctx, src, fn(ctx, c))
}

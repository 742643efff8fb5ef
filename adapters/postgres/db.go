package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// DB is one postgres source: a pool of connections as the service user
// and the posture its legs run under. It is safe for concurrent use.
type DB struct {
	cfg  Config
	ids  *sqlsource.Identities
	pool *pgxpool.Pool
}

// New returns the source cfg describes. It validates the configuration and
// builds the pool without connecting: the first call (Validate or Ping at
// start, or a question) connects, so a database that is down at start is
// reported by those calls, and a source opened while its database is down
// answers as soon as it is back.
func New(ctx context.Context, cfg Config) (*DB, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	pc, err := cfg.poolConfig()
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("postgres source %s: the connection pool cannot be built", cfg.Source)
	}
	return &DB{cfg: cfg, ids: cfg.identities(), pool: pool}, nil
}

// Close closes every connection of the pool, waiting for connections in
// use to be given back.
func (db *DB) Close() { db.pool.Close() }

// Source returns the configured source alias.
func (db *DB) Source() string { return db.cfg.Source }

// Posture returns the posture the source's legs run under.
func (db *DB) Posture() domain.Posture { return db.cfg.Posture }

// Ping connects (or takes a pooled connection) and runs an empty
// statement: what `sutura doctor` asks to tell whether the source can be
// reached. The error is an *Error (errors.Is domain.ErrUnavailable when
// the database cannot be reached) or ctx's.
func (db *DB) Ping(ctx context.Context) error {
	// The transaction's BEGIN and COMMIT are the round trips.
	return db.run(ctx, "", func(context.Context, *pgxpool.Conn) error { return nil })
}

// Execute runs plan as the source's own identity: the service user under
// shared-service-user, Config.VerificationIdentity under
// impersonation-at-source (refused as credential_unavailable when none is
// configured). It is the app.DataSystem port; anchors at start-up come this
// way. Outcomes are as the package documentation states.
func (db *DB) Execute(ctx context.Context, plan *domain.Plan) (*domain.RowSet, error) {
	role, err := db.ownRole()
	if err != nil {
		return nil, err
	}
	return db.execute(ctx, role, plan)
}

// ExecuteAs runs plan for principal: as the service user under
// shared-service-user, and under impersonation-at-source as the database
// role Config.Impersonate maps principal.Subject to. A subject with no
// role is refused as credential_unavailable before the database is asked;
// there is no fallback to the service user.
func (db *DB) ExecuteAs(ctx context.Context, principal domain.Principal, plan *domain.Plan) (*domain.RowSet, error) {
	role, err := db.roleOf(principal)
	if err != nil {
		return nil, err
	}
	return db.execute(ctx, role, plan)
}

// ownRole is the role of a call without a caller ("" is the service user).
func (db *DB) ownRole() (string, error) { return db.ids.Own() }

// roleOf is the role principal's legs run as ("" is the service user).
func (db *DB) roleOf(p domain.Principal) (string, error) { return db.ids.Of(p) }

func (db *DB) execute(ctx context.Context, role string, plan *domain.Plan) (*domain.RowSet, error) {
	query, args, err := sqlsource.Render(ctx, "postgres", db.cfg.Source, plan, semantic.Postgres)
	if err != nil {
		return nil, err
	}
	rowCap, byteCap := plan.Bounds()
	var rs *domain.RowSet
	err = db.run(ctx, role, func(ctx context.Context, conn *pgxpool.Conn) error {
		rows, err := conn.Query(ctx, query, append(execMode(query, binaryResults), args...)...)
		if err != nil {
			return err
		}
		// The statement's LIMIT leaves at most one row to drain.
		defer rows.Close()
		got, err := readRows(rows, rowCap, byteCap, plan.Columns, sqlsource.DetailTooManyRows)
		if err != nil {
			return err
		}
		rs = got
		return nil
	})
	var e *Error
	if errors.As(err, &e) && e.Code == "22012" {
		return nil, plan.ZeroDenominatorError()
	}
	if err != nil {
		return nil, err
	}
	return rs, nil
}

// rollbackTimeout bounds ending a transaction whose context is over.
const rollbackTimeout = 2 * time.Second

// run calls fn inside a READ ONLY transaction whose statement_timeout is
// the rest of ctx's budget (Config.DefaultTimeout when ctx has no
// deadline), under role when it is not empty. A call whose
// connection broke before fn returned a result is run once more on a fresh
// connection (see the package documentation). The error is classified.
func (db *DB) run(ctx context.Context, role string, fn func(context.Context, *pgxpool.Conn) error) error {
	return db.retry(ctx, role, false, fn)
}

// runAlone is run for a statement sutura did not write. Its connection is
// closed afterwards rather than given back to the pool, since the
// statement could leave state that outlives its transaction on the
// session (PREPARE, DEALLOCATE, session advisory locks). And it is not run
// again once sent: a broken connection may be the statement's own doing
// (pg_terminate_backend(pg_backend_pid())), which a second run would only
// repeat.
func (db *DB) runAlone(ctx context.Context, role string, fn func(context.Context, *pgxpool.Conn) error) error {
	return db.retry(ctx, role, true, fn)
}

func (db *DB) retry(ctx context.Context, role string, alone bool, fn func(context.Context, *pgxpool.Conn) error) error {
	ctx, cancel := sqlsource.Budget(ctx, db.cfg.DefaultTimeout)
	defer cancel()
	sent, err := db.runOnce(ctx, role, alone, fn)
	if err != nil && retryable(err) && ctx.Err() == nil && !(alone && sent) {
		_, err = db.runOnce(ctx, role, alone, fn)
	}
	return err
}

// runOnce is one attempt of run; sent reports whether fn was called, that
// is whether the statement may have reached the server.
func (db *DB) runOnce(ctx context.Context, role string, discard bool, fn func(context.Context, *pgxpool.Conn) error) (sent bool, err error) {
	src := db.cfg.Source
	dl, _ := ctx.Deadline()
	left := time.Until(dl)
	if left <= 0 || ctx.Err() != nil {
		return false, classify(ctx, src, stepSetup, context.DeadlineExceeded)
	}
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return false, classify(ctx, src, stepSetup, err)
	}
	// The transaction always ends with ROLLBACK: it read only, and a
	// rollback also undoes any SET a statement made. A connection given
	// back inside a transaction (the ROLLBACK failed: its error changes
	// nothing for the caller, whose rows are complete or whose error is
	// already known) is closed by the pool rather than reused.
	defer func() {
		_ = db.end(ctx, conn, discard)
		conn.Release()
	}()
	// BEGIN, the timeout and the role in one round trip. SET LOCAL ends
	// with the transaction, so a pooled connection carries nothing to the
	// next call.
	setup := "BEGIN READ ONLY; SET LOCAL statement_timeout = " + strconv.FormatInt(max(left.Milliseconds(), 1), 10)
	if role != "" {
		setup += "; SET LOCAL ROLE " + pgx.Identifier{role}.Sanitize()
	}
	if _, err := conn.Exec(ctx, setup); err != nil {
		return false, classify(ctx, src, stepSetup, err)
	}
	return true, classify(ctx, src, stepStatement, fn(ctx, conn))
}

// end rolls the transaction back with a context of its own (the
// caller's may be over), and closes the connection when discard is set.
func (db *DB) end(ctx context.Context, conn *pgxpool.Conn, discard bool) error {
	c := conn.Conn()
	if c.IsClosed() {
		return nil
	}
	endCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
	defer cancel()
	if discard {
		return c.Close(endCtx)
	}
	_, err := c.Exec(endCtx, "ROLLBACK")
	return err
}

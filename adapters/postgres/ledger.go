package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"sutura.dev/adapters/sqlsource"
)

// LedgerTable is the table the budget ledger keeps its windows in, one row
// per caller (docs/contract.md §15).
const LedgerTable = "sutura_budget_ledger"

// Ledger is the budget ledger in a table of a postgres source's database
// (governance.budget_ledger: postgres): every replica that shares the
// database shares the windows, and they survive restarts. Each debit is
// one atomic statement, so concurrent replicas never lose one; a check
// and the debit that follows its answer are two statements, so replicas
// overdraw a window by at most the questions in flight between them. It
// satisfies the ledger port of sutura.dev/app/budget and is safe for
// concurrent use.
type Ledger struct {
	source string
	pool   *pgxpool.Pool
}

// ledgerSchema creates the table when it is missing.
const ledgerSchema = `CREATE TABLE IF NOT EXISTS ` + LedgerTable + ` (
	subject      text PRIMARY KEY,
	window_start timestamptz NOT NULL,
	bytes        bigint NOT NULL,
	questions    bigint NOT NULL)`

// NewLedger opens the ledger in the database of cfg (the source named by
// governance.budget_ledger_source) on a pool of its own, since the ledger
// writes and the source's legs only read, and creates its table when it is
// missing. A database that cannot be reached at start is not an error:
// the ledger then refuses every debit (and the pipeline every question)
// until it can be reached, and the table is created then.
func NewLedger(ctx context.Context, cfg Config) (*Ledger, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	pc, err := cfg.poolConfig()
	if err != nil {
		return nil, err
	}
	pc.ConnConfig.RuntimeParams["application_name"] = "sutura/" + cfg.Source + "/ledger"
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("postgres source %s: the ledger's connection pool cannot be built", cfg.Source)
	}
	l := &Ledger{source: cfg.Source, pool: pool}
	_ = l.ensure(ctx) // reported by Ping and every call until it succeeds
	return l, nil
}

// Close closes the ledger's connections.
func (l *Ledger) Close() { l.pool.Close() }

// ensure creates the table when it is missing. Two replicas starting at
// once may both try; the loser's duplicate error means the table exists.
func (l *Ledger) ensure(ctx context.Context) error {
	ctx, cancel := sqlsource.Budget(ctx, 10*time.Second)
	defer cancel()
	_, err := l.pool.Exec(ctx, ledgerSchema)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.Code == "23505" || pgErr.Code == "42P07") {
		return nil
	}
	if err != nil {
		return classify(ctx, l.source, stepStatement, err)
	}
	return nil
}

// missing reports whether err is the table not existing yet (a database
// that was down when the ledger opened).
func missing(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "42P01"
}

// Ping is nil when the ledger's table can be read now.
func (l *Ledger) Ping(ctx context.Context) error {
	_, _, _, err := l.Spent(ctx, "", time.Now(), time.Second)
	return err
}

// Spent returns key's window at now: its start and what it spent, or an
// empty window starting at now when the stored one has ended. A clock
// stepped back (now before the stored start) stays in the stored window.
func (l *Ledger) Spent(ctx context.Context, key string, now time.Time, window time.Duration) (time.Time, int64, int64, error) {
	var (
		start            time.Time
		bytes, questions int64
	)
	err := l.call(ctx, func(ctx context.Context) error {
		err := l.pool.QueryRow(ctx, `SELECT window_start, bytes, questions FROM `+LedgerTable+` WHERE subject = $1`, key).
			Scan(&start, &bytes, &questions)
		if errors.Is(err, pgx.ErrNoRows) {
			start, bytes, questions = now, 0, 0
			return nil
		}
		return err
	})
	if err != nil {
		return time.Time{}, 0, 0, err
	}
	if !now.Before(start.Add(window)) {
		return now, 0, 0, nil
	}
	return start, bytes, questions, nil
}

// debitStatement adds $3 bytes and one question to subject $1's window at
// $2, or opens a new window at $2 when the stored one ended $4 seconds
// after its start; in one statement, so concurrent debits serialise on the
// row. Every expression of SET reads the row as it was.
const debitStatement = `INSERT INTO ` + LedgerTable + ` AS l (subject, window_start, bytes, questions)
VALUES ($1, $2, $3, 1)
ON CONFLICT (subject) DO UPDATE SET
	window_start = CASE WHEN $2 >= l.window_start + make_interval(secs => $4) THEN $2 ELSE l.window_start END,
	bytes        = CASE WHEN $2 >= l.window_start + make_interval(secs => $4) THEN $3 ELSE l.bytes + $3 END,
	questions    = CASE WHEN $2 >= l.window_start + make_interval(secs => $4) THEN 1 ELSE l.questions + 1 END`

// Debit adds bytes and one question to key's window at now, atomically.
func (l *Ledger) Debit(ctx context.Context, key string, now time.Time, window time.Duration, bytes int64) error {
	return l.call(ctx, func(ctx context.Context) error {
		_, err := l.pool.Exec(ctx, debitStatement, key, now, bytes, window.Seconds())
		return err
	})
}

// call runs fn under a bounded budget, creating the table first when it
// is missing (the database was down when the ledger opened); the error is
// classified, domain.ErrUnavailable when the database cannot be reached.
func (l *Ledger) call(ctx context.Context, fn func(context.Context) error) error {
	ctx, cancel := sqlsource.Budget(ctx, 10*time.Second)
	defer cancel()
	err := fn(ctx)
	if missing(err) {
		if err = l.ensure(ctx); err == nil {
			err = fn(ctx)
		}
	}
	if err != nil {
		return classify(ctx, l.source, stepStatement, err)
	}
	return nil
}

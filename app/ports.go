package app

import (
	"context"

	"sutura.dev/domain"
)

// DataSystem executes plans on one configured source. Execute returns the
// answer's rows, a *domain.RefusalError when execution ends in a refusal
// (row cap, byte bound, working set, deadline, authorization), ctx's error
// when ctx ended, or an error wrapping one error kind of package domain
// when the data system failed (domain.ErrUnavailable, domain.ErrRejected,
// domain.ErrZeroDenominator, domain.ErrDefect); the failure table maps
// kinds to codes, and an error wrapping none is reported as internal.
// Execute must stop its work when ctx is cancelled.
type DataSystem interface {
	Execute(ctx context.Context, plan *domain.Plan) (*domain.RowSet, error)
}

// Validator is the optional ability of a data system to check, at start,
// that every table and declared column of its models can be read. Start-up
// validation calls it when a data system has it.
type Validator interface {
	Validate(ctx context.Context) error
}

// CostReporter is the optional ability of a data system to measure what
// executing a plan took (docs/contract.md §6, in-process: the realized cost).
// ExecuteWithCost behaves exactly as Execute and also returns the rows the
// system scanned (after pruning) and the bytes it read, for this execution
// alone, whatever else runs at the same time. The cost is reported even
// when the error is not nil: it is what was spent until the work stopped.
// The surface fills in the rows returned, the elapsed time and the sources
// itself, so a data system may leave them zero.
type CostReporter interface {
	ExecuteWithCost(ctx context.Context, plan *domain.Plan) (*domain.RowSet, domain.Cost, error)
}

// Preparer is the optional ability of a data system to ready itself for
// plans it is about to execute, all of them, before the first: the
// embedded engine answers the plans that read one table in one scan of it
// (docs/operations.md, "Anchors and a question share a scan"). Prepare never fails a plan:
// what it could not ready is executed as before.
type Preparer interface {
	Prepare(ctx context.Context, plans []*domain.Plan)
}

// PrincipalExecutor is the optional ability of a data system to run a plan
// as the caller (posture impersonation-at-source), so the database's own
// grants and row-level security decide per caller. A data system without
// it cannot back an impersonating source.
type PrincipalExecutor interface {
	ExecuteAs(ctx context.Context, principal domain.Principal, plan *domain.Plan) (*domain.RowSet, error)
}

// AuditSink stores audit records. Write must not return before the record
// is stored as durably as the sink promises.
type AuditSink interface {
	Write(ctx context.Context, rec domain.AuditRecord) error
}

// Catalog hands out the pinned bundle in force. A refresh swaps a whole
// bundle atomically; a caller keeps the bundle it got for the whole of one
// question.
type Catalog interface {
	Bundle() *domain.Bundle
}

// CatalogNotifier is the optional ability of a Catalog to tell when it
// swapped its bundle (a configured refresh). Subscribe registers fn to be
// called with every later event, synchronously and in order, until the
// returned function is called; fn must not block.
type CatalogNotifier interface {
	Subscribe(fn func(CatalogEvent)) (unsubscribe func())
}

// Source is a configured data system and the posture its legs run under.
type Source struct {
	System  DataSystem
	Posture domain.Posture
}

// SQLRunner is the optional ability of a data system to run one statement
// of run_sql (docs/contract.md §6): in a read-only transaction under ctx's
// deadline, returning at most rowCap rows named after the result's fields,
// with no role and no provenance. More rows than rowCap is a
// *domain.RefusalError (result_too_large), never a truncated result; a
// statement that tries to write or lacks a permission is a
// *domain.RefusalError (source_refused); ctx's error when ctx ended;
// an error wrapping domain.ErrRejected when the data system failed the
// statement itself (its author's to fix: statement_failed), and one
// wrapping another kind, as Execute's, when the data system failed to run
// it. Such an error's text is never shown: it may quote the statement.
// RunSQL must stop its work
// when ctx is cancelled. The *DB of sutura.dev/adapters/postgres and of
// sutura.dev/adapters/duckdb have it.
type SQLRunner interface {
	RunSQL(ctx context.Context, statement string, rowCap int) (*domain.RowSet, error)
}

// PostureReporter is the optional ability of a data system to say the
// posture it runs under, when its own configuration holds it (the
// Postgres adapter's does). New refuses a Source whose Posture differs,
// so the posture of a source has one origin.
type PostureReporter interface {
	Posture() domain.Posture
}

// SQLPrivilegeChecker is the optional ability of a data system that runs
// run_sql (SQLRunner) to check, at start, that its login role cannot do
// more than a read-only statement says: not a superuser, and none of the
// roles that reach the server's files, programs or other sessions. The
// start-up validation (Surface.Check) calls it on the run_sql source when
// run_sql is enabled, and refuses to start when it fails.
type SQLPrivilegeChecker interface {
	CheckSQLPrivileges(ctx context.Context) error
}

package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"sutura.dev/domain"
	"sutura.dev/runtime"
)

// MaxStatementBytes bounds the length of one run_sql statement, in bytes
// of UTF-8.
const MaxStatementBytes = 16384

// SQLOutcome is the outcome of run_sql: the statement's rows (columns named
// after the result's fields, cells in canonical form) with no provenance,
// or a refusal. Exactly one of Rows and Refusal is set.
type SQLOutcome struct {
	Rows    *domain.RowSet
	Refusal *domain.Reason
}

// SQLSource returns the alias of the one configured source whose data
// system can run SQL (SQLRunner). It fails, wrapping ErrSQLNotAvailable,
// when none can or several can: run_sql has no way to choose. The
// composition root calls it at start when run_sql is enabled, so that a
// deployment that cannot serve it does not start.
func (s *Surface) SQLSource() (string, error) {
	var found []string
	for alias, src := range s.cfg.Sources {
		if _, ok := src.System.(SQLRunner); ok {
			found = append(found, alias)
		}
	}
	slices.Sort(found)
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("%w: no configured source can run SQL", ErrSQLNotAvailable)
	}
	return "", fmt.Errorf("%w: several configured sources can run SQL (%s)", ErrSQLNotAvailable, strings.Join(found, ", "))
}

// RunSQL runs one run_sql statement for caller (product.md §6): on the one
// source that can run SQL, in an admission slot, under the execution
// deadline, with the row cap domain.MaxRowCap (more rows, or more than
// domain.MaxResultBytes of cells, is result_too_large, never a truncated
// result). The call is audited with capability run_sql and the statement
// before the outcome is returned. The error is a failure of the service,
// wrapping ErrAtCapacity, ErrTimeout, ErrUnavailable, ErrStatementFailed,
// ErrSQLNotAvailable or ErrInternal, or ctx's error when the caller went
// away; failures are audited too. No error's text holds the statement.
//
// RunSQL does not check the caller's scope or whether run_sql is enabled:
// the transports serve it only when declared, and gate its scope.
func (s *Surface) RunSQL(ctx context.Context, caller Caller, statement string) (SQLOutcome, error) {
	start := time.Now()
	rec := domain.AuditRecord{
		Time: start.UTC(), CorrelationID: caller.CorrelationID, Principal: caller.Principal.Chain(),
		Capability: domain.RunSQL, Statement: statement,
	}
	out, err := s.runSQL(ctx, statement, &rec)
	rec.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	switch {
	case err != nil:
		rec.Outcome = "failure"
		rec.Code = failureCode(err)
	case out.Refusal != nil:
		rec.Outcome = "refusal"
		rec.Code = string(out.Refusal.Code())
	default:
		rec.Outcome = "answer"
		rec.Rows = len(out.Rows.Rows)
	}
	if aerr := s.cfg.Audit.Write(context.WithoutCancel(ctx), rec); aerr != nil {
		return SQLOutcome{}, fmt.Errorf("%w: the audit record could not be written", ErrInternal)
	}
	if err != nil {
		return SQLOutcome{}, err
	}
	return out, nil
}

func (s *Surface) runSQL(ctx context.Context, statement string, rec *domain.AuditRecord) (SQLOutcome, error) {
	if strings.TrimSpace(statement) == "" || len(statement) > MaxStatementBytes || !utf8.ValidString(statement) {
		// The transports parse the arguments first; this guards a direct
		// caller. The error names no part of the statement.
		return SQLOutcome{}, fmt.Errorf("%w: the statement is empty, too long or not UTF-8", ErrStatementFailed)
	}
	alias, err := s.SQLSource()
	if err != nil {
		return SQLOutcome{}, err
	}
	src := s.cfg.Sources[alias]
	runner := src.System.(SQLRunner)
	rec.ExecutedAs = []domain.ExecutedAs{{Source: alias, Posture: src.Posture}}
	release, err := s.cfg.Admission.Acquire(ctx)
	switch {
	case errors.Is(err, runtime.ErrAtCapacity):
		return SQLOutcome{}, ErrAtCapacity
	case err != nil:
		return SQLOutcome{}, s.ctxFailure(ctx, err)
	}
	// The slot is given back only when RunSQL has returned, that is when
	// the statement has stopped.
	defer release()
	execCtx, cancel := runtime.WithExecutionDeadline(ctx, s.cfg.RequestTimeout)
	defer cancel()
	rows, err := runner.RunSQL(execCtx, statement, domain.MaxRowCap)
	if err != nil {
		var (
			re *domain.RefusalError
			sf StatementFailure
		)
		switch {
		case errors.As(err, &re):
			return sqlRefused(re.Reason), nil
		case ctx.Err() != nil:
			return SQLOutcome{}, s.ctxFailure(ctx, ctx.Err())
		case execCtx.Err() != nil:
			return sqlRefused(domain.Refuse(domain.DeadlineExceeded, "the execution budget ran out before the statement was complete; ask for less (add a LIMIT or aggregate)")), nil
		case errors.As(err, &sf) && sf.StatementFailed():
			return SQLOutcome{}, fmt.Errorf("%w: %w", ErrStatementFailed, err)
		}
		return SQLOutcome{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if rows == nil {
		return SQLOutcome{}, fmt.Errorf("%w: the data system returned no result", ErrInternal)
	}
	if len(rows.Rows) > domain.MaxRowCap {
		return sqlRefused(domain.Refuse(domain.ResultTooLarge, "the result has more than %d rows; ask for less (add a LIMIT or aggregate)", domain.MaxRowCap)), nil
	}
	if rows.RenderedBytes() > domain.MaxResultBytes {
		return sqlRefused(domain.Refuse(domain.ResultTooLarge, "the result is larger than %d bytes; ask for less", domain.MaxResultBytes)), nil
	}
	// No role: a statement's columns are neither dimensions, periods nor
	// metrics.
	cols := make([]domain.Column, len(rows.Columns))
	for i, c := range rows.Columns {
		cols[i] = domain.Column{Name: c.Name}
	}
	return SQLOutcome{Rows: &domain.RowSet{Columns: cols, Rows: rows.Rows}}, nil
}

func sqlRefused(r domain.Reason) SQLOutcome { return SQLOutcome{Refusal: &r} }

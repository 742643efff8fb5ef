package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"sutura.dev/domain"
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

// sqlSource returns the alias of the source run_sql runs on: chosen
// (Config.SQLSource) when it is set, otherwise the one shared-service-user
// source whose data system can run SQL (SQLRunner). It fails, wrapping
// ErrSQLNotAvailable, when chosen cannot run SQL or impersonates, and when
// none can or several can and none is chosen: the error then says which
// key chooses one. An impersonating source is never a candidate: a
// statement would run as the service identity, not as the caller.
func sqlSource(sources map[string]Source, chosen string) (string, error) {
	if chosen != "" {
		src, ok := sources[chosen]
		_, runs := src.System.(SQLRunner)
		switch {
		case !ok:
			return "", fmt.Errorf("%w: tools.run_sql.source names no configured source", ErrSQLNotAvailable)
		case !runs:
			return "", fmt.Errorf("%w: tools.run_sql.source names source %s, whose data system cannot run SQL", ErrSQLNotAvailable, chosen)
		case src.Posture == domain.ImpersonationAtSource:
			return "", fmt.Errorf("%w: tools.run_sql.source names source %s, which is impersonation-at-source, and run_sql never runs on an impersonating source", ErrSQLNotAvailable, chosen)
		}
		return chosen, nil
	}
	var found, impersonating []string
	for alias, src := range sources {
		if _, ok := src.System.(SQLRunner); !ok {
			continue
		}
		if src.Posture == domain.ImpersonationAtSource {
			impersonating = append(impersonating, alias)
			continue
		}
		found = append(found, alias)
	}
	slices.Sort(found)
	slices.Sort(impersonating)
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return "", fmt.Errorf("%w: several configured sources can run SQL (%s): name the one it runs on in tools.run_sql.source", ErrSQLNotAvailable, strings.Join(found, ", "))
	case len(impersonating) > 0:
		return "", fmt.Errorf("%w: source %s is impersonation-at-source, and run_sql never runs on an impersonating source", ErrSQLNotAvailable, strings.Join(impersonating, ", "))
	}
	return "", fmt.Errorf("%w: no configured source can run SQL", ErrSQLNotAvailable)
}

// SQLSource returns the alias of the source run_sql runs on, or an error
// wrapping ErrSQLNotAvailable when run_sql is not enabled.
func (s *Surface) SQLSource() (string, error) {
	if s.sqlSource == "" {
		return "", fmt.Errorf("%w: run_sql is not enabled", ErrSQLNotAvailable)
	}
	return s.sqlSource, nil
}

// RunSQL runs one run_sql statement for caller (docs/contract.md §6), through
// the pipeline of Call from the enablement step on (the statement is
// already read): on the one source that can run SQL, in an admission slot,
// under the execution deadline, with the row cap domain.MaxRowCap (more
// rows, or more than domain.MaxResultBytes of cells, is result_too_large,
// never a truncated result). The call is audited with capability run_sql
// and the statement twice: a record with outcome "started" right before
// the statement runs, and the outcome record before RunSQL returns. The
// error is a *Failure: it wraps ErrToolNotEnabled (run_sql is not in
// Config.Tools), ErrNotGranted, ErrAtCapacity, ErrTimeout, ErrUnavailable,
// ErrStatementFailed, ErrInternal, or context.Canceled when the caller
// went away. No failure's Detail holds the statement.
func (s *Surface) RunSQL(ctx context.Context, caller Caller, statement string) (SQLOutcome, error) {
	res := s.callParsed(ctx, caller, domain.RunSQL, func() *work { return s.sqlWork(statement) })
	if res.Failure != nil {
		return SQLOutcome{}, res.Failure
	}
	return SQLOutcome{Rows: res.Rows, Refusal: res.Refusal}, nil
}

// sqlWork is the run_sql part of the pipeline: run the statement on the
// SQL source with the row cap, announced by a start record, and deliver
// its rows without roles.
func (s *Surface) sqlWork(statement string) *work {
	src := s.cfg.Sources[s.sqlSource]
	w := &work{
		tool: domain.RunSQL,
		rec: domain.AuditRecord{Statement: statement,
			ExecutedAs: []domain.ExecutedAs{{Source: s.sqlSource, Posture: src.Posture}}},
		cost:         domain.Cost{Sources: []string{}},
		announce:     true,
		rowCap:       domain.MaxRowCap,
		deadline:     "the execution budget ran out before the statement was complete; ask for less (add a LIMIT or aggregate)",
		tooManyRows:  "the result has more than %d rows; ask for less (add a LIMIT or aggregate)",
		tooManyBytes: "the result is larger than %d bytes; ask for less",
	}
	w.prepare = func(domain.Date) (*domain.Reason, error) {
		if strings.TrimSpace(statement) == "" || len(statement) > MaxStatementBytes || !utf8.ValidString(statement) {
			// Call reads the arguments first; this guards a direct caller.
			// The error names no part of the statement.
			return nil, &Failure{Code: CodeNotAQuestion, Detail: NotAQuestion(&domain.FieldError{
				Field: "statement", Problem: fmt.Sprintf("must be non-empty UTF-8 of at most %d bytes", MaxStatementBytes)}),
				Field: "statement"}
		}
		return nil, nil
	}
	w.execute = func(ctx context.Context) (*domain.RowSet, error) {
		return src.System.(SQLRunner).RunSQL(ctx, statement, domain.MaxRowCap)
	}
	w.deliver = func(rows *domain.RowSet, res *Result) {
		// No role: a statement's columns are neither dimensions, periods nor
		// metrics.
		cols := make([]domain.Column, len(rows.Columns))
		for i, c := range rows.Columns {
			cols[i] = domain.Column{Name: c.Name}
		}
		res.Rows = &domain.RowSet{Columns: cols, Rows: rows.Rows}
		w.rec.Rows = len(rows.Rows)
		w.cost.RowsReturned = len(rows.Rows)
	}
	return w
}

package apptest

import (
	"context"
	"fmt"
	"sync"

	"sutura.dev/app"
	"sutura.dev/domain"
)

var (
	_ app.DataSystem          = (*SQL)(nil)
	_ app.SQLRunner           = (*SQL)(nil)
	_ app.SQLPrivilegeChecker = (*SQL)(nil)
)

// SQL is an in-memory data system that can also run SQL (app.SQLRunner).
// Its plans are executed by the embedded System (nil: a zero System). A
// statement is answered with Result, with Generate rows, fails with Err, or
// blocks until released or until its context ends; every statement and
// row cap it was given is recorded.
//
// A statement checks, in order: Block, then Err, then Generate, then
// Result. Like a real runner, it returns at most rowCap+1 rows.
type SQL struct {
	*System
	// Result is the fixed result of every statement; nil is no columns and
	// no rows.
	Result *domain.RowSet
	// Generate, when positive, replaces Result: one column n with the rows
	// 0..Generate-1 as integers.
	Generate int
	// Err, when not nil, is returned instead of rows, typed as
	// System.Err is.
	Err error
	// Block holds every statement until Release is called or its context
	// ends, returning ctx's error then.
	Block bool
	// Privileged, when not nil, is what CheckSQLPrivileges returns: the
	// login role may do more than run_sql allows.
	Privileged error

	gate

	mu              sync.Mutex
	statements      []string
	rowCaps         []int
	privilegeChecks int
}

// Execute runs plan on the embedded System.
func (s *SQL) Execute(ctx context.Context, plan *domain.Plan) (*domain.RowSet, error) {
	if s.System == nil {
		return (&System{}).Execute(ctx, plan)
	}
	return s.System.Execute(ctx, plan)
}

// RunSQL answers statement as the fields say.
func (s *SQL) RunSQL(ctx context.Context, statement string, rowCap int) (*domain.RowSet, error) {
	s.mu.Lock()
	s.statements = append(s.statements, statement)
	s.rowCaps = append(s.rowCaps, rowCap)
	s.mu.Unlock()
	if err := s.pass(ctx, s.Block); err != nil {
		return nil, err
	}
	if s.Err != nil {
		return nil, Typed(s.Err)
	}
	if s.Generate > 0 {
		n := min(s.Generate, rowCap+1)
		rows := make([][]domain.Cell, n)
		for i := range rows {
			rows[i] = []domain.Cell{domain.Int(int64(i))}
		}
		return &domain.RowSet{Columns: []domain.Column{{Name: "n"}}, Rows: rows}, nil
	}
	if s.Result == nil {
		return &domain.RowSet{Columns: []domain.Column{}}, nil
	}
	return s.Result, nil
}

// CheckSQLPrivileges returns Privileged, and counts the check.
func (s *SQL) CheckSQLPrivileges(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.privilegeChecks++
	return s.Privileged
}

// PrivilegeChecks returns how many times the login role was checked.
func (s *SQL) PrivilegeChecks() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.privilegeChecks
}

// Statements returns the statements run so far, in order.
func (s *SQL) Statements() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.statements...)
}

// RowCaps returns the row cap each statement was run with, in order.
func (s *SQL) RowCaps() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.rowCaps...)
}

// StatementError is a failure of the statement itself (it wraps
// domain.ErrRejected), as a database reports a syntax error. Text is its
// message, which may quote the statement and must never be shown.
type StatementError struct {
	Text string
}

func (e *StatementError) Error() string { return fmt.Sprintf("the statement failed: %s", e.Text) }

// Unwrap returns domain.ErrRejected, the error kind of a statement the
// data system rejected.
func (e *StatementError) Unwrap() error { return domain.ErrRejected }

package apptest

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"sutura.dev/app"
	"sutura.dev/domain"
)

var (
	_ app.DataSystem   = (*System)(nil)
	_ app.CostReporter = Metered{}
)

// startedBuffer is how many starts Started holds before it drops further
// signals; no test waits for that many.
const startedBuffer = 1024

// System is an in-memory app.DataSystem. It answers with fixed rows or with
// rows computed from the plan's columns, fails, refuses, or blocks until
// released or until its context ends, and it counts executions and the
// most that ran at once. The zero System answers every plan with no rows.
//
// An execution checks, in order: Block, then Err, then Generate, then Rows.
type System struct {
	// Rows is the fixed answer: a plan with as many columns as the first
	// row has gets these rows (shared, not copied); a plan of any other
	// shape gets an empty answer, as does every plan when Rows is empty.
	Rows [][]domain.Cell
	// Generate, when positive, replaces Rows: each answer has that many
	// rows shaped to the plan's columns. Row i holds the text
	// "<column>-<i as 5 digits>" in a dimension, the plan's range start in
	// the period, and i*10 in a metric, null when i%7 == 3.
	Generate int
	// Err, when not nil, is what every execution returns instead of rows;
	// a *domain.RefusalError makes it a refusal. As an adapter types its
	// failures, an Err that wraps no error kind of package domain is
	// returned wrapped in domain.ErrUnavailable (see Typed).
	Err error
	// Block holds every execution until Release is called or its context
	// ends; an execution ended by its context returns ctx's error.
	Block bool

	gate

	calls      atomic.Int64
	running    atomic.Int64
	maxRunning atomic.Int64
}

// Execute answers plan as the fields say. It counts the call and the
// executions running with it before it signals Started.
func (s *System) Execute(ctx context.Context, plan *domain.Plan) (*domain.RowSet, error) {
	s.calls.Add(1)
	n := s.running.Add(1)
	defer s.running.Add(-1)
	for {
		m := s.maxRunning.Load()
		if n <= m || s.maxRunning.CompareAndSwap(m, n) {
			break
		}
	}
	if err := s.pass(ctx, s.Block); err != nil {
		return nil, err
	}
	if s.Err != nil {
		return nil, Typed(s.Err)
	}
	if s.Generate > 0 {
		return &domain.RowSet{Columns: plan.Columns, Rows: generate(plan, s.Generate)}, nil
	}
	rows := s.Rows
	if len(rows) == 0 || len(rows[0]) != len(plan.Columns) {
		rows = nil // a shape the fake does not know: an empty answer
	}
	return &domain.RowSet{Columns: plan.Columns, Rows: rows}, nil
}

// generate computes n rows shaped to plan's columns (see System.Generate).
func generate(plan *domain.Plan, n int) [][]domain.Cell {
	rows := make([][]domain.Cell, n)
	for i := range rows {
		row := make([]domain.Cell, len(plan.Columns))
		for j, c := range plan.Columns {
			switch c.Role {
			case domain.RoleDimension:
				row[j] = domain.Text(fmt.Sprintf("%s-%05d", c.Name, i))
			case domain.RolePeriod:
				row[j] = domain.DateCell(plan.Range.Start)
			default:
				if i%7 == 3 {
					row[j] = domain.Null()
				} else {
					row[j] = domain.Int(int64(i * 10))
				}
			}
		}
		rows[i] = row
	}
	return rows
}

// Calls returns how many executions started so far.
func (s *System) Calls() int { return int(s.calls.Load()) }

// Running returns how many executions are in progress now.
func (s *System) Running() int { return int(s.running.Load()) }

// MaxRunning returns the most executions that were in progress at once.
func (s *System) MaxRunning() int { return int(s.maxRunning.Load()) }

// Metered is a System that also measures its work (app.CostReporter).
// ExecuteWithCost runs System.Execute and reports what Cost says that
// execution spent, with its error too, as the port requires.
type Metered struct {
	*System
	// Cost says what one execution spent, given its rows (nil on error)
	// and its error; nil reports a zero cost.
	Cost func(rows *domain.RowSet, err error) domain.Cost
}

// ExecuteWithCost behaves as Execute and also returns the cost.
func (m Metered) ExecuteWithCost(ctx context.Context, plan *domain.Plan) (*domain.RowSet, domain.Cost, error) {
	rows, err := m.Execute(ctx, plan)
	var cost domain.Cost
	if m.Cost != nil {
		cost = m.Cost(rows, err)
	}
	return rows, cost, err
}

// Typed is err as a data system adapter returns it: a refusal, the end of
// a context, and an error that wraps an error kind of package domain (or
// the sentinel of a failure code of app) as they are; any other error
// wrapped in domain.ErrUnavailable, as an adapter reports a failure of its
// data system it cannot place more precisely. A fake's Err such as
// errors.New("connection refused") thus stands for a data system that is
// down, as it did before adapters typed their errors.
func Typed(err error) error {
	var re *domain.RefusalError
	if err == nil || errors.As(err, &re) {
		return err
	}
	for _, k := range []error{domain.ErrUnavailable, domain.ErrRejected, domain.ErrZeroDenominator, domain.ErrDefect,
		context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, k) {
			return err
		}
	}
	for _, c := range app.FailureCodes() {
		if s := c.Sentinel(); s != nil && errors.Is(err, s) {
			return err
		}
	}
	return fmt.Errorf("%w: %w", domain.ErrUnavailable, err)
}

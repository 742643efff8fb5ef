// Package sutura adapts sutura's own path — the demo catalogue, the
// compiler and the embedded Arrow engine — to the benchmark harness, so it
// is measured on the same files and questions as DuckDB.
package sutura

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/bench/engine"
	"sutura.dev/domain"
	"sutura.dev/examples/demo"
	arrowengine "sutura.dev/exec-arrow"
	"sutura.dev/semantic"
)

// Engine answers benchmark cases through sutura's embedded engine over
// the demo tables of one directory. It keeps one engine: its first answer
// streams the files (cold); after Settle, the columns the question read
// are cached and later answers are warm.
type Engine struct {
	name   string
	bundle *domain.Bundle
	eng    *arrowengine.Engine
}

// NewEngine returns sutura's engine over the demo tables in dir, with the
// given working set (0: the engine's default, runtime.working_set_max_bytes
// of 1 GiB).
func NewEngine(ctx context.Context, name, dir string, workingSet int64) (*Engine, error) {
	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	if err != nil {
		return nil, err
	}
	e := &Engine{name: name, bundle: b}
	e.eng, err = arrowengine.New(ctx, arrowengine.Config{
		Source: demo.SourceAlias, Files: os.DirFS(dir), Models: b.Definitions().Models,
		WorkingSetMaxBytes: workingSet,
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// Name labels the engine in reports.
func (e *Engine) Name() string { return e.name }

// Run answers one case: the wire question is parsed, compiled and executed
// exactly as a caller's would be.
func (e *Engine) Run(ctx context.Context, c engine.Case) (engine.Result, error) {
	plan, err := e.plan(c)
	if err != nil {
		return engine.Result{}, err
	}
	rs, err := e.eng.Execute(ctx, plan)
	if err != nil {
		return engine.Result{}, err
	}
	return result(rs), nil
}

// Settle waits for the engine's background cache fills, so the next
// answers are warm.
func (e *Engine) Settle(ctx context.Context) error { return e.eng.Settle(ctx) }

// Footprint is the bytes the engine holds in its working set: after a
// question and Settle, the Arrow columns that question reads.
func (e *Engine) Footprint() int64 {
	used, _ := e.eng.WorkingSet()
	return used
}

// plan parses and compiles a case's wire question.
func (e *Engine) plan(c engine.Case) (*domain.Plan, error) {
	wire, err := json.Marshal(c.Question)
	if err != nil {
		return nil, err
	}
	q, err := domain.ParseQuestion(wire)
	if err != nil {
		return nil, err
	}
	plan, reason := semantic.Compile(e.bundle, domain.LocalOperator, q, domain.DateOf(2026, 7, 1))
	if reason != nil {
		return nil, fmt.Errorf("refused (%s): %s", reason.Code(), reason.Detail())
	}
	return plan, nil
}

// result renders a row set as the harness compares it.
func result(rs *domain.RowSet) engine.Result {
	var res engine.Result
	for _, col := range rs.Columns {
		res.Columns = append(res.Columns, col.Name)
	}
	for _, row := range rs.Rows {
		out := make([]*string, len(row))
		for i, cell := range row {
			if !cell.IsNull() {
				s := cell.Render()
				out[i] = &s
			}
		}
		res.Rows = append(res.Rows, out)
	}
	return res
}

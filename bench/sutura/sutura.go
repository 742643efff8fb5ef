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

// Engine answers benchmark cases through sutura. A warm engine keeps one
// Arrow engine, so every run after the first reads only its column cache;
// a cold engine builds a new one for every run, so each run reads the
// files it needs (with column projection) from disk.
type Engine struct {
	name   string
	dir    string
	cold   bool
	bundle *domain.Bundle
	eng    *arrowengine.Engine
}

// NewEngine returns sutura's engine over the demo tables in dir.
func NewEngine(ctx context.Context, name, dir string, cold bool) (*Engine, error) {
	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	if err != nil {
		return nil, err
	}
	e := &Engine{name: name, dir: dir, cold: cold, bundle: b}
	if !cold {
		if e.eng, err = e.open(ctx); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func (e *Engine) open(ctx context.Context) (*arrowengine.Engine, error) {
	return arrowengine.New(ctx, arrowengine.Config{
		Source: demo.SourceAlias, Files: os.DirFS(e.dir), Models: e.bundle.Definitions().Models,
		WorkingSetMaxBytes: 8 << 30,
	})
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
	eng := e.eng
	if e.cold {
		if eng, err = e.open(ctx); err != nil {
			return engine.Result{}, err
		}
	}
	rs, err := eng.Execute(ctx, plan)
	if err != nil {
		return engine.Result{}, err
	}
	return result(rs), nil
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

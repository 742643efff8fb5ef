// Package sutura adapts sutura's own path — the demo catalogue, the
// compiler and the embedded Arrow engine — to the benchmark harness, so it
// is measured on the same files and questions as DuckDB.
package sutura

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"time"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/bench/engine"
	"sutura.dev/domain"
	"sutura.dev/examples/demo"
	arrowengine "sutura.dev/exec-arrow"
	"sutura.dev/semantic"
)

// Engine answers benchmark cases through sutura's embedded engine over
// the demo tables of one directory. Its first answers come from an engine
// that never fills its cache (the cold figure: the question streams the
// files, and nothing the engine does after the answer counts in its time
// or memory); Warm switches it to an engine that caches what a question
// reads, so later answers are warm.
type Engine struct {
	name       string
	dir        string
	alias      string
	workingSet int64
	bundle     *domain.Bundle
	eng        *arrowengine.Engine
	duringFill time.Duration // set by Warm
	checks     time.Duration // set by Warm
}

// NewEngine returns sutura's engine over the demo tables in dir, with the
// given working set (0: the engine's default, runtime.working_set_max_bytes
// of 1 GiB).
func NewEngine(ctx context.Context, name, dir string, workingSet int64) (*Engine, error) {
	return NewCatalogEngine(ctx, name, dir, Catalog{Docs: demo.Catalog(), Version: demo.Version, Source: demo.SourceAlias}, workingSet)
}

// Catalog is a Markdown catalogue whose models all name one files source.
type Catalog struct {
	// Docs is the catalogue directory (models/, metrics/, …).
	Docs fs.FS
	// Version is the label stamped on the bundle.
	Version string
	// Source is the source alias every model names.
	Source string
}

// NewCatalogEngine returns sutura's engine over the tables of catalogue
// cat in dir, with the given working set (0: the engine's default).
func NewCatalogEngine(ctx context.Context, name, dir string, cat Catalog, workingSet int64) (*Engine, error) {
	b, err := mdcatalog.Load(cat.Docs, cat.Version)
	if err != nil {
		return nil, err
	}
	e := &Engine{name: name, dir: dir, alias: cat.Source, workingSet: workingSet, bundle: b}
	if e.eng, err = e.open(ctx, false); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *Engine) open(ctx context.Context, fill bool) (*arrowengine.Engine, error) {
	return arrowengine.New(ctx, arrowengine.Config{
		Source: e.alias, Files: os.DirFS(e.dir), Models: e.bundle.Definitions().Models,
		WorkingSetMaxBytes: e.workingSet, NoCacheFill: !fill,
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
	rs, err := e.eng.Execute(ctx, plan)
	if err != nil {
		return engine.Result{}, err
	}
	return result(rs), nil
}

// Warm switches to an engine that fills its cache, asks c once, asks it
// again at once while the background fill that follows runs (DuringFill),
// and waits for the fill, so the next answers to c come from the cache.
// The engine first passes the start-up checks as a serving process's
// does by the time it has served a while: Validate, then CheckDeferred,
// the whole read of the text files Validate sampled, which a serving
// process runs in the background (its spans and days also inform the
// fill's estimate).
func (e *Engine) Warm(ctx context.Context, c engine.Case) error {
	eng, err := e.open(ctx, true)
	if err != nil {
		return err
	}
	t := time.Now()
	if err := eng.Validate(ctx); err != nil {
		return err
	}
	if err := eng.CheckDeferred(ctx); err != nil {
		return err
	}
	e.checks = time.Since(t)
	e.eng = eng
	if _, err := e.Run(ctx, c); err != nil {
		return err
	}
	t = time.Now()
	if _, err := e.Run(ctx, c); err != nil {
		return err
	}
	e.duringFill = time.Since(t)
	return eng.Settle(ctx)
}

// Checks is how long Warm's start-up checks took (Validate and
// CheckDeferred), before its first answer.
func (e *Engine) Checks() time.Duration { return e.checks }

// DuringFill is how long the answer asked while the fill ran took.
func (e *Engine) DuringFill() time.Duration { return e.duringFill }

// Footprint is the bytes the engine holds in its working set: after Warm,
// the Arrow columns the question reads (and what is derived from them).
func (e *Engine) Footprint() int64 {
	used, _ := e.eng.WorkingSet()
	return used
}

// plan parses and compiles a case's wire question.
func (e *Engine) plan(c engine.Case) (*domain.Plan, error) { return compileCase(e.bundle, c) }

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// compileCase parses and compiles a case's wire question against b.
func compileCase(b *domain.Bundle, c engine.Case) (*domain.Plan, error) {
	wire, err := jsonMarshal(c.Question)
	if err != nil {
		return nil, err
	}
	q, err := domain.ParseQuestion(wire)
	if err != nil {
		return nil, err
	}
	plan, reason := semantic.Compile(b, domain.LocalOperator, q, domain.DateOf(2026, 7, 1))
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

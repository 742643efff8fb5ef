package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"sutura.dev/bench/duck"
	"sutura.dev/bench/engine"
	"sutura.dev/bench/sutura"
)

// dataSet locates the generated data: one directory per format.
type dataSet struct {
	work string
	rows int64
}

// dir is where the data in the given format ("csv" or "parquet") lives.
func (d dataSet) dir(format string) string {
	return filepath.Join(d.work, format+"-"+strconv.FormatInt(d.rows, 10))
}

// factory sets an engine up over the data; the harness times it as the
// engine's setup.
type factory struct {
	formats []string // the data formats the engine reads
	open    func(ctx context.Context, d dataSet) (engine.Engine, error)
}

// engineOrder is the default run order and the report order.
var engineOrder = []string{"sutura-cold-parquet", "sutura-cold-csv", "sutura-warm", "duckdb-parquet", "duckdb-csv", "duckdb-memory"}

// engines are the systems the harness can measure.
//
// ---------------------------------------------------------------------
// HOOK: plug sutura's engine in here. Add an entry (and its name to
// engineOrder) whose open returns an engine.Engine that answers
// Case.Question through sutura: e.g. load the demo catalogue, point the
// demo source at d.dir("parquet") and run the question through the
// compiler (sutura.dev/semantic) and the Arrow engine
// (sutura.dev/exec-arrow), rendering cells as canonical text. The harness
// then times it, measures its peak RSS in its own process and checks its
// answers equal DuckDB's, cell for cell.
// ---------------------------------------------------------------------
var engines = map[string]factory{
	"sutura-cold-parquet": {formats: []string{"parquet"}, open: func(ctx context.Context, d dataSet) (engine.Engine, error) {
		return sutura.NewEngine(ctx, "sutura-cold-parquet", d.dir("parquet"), true)
	}},
	"sutura-cold-csv": {formats: []string{"csv"}, open: func(ctx context.Context, d dataSet) (engine.Engine, error) {
		return sutura.NewEngine(ctx, "sutura-cold-csv", d.dir("csv"), true)
	}},
	"sutura-warm": {formats: []string{"parquet"}, open: func(ctx context.Context, d dataSet) (engine.Engine, error) {
		return sutura.NewEngine(ctx, "sutura-warm", d.dir("parquet"), false)
	}},
	"duckdb-parquet": {formats: []string{"parquet"}, open: func(ctx context.Context, d dataSet) (engine.Engine, error) {
		return duck.NewEngine(ctx, "duckdb-parquet", duck.Options{Dir: d.dir("parquet"), Format: "parquet"})
	}},
	"duckdb-csv": {formats: []string{"csv"}, open: func(ctx context.Context, d dataSet) (engine.Engine, error) {
		return duck.NewEngine(ctx, "duckdb-csv", duck.Options{Dir: d.dir("csv"), Format: "csv"})
	}},
	"postgres": {formats: []string{"csv"}, open: func(ctx context.Context, d dataSet) (engine.Engine, error) {
		u := os.Getenv("SUTURA_PG_URL")
		if u == "" {
			return nil, fmt.Errorf("postgres: SUTURA_PG_URL is unset (eval \"$(scripts/pg start)\")")
		}
		return sutura.NewPostgresEngine(ctx, "postgres", u, d.dir("csv"))
	}},
	"duckdb-memory": {formats: []string{"parquet"}, open: func(ctx context.Context, d dataSet) (engine.Engine, error) {
		return duck.NewEngine(ctx, "duckdb-memory", duck.Options{Dir: d.dir("parquet"), Format: "parquet", Load: true})
	}},
}

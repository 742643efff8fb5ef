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
	"sutura.dev/bench/web"
)

// dataSet locates the generated data: one directory per format.
type dataSet struct {
	work  string
	rows  int64
	shape string // "demo", "demo-shuffled" or "web"
}

// dir is where the data in the given format ("csv" or "parquet") lives.
func (d dataSet) dir(format string) string {
	prefix := ""
	if d.shape != "demo" {
		prefix = d.shape + "-"
	}
	return filepath.Join(d.work, prefix+format+"-"+strconv.FormatInt(d.rows, 10))
}

// catalogDir is where the data set's catalogue is written for it (its
// anchors depend on the rows).
func (d dataSet) catalogDir() string {
	return filepath.Join(d.work, d.shape+"-catalog-"+strconv.FormatInt(d.rows, 10))
}

// tables are the tables DuckDB opens (nil: the demo's).
func (d dataSet) tables() []duck.Table {
	if d.shape == "web" {
		return web.Tables
	}
	return nil
}

// suturaEngine opens sutura's engine over the data set in one format.
func suturaEngine(ctx context.Context, name string, d dataSet, format string, c config) (engine.Engine, error) {
	if d.shape == "web" {
		cat := sutura.Catalog{Docs: os.DirFS(d.catalogDir()), Version: web.Version, Source: web.SourceAlias}
		return sutura.NewCatalogEngine(ctx, name, d.dir(format), cat, c.workingSet)
	}
	return sutura.NewEngine(ctx, name, d.dir(format), c.workingSet)
}

// factory sets an engine up over the data; the harness times it as the
// engine's setup.
type factory struct {
	formats []string // the data formats the engine reads
	open    func(ctx context.Context, d dataSet, c config) (engine.Engine, error)
}

// engineOrder is the default run order and the report order.
var engineOrder = []string{"sutura-parquet", "duckdb-parquet", "sutura-csv", "duckdb-csv", "duckdb-memory"}

// engines are the systems the harness can measure. Each is measured in a
// fresh process per question: the first answer there is the cold figure
// (nothing cached, nothing warmed), and the runs after it (after Warm,
// for an engine that fills caches in the background) the warm figures.
var engines = map[string]factory{
	"sutura-parquet": {formats: []string{"parquet"}, open: func(ctx context.Context, d dataSet, c config) (engine.Engine, error) {
		return suturaEngine(ctx, "sutura-parquet", d, "parquet", c)
	}},
	"sutura-csv": {formats: []string{"csv"}, open: func(ctx context.Context, d dataSet, c config) (engine.Engine, error) {
		return suturaEngine(ctx, "sutura-csv", d, "csv", c)
	}},
	"duckdb-parquet": {formats: []string{"parquet"}, open: func(ctx context.Context, d dataSet, _ config) (engine.Engine, error) {
		return duck.NewEngine(ctx, "duckdb-parquet", duck.Options{Dir: d.dir("parquet"), Format: "parquet", Tables: d.tables()})
	}},
	"duckdb-csv": {formats: []string{"csv"}, open: func(ctx context.Context, d dataSet, _ config) (engine.Engine, error) {
		return duck.NewEngine(ctx, "duckdb-csv", duck.Options{Dir: d.dir("csv"), Format: "csv", Tables: d.tables()})
	}},
	"sutura-ndjson": {formats: []string{"ndjson"}, open: func(ctx context.Context, d dataSet, c config) (engine.Engine, error) {
		return suturaEngine(ctx, "sutura-ndjson", d, "ndjson", c)
	}},
	"duckdb-ndjson": {formats: []string{"ndjson"}, open: func(ctx context.Context, d dataSet, _ config) (engine.Engine, error) {
		return duck.NewEngine(ctx, "duckdb-ndjson", duck.Options{Dir: d.dir("ndjson"), Format: "ndjson", Tables: d.tables()})
	}},
	"duckdb-memory": {formats: []string{"parquet"}, open: func(ctx context.Context, d dataSet, _ config) (engine.Engine, error) {
		return duck.NewEngine(ctx, "duckdb-memory", duck.Options{Dir: d.dir("parquet"), Format: "parquet", Load: true, Tables: d.tables()})
	}},
	"sutura-federated": {formats: []string{"parquet", "csv"}, open: func(ctx context.Context, d dataSet, c config) (engine.Engine, error) {
		u := os.Getenv("SUTURA_PG_URL")
		if u == "" {
			return nil, fmt.Errorf("sutura-federated: SUTURA_PG_URL is unset (eval \"$(scripts/pg start)\")")
		}
		return sutura.NewFederatedEngine(ctx, "sutura-federated", d.dir("parquet"), d.dir("csv"), u, c.maxLegRows)
	}},
	"postgres": {formats: []string{"csv"}, open: func(ctx context.Context, d dataSet, _ config) (engine.Engine, error) {
		u := os.Getenv("SUTURA_PG_URL")
		if u == "" {
			return nil, fmt.Errorf("postgres: SUTURA_PG_URL is unset (eval \"$(scripts/pg start)\")")
		}
		return sutura.NewPostgresEngine(ctx, "postgres", u, d.dir("csv"))
	}},
}

// referenceOrder is where the reference answers come from: the first of
// these engines a run measures.
var referenceOrder = []string{"duckdb-parquet", "duckdb-memory", "duckdb-csv", "duckdb-ndjson"}

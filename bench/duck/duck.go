// Package duck opens the demo data set in DuckDB (through
// github.com/duckdb/duckdb-go, cgo) and runs reference SQL on it. It backs
// the conformance-corpus generator and the DuckDB engines of the benchmark.
package duck

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver

	"sutura.dev/bench/canon"
	"sutura.dev/bench/engine"
)

// Table is one table of a data set: its name (the file is
// <Name>.csv, <Name>.ndjson or <Name>.parquet) and, for the text formats,
// its columns with the types the catalogue declares in the `columns`
// syntax of DuckDB's read_csv and read_json, plus any further options
// both take (", timestampformat = '…'").
type Table struct {
	Name, Cols, TextOptions string
}

// DemoTables are the demo data set's tables.
var DemoTables = []Table{
	{"orders", `order_id: 'BIGINT', order_date: 'DATE', customer_id: 'BIGINT', product_id: 'BIGINT',
		channel: 'VARCHAR', status: 'VARCHAR', payment_method: 'VARCHAR', is_paid: 'BOOLEAN',
		quantity: 'BIGINT', gross_amount_cents: 'BIGINT', discount_cents: 'BIGINT',
		net_amount_cents: 'BIGINT', collected_cents: 'BIGINT', shipped_date: 'DATE',
		dispatch_days: 'BIGINT', is_returned: 'BOOLEAN'`, ""},
	{"customers", `customer_id: 'BIGINT', region_id: 'BIGINT', segment: 'VARCHAR', signup_date: 'DATE'`, ""},
	{"regions", `region_id: 'BIGINT', region_name: 'VARCHAR'`, ""},
	{"products", `product_id: 'BIGINT', product_name: 'VARCHAR', category: 'VARCHAR', unit_price_cents: 'BIGINT'`, ""},
}

// Options say where the data is and how DuckDB reaches it.
type Options struct {
	// Dir holds <table>.<Format> for each table.
	Dir string
	// Format is "csv", "ndjson" or "parquet".
	Format string
	// Load copies every table into DuckDB's memory at Open; otherwise
	// each table is a view that reads the file on every query.
	Load bool
	// Tables are the tables to open; nil means DemoTables.
	Tables []Table
}

// Open returns an in-memory DuckDB database holding o.Tables (by
// default the demo tables orders, customers, regions and products) as
// Options say.
func Open(ctx context.Context, o Options) (*sql.DB, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one connection: one in-memory database
	kind := "VIEW"
	if o.Load {
		kind = "TABLE"
	}
	tables := o.Tables
	if tables == nil {
		tables = DemoTables
	}
	for _, t := range tables {
		path := filepath.Join(o.Dir, t.Name+"."+o.Format)
		if _, err := os.Stat(path); err != nil {
			db.Close()
			return nil, err
		}
		lit := "'" + strings.ReplaceAll(path, "'", "''") + "'"
		var src string
		switch o.Format {
		case "csv":
			src = fmt.Sprintf(`read_csv(%s, header = true, auto_detect = false, delim = ',', quote = '"', nullstr = '', columns = {%s}%s)`, lit, t.Cols, t.TextOptions)
		case "ndjson":
			src = fmt.Sprintf(`read_json(%s, format = 'newline_delimited', columns = {%s}%s)`, lit, t.Cols, t.TextOptions)
		case "parquet":
			src = fmt.Sprintf(`read_parquet(%s)`, lit)
		default:
			db.Close()
			return nil, fmt.Errorf("unknown format %q", o.Format)
		}
		if _, err := db.ExecContext(ctx, fmt.Sprintf(`CREATE %s %s AS SELECT * FROM %s`, kind, t.Name, src)); err != nil {
			db.Close()
			return nil, fmt.Errorf("open %s: %w", t.Name, err)
		}
	}
	return db, nil
}

// Query runs stmt, with args bound to its placeholders, and returns its
// column names and raw cells.
func Query(ctx context.Context, db *sql.DB, stmt string, args ...any) ([]string, [][]any, error) {
	rows, err := db.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, nil, err
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		out = append(out, vals)
	}
	return cols, out, rows.Err()
}

// Engine is a benchmark engine that runs each case's reference SQL in
// DuckDB.
type Engine struct {
	name string
	db   *sql.DB
}

// NewEngine opens the data as o says and names the engine.
func NewEngine(ctx context.Context, name string, o Options) (*Engine, error) {
	db, err := Open(ctx, o)
	if err != nil {
		return nil, err
	}
	return &Engine{name: name, db: db}, nil
}

// Name labels the engine in reports.
func (e *Engine) Name() string { return e.name }

// Run executes c.ReferenceSQL and renders the answer.
func (e *Engine) Run(ctx context.Context, c engine.Case) (engine.Result, error) {
	cols, raw, err := Query(ctx, e.db, c.ReferenceSQL)
	if err != nil {
		return engine.Result{}, err
	}
	res := engine.Result{Columns: cols, Rows: make([][]*string, len(raw))}
	for i, r := range raw {
		res.Rows[i] = make([]*string, len(r))
		for j, v := range r {
			if res.Rows[i][j], err = canon.Render(v); err != nil {
				return engine.Result{}, fmt.Errorf("%s column %s: %w", c.Name, cols[j], err)
			}
		}
	}
	return res, nil
}

// Close releases the database.
func (e *Engine) Close() error { return e.db.Close() }

//go:build cgo

// Package ducktest gives tests a DuckDB database file holding a
// catalogue's tables, built at test time from the CSV files the files
// source would read, for the suites that run against the duckdb source
// (this module's, cli's conformance run and differential, the benchmark
// harness). It is test support: import it from _test files only.
package ducktest

import (
	"context"
	"database/sql"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
	duckdb "sutura.dev/adapters/duckdb"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/domain"
)

// Build writes a DuckDB database file in a directory of t's own, holding
// the table of every model, and returns its path. Each table is filled
// from the CSV file files holds for it, named after the last segment of
// the model's table path (<table>.csv, with a header row), as the files
// source finds it: columns in the file's order with the model's declared
// types (VARCHAR when undeclared, or for a column the model does not
// declare), an empty field null. A schema in the table path is created.
// setup, when given, runs afterwards on the same writable database
// (views, extra tables), before the file is closed.
func Build(t testing.TB, files fs.FS, models []domain.Model, setup ...string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "data.duckdb")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatalf("ducktest: %v", err)
	}
	db.SetMaxOpenConns(1)
	for i := range models {
		if err := load(ctx, db, dir, files, &models[i]); err != nil {
			db.Close()
			t.Fatalf("ducktest: model %s: %v", models[i].Name, err)
		}
	}
	for _, s := range setup {
		if _, err := db.ExecContext(ctx, s); err != nil {
			db.Close()
			t.Fatalf("ducktest: setup: %v", err)
		}
	}
	if _, err := db.ExecContext(ctx, "CHECKPOINT"); err != nil {
		t.Fatalf("ducktest: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("ducktest: %v", err)
	}
	return path
}

// Exec runs statements on the database file at path, opened for writing
// (no duckdb source may have it open).
func Exec(t testing.TB, path string, statements ...string) {
	t.Helper()
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatalf("ducktest: %v", err)
	}
	defer db.Close()
	for _, s := range statements {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("ducktest: %v", err)
		}
	}
}

// Config returns the configuration of a duckdb source alias over the
// database file at path, serving models.
func Config(alias, path string, models []domain.Model) duckdb.Config {
	return duckdb.Config{Source: alias, Path: path, Models: models}
}

// types are the DuckDB types declared column types are created as. Reals
// (float and decimal) are DOUBLE, as the engine reads both.
var types = sqltest.Types{Integer: "BIGINT", Float: "DOUBLE", Decimal: "DOUBLE", Boolean: "BOOLEAN",
	Date: "DATE", Timestamp: "TIMESTAMPTZ", Text: "VARCHAR"}

// ColumnType is the DuckDB type a declared column type is created as; an
// undeclared one is VARCHAR. Reals (float and decimal) are DOUBLE, as the
// engine reads both.
func ColumnType(t domain.ColumnType) string { return types.Of(t) }

func ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func load(ctx context.Context, db *sql.DB, dir string, files fs.FS, m *domain.Model) error {
	parts := sqltest.TablePath(m)
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = ident(p)
	}
	table := strings.Join(quoted, ".")
	// DuckDB reads a file by path: copy the CSV out of files.
	src, err := sqltest.File(files, m)
	if err != nil {
		return err
	}
	defer src.Close()
	csvPath := filepath.Join(dir, m.BareTable()+".csv")
	dst, err := os.Create(csvPath)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	if err := dst.Close(); err != nil {
		return err
	}
	defer os.Remove(csvPath)
	f, err := os.Open(csvPath)
	if err != nil {
		return err
	}
	cols, err := sqltest.Header(f, m)
	f.Close()
	if err != nil {
		return err
	}
	var defs, named []string
	for _, c := range cols {
		defs = append(defs, ident(c.Name)+" "+ColumnType(c.Type))
		named = append(named, literal(c.Name)+": "+literal(ColumnType(c.Type)))
	}
	ddl := "CREATE TABLE " + table + " (" + strings.Join(defs, ", ") + ")"
	if len(parts) == 2 {
		ddl = "CREATE SCHEMA IF NOT EXISTS " + ident(parts[0]) + "; " + ddl
	}
	if _, err := db.ExecContext(ctx, ddl); err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, "INSERT INTO "+table+" SELECT * FROM read_csv("+literal(csvPath)+
		", header = true, auto_detect = false, delim = ',', quote = '\"', nullstr = '', columns = {"+strings.Join(named, ", ")+"})")
	return err
}

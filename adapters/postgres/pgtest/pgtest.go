// Package pgtest gives tests a throwaway PostgreSQL database loaded with a
// catalogue's tables, for suites that run against the postgres source from
// outside this module (cli's conformance run, the differential test, the
// benchmark harness). It is test support: import it from _test files only.
//
// The server is the one SUTURA_PG_URL names, a superuser connection
// (scripts/pg start prints one). Without it, New skips the test with
// "NOT RUN: postgres (SUTURA_PG_URL unset)", or fails it when
// SUTURA_REQUIRE_TIERS lists postgres, as CI sets it.
package pgtest

import (
	"bufio"
	"bytes"
	"context"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	postgres "sutura.dev/adapters/postgres"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/domain"
)

// Tier is the postgres tier: a superuser connection URL in SUTURA_PG_URL.
var Tier = sqltest.Tier{Name: "postgres", Env: "SUTURA_PG_URL"}

// URL returns SUTURA_PG_URL, skipping t (or failing it when the postgres
// tier is required) when it is unset.
func URL(t testing.TB) string {
	t.Helper()
	return Tier.Value(t)
}

// Database is a database of its own on the test server, dropped when the
// test that made it ends.
type Database struct {
	// Name is the database's name.
	Name  string
	admin *pgx.ConnConfig
}

// New creates an empty database for t and drops it (closing every session
// still in it) when t ends.
func New(t testing.TB) *Database {
	t.Helper()
	admin, err := pgx.ParseConfig(URL(t))
	if err != nil {
		t.Fatalf("pgtest: SUTURA_PG_URL: %v", err)
	}
	d := &Database{Name: sqltest.Name("sutura_pgtest_"), admin: admin}
	exec := func(sql string) func(context.Context) error {
		return func(ctx context.Context) error {
			c, err := pgx.ConnectConfig(ctx, admin)
			if err != nil {
				return err
			}
			defer c.Close(ctx)
			_, err = c.Exec(ctx, sql)
			return err
		}
	}
	sqltest.Scratch(t, "pgtest", d.Name, exec("CREATE DATABASE "+d.Name+" TEMPLATE template0 ENCODING 'UTF8'"),
		exec("DROP DATABASE IF EXISTS "+d.Name+" WITH (FORCE)"))
	return d
}

// Exec runs sql (one or more statements, no arguments, or one statement
// with args) as the superuser in the database.
func (d *Database) Exec(t testing.TB, sql string, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c, err := d.connect(ctx)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, sql, args...); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
}

func (d *Database) connect(ctx context.Context) (*pgx.Conn, error) {
	cc := d.admin.Copy()
	cc.Database = d.Name
	return pgx.ConnectConfig(ctx, cc)
}

// Config returns the configuration of a postgres source alias over the
// database, connecting as the superuser of SUTURA_PG_URL (plaintext: the
// test server is on loopback), serving models.
func (d *Database) Config(alias string, models []domain.Model) postgres.Config {
	return postgres.Config{
		Source: alias, Server: postgres.Server{Host: d.admin.Host, Port: int(d.admin.Port), Database: d.Name,
			User: d.admin.User, Password: []byte(d.admin.Password), TransportMode: postgres.Plaintext},
		Models: models,
	}
}

// types are the PostgreSQL types declared column types are created as.
var types = sqltest.Types{Integer: "bigint", Float: "double precision", Decimal: "numeric", Boolean: "boolean",
	Date: "date", Timestamp: "timestamptz", Text: "text"}

// Load creates the table of every model and fills it with COPY from the
// CSV file files holds for it, named after the last segment of the
// model's table path (<table>.csv, with a header row), as the files
// source finds it. Columns are created in the file's order with the
// model's declared types (text when undeclared, or when the file has a
// column the model does not declare); an empty field is null. A schema in
// the table path is created; a database segment is ignored.
func (d *Database) Load(t testing.TB, files fs.FS, models []domain.Model) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	c, err := d.connect(ctx)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	defer c.Close(ctx)
	for i := range models {
		if err := load(ctx, c, files, &models[i]); err != nil {
			t.Fatalf("pgtest: model %s: %v", models[i].Name, err)
		}
	}
	if _, err := c.Exec(ctx, "ANALYZE"); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
}

func load(ctx context.Context, c *pgx.Conn, files fs.FS, m *domain.Model) error {
	parts := sqltest.TablePath(m)
	table := pgx.Identifier(parts).Sanitize()
	f, err := sqltest.File(files, m)
	if err != nil {
		return err
	}
	defer f.Close()
	// The header is read without consuming it: COPY skips it (HEADER).
	r := bufio.NewReaderSize(f, 1<<20)
	head, _ := r.Peek(1 << 20)
	line, _, _ := bytes.Cut(head, []byte("\n"))
	cols, err := sqltest.Header(bytes.NewReader(line), m)
	if err != nil {
		return err
	}
	var defs, names []string
	for _, c := range cols {
		q := pgx.Identifier{c.Name}.Sanitize()
		defs = append(defs, q+" "+types.Of(c.Type))
		names = append(names, q)
	}
	ddl := "CREATE TABLE " + table + " (" + strings.Join(defs, ", ") + ")"
	if len(parts) == 2 {
		ddl = "CREATE SCHEMA IF NOT EXISTS " + pgx.Identifier{parts[0]}.Sanitize() + "; " + ddl
	}
	if _, err := c.Exec(ctx, ddl); err != nil {
		return err
	}
	_, err = c.PgConn().CopyFrom(ctx, r, "COPY "+table+" ("+strings.Join(names, ", ")+") FROM STDIN WITH (FORMAT csv, HEADER true)")
	return err
}

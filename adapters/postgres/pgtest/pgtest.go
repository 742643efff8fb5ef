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
	"crypto/rand"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	postgres "sutura.dev/adapters/postgres"
	"sutura.dev/domain"
)

// Required reports whether SUTURA_REQUIRE_TIERS (a comma-separated list)
// lists postgres, so that a missing database fails instead of skipping.
func Required() bool {
	for _, tier := range strings.Split(os.Getenv("SUTURA_REQUIRE_TIERS"), ",") {
		if strings.TrimSpace(tier) == "postgres" {
			return true
		}
	}
	return false
}

// URL returns SUTURA_PG_URL, skipping t (or failing it when the postgres
// tier is required) when it is unset.
func URL(t testing.TB) string {
	t.Helper()
	url := os.Getenv("SUTURA_PG_URL")
	if url == "" {
		if Required() {
			t.Fatal("postgres is a required tier (SUTURA_REQUIRE_TIERS) but SUTURA_PG_URL is unset: run eval \"$(scripts/pg start)\"")
		}
		t.Skip("NOT RUN: postgres (SUTURA_PG_URL unset)")
	}
	return url
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
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	d := &Database{Name: "sutura_pgtest_" + hex.EncodeToString(b), admin: admin}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgx.ConnectConfig(ctx, admin)
	if err != nil {
		t.Fatalf("pgtest: connecting to SUTURA_PG_URL: %v", err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE DATABASE "+d.Name+" TEMPLATE template0 ENCODING 'UTF8'"); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c, err := pgx.ConnectConfig(ctx, admin)
		if err != nil {
			t.Errorf("pgtest: dropping %s: %v", d.Name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+d.Name+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: dropping %s: %v", d.Name, err)
		}
	})
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

// columnType is the PostgreSQL type a declared column type is created as;
// an undeclared one is text.
func columnType(t domain.ColumnType) string {
	switch t {
	case domain.TypeInteger:
		return "bigint"
	case domain.TypeFloat:
		return "double precision"
	case domain.TypeDecimal:
		return "numeric"
	case domain.TypeBoolean:
		return "boolean"
	case domain.TypeDate:
		return "date"
	case domain.TypeTimestamp:
		return "timestamptz"
	}
	return "text"
}

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
	parts := m.TableParts()
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	table := pgx.Identifier(parts).Sanitize()
	f, err := files.Open(m.BareTable() + ".csv")
	if err != nil {
		return err
	}
	defer f.Close()
	// The header is read without consuming it: COPY skips it (HEADER).
	r := bufio.NewReaderSize(f, 1<<20)
	head, _ := r.Peek(1 << 20)
	line, _, _ := bytes.Cut(head, []byte("\n"))
	header, err := csv.NewReader(bytes.NewReader(line)).Read()
	if err != nil {
		return fmt.Errorf("the CSV header: %w", err)
	}
	var defs, names []string
	for _, name := range header {
		typ := domain.TypeUnset
		if col, ok := m.Column(name); ok {
			typ = col.Type
		}
		q := pgx.Identifier{name}.Sanitize()
		defs = append(defs, q+" "+columnType(typ))
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

// Package chtest gives tests a throwaway database on a real ClickHouse
// server loaded with a catalogue's tables, for suites that run against the
// clickhouse source from inside and outside this module (its own tests,
// cli's conformance run). It is test support: import it from _test files
// only.
//
// The server is the one SUTURA_CH_URL names, an administrator's connection
// clickhouse://user:password@host:port (scripts/ch start prints one).
// Without it, New skips the test with "NOT RUN: clickhouse (SUTURA_CH_URL
// unset)", or fails it when SUTURA_REQUIRE_TIERS lists clickhouse, as CI
// sets it.
package chtest

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"sutura.dev/adapters/clickhouse"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/domain"
)

// Tier is the clickhouse tier: an administrator's connection URL in
// SUTURA_CH_URL.
var Tier = sqltest.Tier{Name: "clickhouse", Env: "SUTURA_CH_URL"}

// Admin connects to the server of SUTURA_CH_URL as its administrator, and
// closes the connection when t ends.
func Admin(t testing.TB) driver.Conn {
	t.Helper()
	opts := adminOptions(t)
	conn, err := ch.Open(opts)
	if err != nil {
		t.Fatalf("chtest: SUTURA_CH_URL: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

func adminOptions(t testing.TB) *ch.Options {
	t.Helper()
	opts, err := ch.ParseDSN(Tier.Value(t))
	if err != nil {
		t.Fatalf("chtest: SUTURA_CH_URL: %v", err)
	}
	opts.Logger = slog.New(slog.DiscardHandler)
	opts.DialTimeout = 10 * time.Second
	return opts
}

// Database is a database of its own on the test server, dropped when the
// test that made it ends.
type Database struct {
	// Name is the database's name.
	Name string
	// Admin is the administrator's connection.
	Admin driver.Conn
	opts  *ch.Options
}

// New creates an empty database for t and drops it when t ends.
func New(t testing.TB) *Database {
	t.Helper()
	opts := adminOptions(t)
	admin := Admin(t)
	d := &Database{Name: sqltest.Name("sutura_chtest_"), Admin: admin, opts: opts}
	exec := func(sql string) func(context.Context) error {
		return func(ctx context.Context) error { return admin.Exec(ctx, sql) }
	}
	sqltest.Scratch(t, "chtest", d.Name, exec("CREATE DATABASE "+d.Name), exec("DROP DATABASE IF EXISTS "+d.Name))
	return d
}

// Exec runs one statement as the administrator, with args bound by the
// driver.
func (d *Database) Exec(t testing.TB, sql string, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := d.Admin.Exec(ctx, sql, args...); err != nil {
		t.Fatalf("chtest: %v", err)
	}
}

// Config returns the configuration of a clickhouse source alias over the
// database, signing in as the administrator of SUTURA_CH_URL (plaintext:
// the test server is on loopback), serving models.
func (d *Database) Config(alias string, models []domain.Model) clickhouse.Config {
	host, port, _ := net.SplitHostPort(d.opts.Addr[0])
	p, _ := strconv.Atoi(port)
	return clickhouse.Config{
		Source: alias, Server: sqlsource.Server{Host: host, Port: p, Database: d.Name,
			User: d.opts.Auth.Username, Password: []byte(d.opts.Auth.Password), TransportMode: sqlsource.Plaintext},
		Models: models,
	}
}

// Version returns the server's version, as SELECT version() reports it.
func (d *Database) Version(t testing.TB) string {
	t.Helper()
	var v string
	if err := d.Admin.QueryRow(context.Background(), "SELECT version()").Scan(&v); err != nil {
		t.Fatalf("chtest: %v", err)
	}
	return v
}

// types are the ClickHouse types declared column types are created as
// (every column Nullable: an empty CSV field is null). Booleans are UInt8
// on servers without Bool (before 21.12).
var types = sqltest.Types{Integer: "Nullable(Int64)", Float: "Nullable(Float64)", Decimal: "Nullable(Decimal(38, 9))",
	Boolean: "Nullable(Bool)", Date: "Nullable(Date)", Timestamp: "Nullable(DateTime('UTC'))", Text: "Nullable(String)"}

// columnType is the ClickHouse type of a column declared t.
func columnType(t domain.ColumnType, hasBool bool) string {
	if t == domain.TypeBoolean && !hasBool {
		return "Nullable(UInt8)"
	}
	return types.Of(t)
}

// Load creates the table of every model and fills it from the CSV file
// files holds for it, named after the last segment of the model's table
// path (<table>.csv, with a header row), as the files source finds it.
// Columns are created in the file's order with the model's declared types
// (text when undeclared, or when the file has a column the model does not
// declare); an empty field is null. Tables are MergeTree, so they outlive
// a restart of the server. A database segment of the table path is
// replaced by the test's database.
func (d *Database) Load(t testing.TB, files fs.FS, models []domain.Model) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	hasBool := serverHasBool(d.Version(t))
	for i := range models {
		if err := d.load(ctx, files, &models[i], hasBool); err != nil {
			t.Fatalf("chtest: model %s: %v", models[i].Name, err)
		}
	}
}

func serverHasBool(version string) bool {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return false
	}
	major, _ := strconv.Atoi(parts[0])
	minor, _ := strconv.Atoi(parts[1])
	return major > 21 || major == 21 && minor >= 12
}

func (d *Database) load(ctx context.Context, files fs.FS, m *domain.Model, hasBool bool) error {
	f, err := sqltest.File(files, m)
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(f)
	header, err := r.Read()
	if err != nil {
		return fmt.Errorf("the CSV header: %w", err)
	}
	cols := sqltest.Declared(header, m)
	var defs, names []string
	for _, c := range cols {
		defs = append(defs, "`"+c.Name+"` "+columnType(c.Type, hasBool))
		names = append(names, "`"+c.Name+"`")
	}
	table := d.Name + ".`" + m.BareTable() + "`"
	if err := d.Admin.Exec(ctx, "CREATE TABLE "+table+" ("+strings.Join(defs, ", ")+") ENGINE = MergeTree() ORDER BY tuple()"); err != nil {
		return err
	}
	batch, err := d.Admin.PrepareBatch(ctx, "INSERT INTO "+table+" ("+strings.Join(names, ", ")+")")
	if err != nil {
		return err
	}
	defer func() { _ = batch.Close() }()
	line := 1
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line++
		if err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		row := make([]any, len(cols))
		for i, c := range cols {
			if row[i], err = value(c.Type, rec[i], hasBool); err != nil {
				return fmt.Errorf("line %d column %s: %w", line, c.Name, err)
			}
		}
		if err := batch.Append(row...); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
	}
	return batch.Send()
}

// value parses one CSV field as the Go value the driver appends to a
// Nullable column of the declared type: a nil pointer for an empty field.
func value(typ domain.ColumnType, s string, hasBool bool) (any, error) {
	switch typ {
	case domain.TypeInteger:
		if s == "" {
			return (*int64)(nil), nil
		}
		v, err := strconv.ParseInt(s, 10, 64)
		return &v, err
	case domain.TypeFloat:
		if s == "" {
			return (*float64)(nil), nil
		}
		v, err := strconv.ParseFloat(s, 64)
		return &v, err
	case domain.TypeDecimal:
		if s == "" {
			return (*string)(nil), nil
		}
		return &s, nil
	case domain.TypeBoolean:
		if hasBool {
			if s == "" {
				return (*bool)(nil), nil
			}
			v, err := strconv.ParseBool(s)
			return &v, err
		}
		if s == "" {
			return (*uint8)(nil), nil
		}
		v, err := strconv.ParseBool(s)
		var u uint8
		if v {
			u = 1
		}
		return &u, err
	case domain.TypeDate:
		if s == "" {
			return (*time.Time)(nil), nil
		}
		v, err := time.Parse(time.DateOnly, s)
		return &v, err
	case domain.TypeTimestamp:
		if s == "" {
			return (*time.Time)(nil), nil
		}
		v, err := time.Parse(time.RFC3339Nano, s)
		return &v, err
	}
	if s == "" {
		return (*string)(nil), nil
	}
	return &s, nil
}

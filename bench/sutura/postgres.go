package sutura

import (
	"bufio"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"sutura.dev/adapters/postgres"
	"sutura.dev/bench/engine"
	"sutura.dev/domain"
)

// PostgresEngine answers benchmark cases through sutura's Postgres adapter
// on tables loaded (with psql's \copy) from the same CSV files the other
// engines read.
type PostgresEngine struct {
	*Engine
	db *postgres.DB
}

// NewPostgresEngine loads the demo tables of dir into a database of the
// server at pgURL (created once per data set and kept, so every fresh
// process of the harness finds it loaded) and returns the engine.
func NewPostgresEngine(ctx context.Context, name, pgURL, dir string) (*PostgresEngine, error) {
	base, err := NewEngine(ctx, name, dir, 0)
	if err != nil {
		return nil, err
	}
	login, err := loadOnce(pgURL, "sutura_bench_", dir, base.bundle.Definitions().Models)
	if err != nil {
		return nil, err
	}
	db, err := postgres.New(ctx, postgres.Config{Source: "demo", Server: postgres.Server{Host: login.host, Port: login.port,
		Database: login.database, User: login.user, Password: []byte(login.password), TransportMode: postgres.Plaintext, MaxConns: 2},
		Models: base.bundle.Definitions().Models})
	if err != nil {
		return nil, err
	}
	return &PostgresEngine{Engine: base, db: db}, nil
}

// Run answers one case on Postgres.
func (e *PostgresEngine) Run(ctx context.Context, c engine.Case) (engine.Result, error) {
	plan, err := e.plan(c)
	if err != nil {
		return engine.Result{}, err
	}
	rs, err := e.db.Execute(ctx, plan)
	if err != nil {
		return engine.Result{}, err
	}
	return result(rs), nil
}

// Close closes the pool.
func (e *PostgresEngine) Close() error { e.db.Close(); return nil }

// load creates the model's table with the CSV header's columns, typed as
// the model declares them, then copies the file in and analyzes it.
func load(u *url.URL, dir string, m *domain.Model) error {
	table := m.BareTable()
	path := filepath.Join(dir, table+".csv")
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	header, err := bufio.NewReader(f).ReadString('\n')
	f.Close()
	if err != nil {
		return err
	}
	var cols []string
	for _, name := range strings.Split(strings.TrimSpace(header), ",") {
		typ := "text"
		if c, ok := m.Column(name); ok {
			typ = map[domain.ColumnType]string{domain.TypeInteger: "bigint", domain.TypeFloat: "double precision",
				domain.TypeDecimal: "numeric", domain.TypeBoolean: "boolean", domain.TypeDate: "date",
				domain.TypeTimestamp: "timestamptz"}[c.Type]
			if typ == "" {
				typ = "text"
			}
		}
		cols = append(cols, fmt.Sprintf("%q %s", name, typ))
	}
	return psql(u,
		fmt.Sprintf("CREATE TABLE %q (%s)", table, strings.Join(cols, ", ")),
		fmt.Sprintf(`\copy %q FROM '%s' WITH (FORMAT csv, HEADER true)`, table, path),
		fmt.Sprintf("ANALYZE %q", table))
}

// psql runs commands with the psql client, one -c each.
func psql(u *url.URL, commands ...string) error {
	args := []string{u.String(), "-v", "ON_ERROR_STOP=1", "-q"}
	for _, c := range commands {
		args = append(args, "-c", c)
	}
	out, err := exec.Command("psql", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("psql: %w: %s", err, out)
	}
	return nil
}

// Warm does nothing: Postgres reads its own buffers; the harness's warm-up
// run warms them.
func (e *PostgresEngine) Warm(context.Context, engine.Case) error { return nil }

// Footprint is unknown for Postgres (its buffers are the server's).
func (e *PostgresEngine) Footprint() int64 { return 0 }

// loadOnce loads the tables of models from the CSV files of dir into a
// database of the server at pgURL named prefix and dir's base name,
// unless an earlier process already did (the database holds a table
// "loaded" once it is complete), and returns the login of that database.
func loadOnce(pgURL, prefix, dir string, models []domain.Model) (pgLogin, error) {
	u, err := url.Parse(pgURL)
	if err != nil {
		return pgLogin{}, fmt.Errorf("SUTURA_PG_URL: %w", err)
	}
	dbName := prefix + strings.ReplaceAll(filepath.Base(dir), "-", "_")
	bu := *u
	bu.Path = "/" + dbName
	if psql(&bu, "SELECT 1 FROM loaded") != nil {
		if err := psql(u, "DROP DATABASE IF EXISTS "+dbName+" WITH (FORCE)", "CREATE DATABASE "+dbName); err != nil {
			return pgLogin{}, err
		}
		for _, m := range models {
			if err := load(&bu, dir, &m); err != nil {
				return pgLogin{}, fmt.Errorf("loading %s: %w", m.Name, err)
			}
		}
		if err := psql(&bu, "CREATE TABLE loaded ()"); err != nil {
			return pgLogin{}, err
		}
	}
	return loginOf(u, dbName), nil
}

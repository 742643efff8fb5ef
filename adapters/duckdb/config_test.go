//go:build cgo

package duckdb_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	duckdb "sutura.dev/adapters/duckdb"
	"sutura.dev/adapters/duckdb/ducktest"
	"sutura.dev/domain"
)

// TestNewRefuses checks each configuration New refuses, naming the key
// (never the configured value: not even a path).
func TestNewRefuses(t *testing.T) {
	path := demoFile(t)
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.duckdb")
	cases := []struct {
		name  string
		edit  func(*duckdb.Config)
		wants []string
	}{
		{"no alias", func(c *duckdb.Config) { c.Source = "" }, []string{"alias"}},
		{"no path", func(c *duckdb.Config) { c.Path = "" }, []string{"path", "is required"}},
		{"missing file", func(c *duckdb.Config) { c.Path = missing }, []string{"path", "does not exist"}},
		{"a directory", func(c *duckdb.Config) { c.Path = dir }, []string{"path", "not a regular file"}},
		{"in memory", func(c *duckdb.Config) { c.Path = ":memory:" }, []string{"path", "database file"}},
		{"options in the path", func(c *duckdb.Config) { c.Path = path + "?access_mode=read_write" }, []string{"path", "may not contain"}},
		{"a fragment in the path", func(c *duckdb.Config) { c.Path = path + "#x" }, []string{"path", "may not contain"}},
		{"impersonation", func(c *duckdb.Config) { c.Posture = domain.ImpersonationAtSource }, []string{"posture", "impersonation-at-source", "shared-service-user"}},
		{"unknown posture", func(c *duckdb.Config) { c.Posture = "anyone" }, []string{"posture"}},
		{"negative threads", func(c *duckdb.Config) { c.Threads = -1 }, []string{"threads"}},
		{"negative memory", func(c *duckdb.Config) { c.MemoryLimitBytes = -1 }, []string{"memory_limit_bytes"}},
		{"too little memory", func(c *duckdb.Config) { c.MemoryLimitBytes = 1 << 20 }, []string{"memory_limit_bytes", "between 16777216"}},
		{"too much memory", func(c *duckdb.Config) { c.MemoryLimitBytes = 1<<40 + 1 }, []string{"memory_limit_bytes", "1 TiB"}},
		{"too many threads", func(c *duckdb.Config) { c.Threads = 1025 }, []string{"threads", "between 1 and 1024"}},
		{"a three-part table", func(c *duckdb.Config) {
			c.Models = []domain.Model{{Name: "m", Source: source, Table: "db.s.t"}}
		}, []string{"model m", "t or schema.t"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := ducktest.Config(source, path, demoModels())
			tc.edit(&cfg)
			db, err := duckdb.New(context.Background(), cfg)
			require.Error(t, err)
			assert.Nil(t, db)
			for _, w := range tc.wants {
				assert.Contains(t, err.Error(), w)
			}
			assert.NotContains(t, err.Error(), dir, "the configured path is not repeated")
			var ce *duckdb.ConfigError
			if errors.As(err, &ce) {
				key, reason := ce.Setting()
				assert.Equal(t, "duckdb source "+source+": "+key+" "+reason, err.Error())
				assert.Equal(t, tc.wants[0], key, "the refusal names its key")
			}
		})
	}
}

// TestNewRefusesAFileDuckDBCannotRead: a file that is not a DuckDB
// database is refused at New with a fixed sentence, the driver's text
// reachable only by unwrapping.
func TestNewRefusesAFileDuckDBCannotRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "not.duckdb")
	require.NoError(t, os.WriteFile(path, []byte("zz-canary: this is not a database, it is a text file of some length\n"), 0o600))
	_, err := duckdb.New(context.Background(), ducktest.Config(source, path, nil))
	var e *duckdb.Error
	require.True(t, errors.As(err, &e), "error: %v", err)
	assert.NotContains(t, err.Error(), "zz-canary")
	assert.Contains(t, err.Error(), "duckdb source demo: the database file cannot be opened read-only")
}

// TestSettingsApply: threads and memory_limit_bytes reach DuckDB, and a
// relative path is resolved.
func TestSettingsApply(t *testing.T) {
	path := demoFile(t)
	wd, err := os.Getwd()
	require.NoError(t, err)
	rel, err := filepath.Rel(wd, path)
	require.NoError(t, err)
	cfg := ducktest.Config(source, rel, demoModels())
	cfg.Threads = 1
	cfg.MemoryLimitBytes = 256 << 20
	db := open(t, cfg)
	rs, err := db.RunSQL(context.Background(), "SELECT current_setting('threads'), current_setting('memory_limit')", 1)
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"1", "256.0 MiB"}}, rendered(rs))
	assert.Equal(t, domain.SharedServiceUser, db.Posture())
	assert.Equal(t, source, db.Source())
	require.NoError(t, db.Ping(context.Background()))
}

// TestClosed: a call after Close fails as unavailable, and Close removes
// the spill directory.
func TestClosed(t *testing.T) {
	db := openDemo(t)
	rs, err := db.RunSQL(context.Background(), "SELECT current_setting('temp_directory')", 1)
	require.NoError(t, err)
	spill := rs.Rows[0][0].Render()
	assert.Contains(t, spill, "sutura-duckdb-", "DuckDB spills to a directory of its own, not beside the file")
	assert.DirExists(t, spill)
	db.Close()
	db.Close()
	assert.NoDirExists(t, spill)
	err = db.Ping(context.Background())
	require.ErrorIs(t, err, domain.ErrUnavailable)
	_, err = db.Execute(context.Background(), compile(t, demoBundle(t),
		`{"metrics":["order_count"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`))
	require.ErrorIs(t, err, domain.ErrUnavailable)
}

// TestTwoSourcesOnOneFile: DuckDB shares one database per file in a
// process; a second source on the same file works, and outlives the
// first.
func TestTwoSourcesOnOneFile(t *testing.T) {
	path := demoFile(t)
	a := open(t, ducktest.Config(source, path, demoModels()))
	b := open(t, ducktest.Config(source, path, demoModels()))
	a.Close()
	rs, err := b.RunSQL(context.Background(), "SELECT count(*) FROM regions", 1)
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"4"}}, rendered(rs))
	_, err = b.RunSQL(context.Background(), "SELECT * FROM read_text('/etc/hostname')", 1)
	assert.Equal(t, domain.SourceRefused, refusalCode(err))
}

// TestReadOnlyAgainstAWriter: a file another connection holds open for
// writing cannot be opened read-only.
func TestReadOnlyAgainstAWriter(t *testing.T) {
	path := demoFile(t)
	w, err := sqlOpenWriter(path)
	require.NoError(t, err)
	defer w.Close()
	_, err = duckdb.New(context.Background(), ducktest.Config(source, path, demoModels()))
	var e *duckdb.Error
	require.True(t, errors.As(err, &e), "error: %v", err)
	assert.Contains(t, err.Error(), "cannot be opened read-only")
}

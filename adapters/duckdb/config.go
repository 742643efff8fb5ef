package duckdb

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// Defaults of the zero Config.
const (
	DefaultMaxConns = 8
	DefaultTimeout  = 30 * time.Second
)

// MinMemoryLimitBytes is the smallest MemoryLimitBytes New accepts: below
// it DuckDB cannot hold one vector of a wide table.
const MinMemoryLimitBytes = 16 << 20

// Config describes one duckdb source. The zero value of every optional
// field is its default; New validates the rest.
type Config struct {
	// Source is the configured source alias; plans whose leg names another
	// source are not executed.
	Source string
	// Path is the DuckDB database file (sources.<alias>.path). It is opened
	// read-only and must exist.
	Path string
	// Threads is how many threads DuckDB runs a statement on; zero means
	// DuckDB's default, the number of cores.
	Threads int
	// MemoryLimitBytes bounds DuckDB's memory; zero means DuckDB's default,
	// 80% of the machine's memory. At least MinMemoryLimitBytes otherwise.
	// A statement that needs more spills to a private temporary directory
	// (removed by Close); one that cannot is refused as
	// resources_exhausted.
	MemoryLimitBytes int64
	// Posture is shared-service-user (empty means the same). DuckDB has no
	// users, so impersonation-at-source is refused.
	Posture domain.Posture
	// Models are the models of this source. Their tables are t or schema.t;
	// Validate checks them and their declared columns.
	Models []domain.Model
	// MaxConns bounds the connections questions run on at once; zero means
	// DefaultMaxConns. Give it the admission bound
	// (runtime.max_concurrent_queries) so a question never waits for one.
	MaxConns int
	// DefaultTimeout is the budget of a call whose context has no deadline;
	// zero means DefaultTimeout.
	DefaultTimeout time.Duration
}

// MaxThreads and MaxMemoryLimitBytes are the largest Threads and
// MemoryLimitBytes New accepts: no setting means unlimited.
const (
	MaxThreads          = 1024
	MaxMemoryLimitBytes = 1 << 40
)

// ConfigError is New's refusal of one setting of the configuration (see
// sqlsource.ConfigError); its text starts "duckdb source <alias>:" and
// holds no configured value (not even the path).
type ConfigError = sqlsource.ConfigError

// configError is the refusal of one key of the source's configuration.
func configError(source, key, reason string) error {
	return &ConfigError{System: "duckdb", Source: source, Key: key, Reason: reason}
}

// normalize validates cfg and fills its defaults. It is the one check of
// a duckdb source's settings: configuration only checks the shape of each
// key.
func (cfg *Config) normalize() error {
	cfg.Models = append([]domain.Model(nil), cfg.Models...)
	s := cfg.Source
	if err := domain.CheckIdent(s); err != nil {
		return fmt.Errorf("duckdb source: the alias %w", err)
	}
	switch cfg.Posture {
	case "":
		cfg.Posture = domain.SharedServiceUser
	case domain.SharedServiceUser:
	case domain.ImpersonationAtSource:
		return configError(s, "posture", "cannot be impersonation-at-source: a DuckDB file has no users to run as; use shared-service-user")
	default:
		return configError(s, "posture", "must be shared-service-user")
	}
	switch {
	case cfg.Threads < 0 || cfg.Threads > MaxThreads:
		return configError(s, "threads", fmt.Sprintf("must be between 1 and %d", MaxThreads))
	case cfg.MemoryLimitBytes < 0 || cfg.MemoryLimitBytes > MaxMemoryLimitBytes ||
		(cfg.MemoryLimitBytes > 0 && cfg.MemoryLimitBytes < MinMemoryLimitBytes):
		return configError(s, "memory_limit_bytes", fmt.Sprintf("must be between %d (16 MiB) and %d (1 TiB)", MinMemoryLimitBytes, MaxMemoryLimitBytes))
	case cfg.MaxConns < 0 || cfg.DefaultTimeout < 0:
		return fmt.Errorf("duckdb source %s: the pool size and the timeout may not be negative", s)
	}
	if cfg.MaxConns == 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	if cfg.DefaultTimeout == 0 {
		cfg.DefaultTimeout = DefaultTimeout
	}
	for i := range cfg.Models {
		m := &cfg.Models[i]
		if n := len(m.TableParts()); n > 2 {
			return fmt.Errorf("duckdb source %s: model %s reads table %s: a duckdb table is t or schema.t", s, m.Name, m.Table)
		}
	}
	return cfg.checkPath()
}

// checkPath refuses a database file that is not there, by name, before
// DuckDB is asked to open it (DuckDB would create a missing file if it
// could, and its own errors are not for the configuration's reader).
func (cfg *Config) checkPath() error {
	s, p := cfg.Source, cfg.Path
	switch {
	case strings.TrimSpace(p) == "":
		return configError(s, "path", "is required: the DuckDB database file")
	case p == ":memory:" || strings.HasPrefix(p, ":memory:"):
		return configError(s, "path", "must be a database file: an in-memory database opened read-only holds nothing")
	case strings.ContainsAny(p, "?#%\x00"):
		// The driver parses its connection string as a URL: a "?" starts
		// the options, a "#" would silently drop them (read-only included).
		return configError(s, "path", "may not contain ?, #, % or NUL")
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return configError(s, "path", "cannot be resolved to an absolute path")
	}
	info, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return configError(s, "path", "names a file that does not exist")
	case err != nil:
		return configError(s, "path", "names a file that cannot be read")
	case !info.Mode().IsRegular():
		return configError(s, "path", "names something that is not a regular file")
	}
	f, err := os.Open(abs)
	if err != nil {
		return configError(s, "path", "names a file that cannot be opened for reading")
	}
	_ = f.Close()
	cfg.Path = abs
	return nil
}

// dsn is the connection string DuckDB opens the database with: read-only,
// with no extension installed or loaded but those built in, and the
// configured threads and memory. The settings DuckDB cannot take here (the
// time zone, which an extension defines; the spill directory, which may
// not follow enable_external_access; that one; and the lock on every
// setting) are set by setUp before any statement runs.
func (cfg *Config) dsn() string {
	v := url.Values{}
	v.Set("access_mode", "read_only")
	v.Set("autoinstall_known_extensions", "false")
	v.Set("autoload_known_extensions", "false")
	v.Set("allow_community_extensions", "false")
	v.Set("allow_unsigned_extensions", "false")
	if cfg.Threads > 0 {
		v.Set("threads", strconv.Itoa(cfg.Threads))
	}
	if cfg.MemoryLimitBytes > 0 {
		v.Set("memory_limit", strconv.FormatInt(cfg.MemoryLimitBytes, 10)+"b")
	}
	return cfg.Path + "?" + v.Encode()
}

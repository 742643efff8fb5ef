package clickhouse

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// Defaults of the zero Config.
const (
	// DefaultPort is the native protocol's port without TLS.
	DefaultPort = 9000
	// DefaultTLSPort is the native protocol's port with TLS.
	DefaultTLSPort  = 9440
	DefaultDatabase = "default"
)

// Config describes one clickhouse source. The zero value of every
// optional field is its default; New validates the rest.
type Config struct {
	// Source is the configured source alias; plans whose leg names another
	// source are not executed.
	Source string
	// Server is where the server is and how to reach it (see
	// sqlsource.Server): Host and User are required; Port zero means
	// DefaultPort in plaintext and DefaultTLSPort otherwise; Database is
	// the database of tables named without one, DefaultDatabase when
	// empty; TransportMode empty means verified; an impersonated identity
	// is a ClickHouse user, assumed with EXECUTE AS; one connection more
	// than MaxConns is kept for stopping statements.
	sqlsource.Server
	// Models are the models of this source; Validate checks their tables
	// and declared columns.
	Models []domain.Model
}

// ConfigError is New's (or Validate's) refusal of one setting of the
// configuration (see sqlsource.ConfigError); its text starts "clickhouse
// source <alias>:".
type ConfigError = sqlsource.ConfigError

// configError is the refusal of one key of the source's configuration.
func configError(source, key, reason string) error {
	return &ConfigError{System: "clickhouse", Source: source, Key: key, Reason: reason}
}

// normalize validates cfg and fills its defaults. It is the one check of
// a clickhouse source's settings: configuration only checks the shape of
// each key.
func (cfg *Config) normalize() error {
	cfg.Models = append([]domain.Model(nil), cfg.Models...)
	n := cfg.network()
	if err := n.Check(); err != nil {
		return err
	}
	if strings.ContainsAny(cfg.User, "\x00\n\r") {
		return n.Refuse("user", "may not hold a NUL character or a line break")
	}
	if strings.ContainsRune(cfg.Database, 0) {
		return n.Refuse("database", "may not hold a NUL character")
	}
	if err := n.Defaults(); err != nil {
		return err
	}
	cfg.Server = n.Server
	if cfg.Database == "" {
		cfg.Database = DefaultDatabase
	}
	if cfg.Port == 0 {
		cfg.Port = DefaultTLSPort
		if cfg.TransportMode == sqlsource.Plaintext {
			cfg.Port = DefaultPort
		}
	}
	if err := cfg.normalizeModels(); err != nil {
		return err
	}
	return sqlsource.CheckPosture(&cfg.Server, "clickhouse", cfg.Source, "ClickHouse user", validUser)
}

// network is the connection part of cfg, as sqlsource checks it.
func (cfg *Config) network() *sqlsource.Network {
	return &sqlsource.Network{System: "clickhouse", Source: cfg.Source, Server: cfg.Server}
}

// identities is the posture part of cfg: the identities are ClickHouse
// users, assumed with EXECUTE AS.
func (cfg *Config) identities() *sqlsource.Identities {
	return sqlsource.ServerIdentities(&cfg.Server, "clickhouse", cfg.Source, "ClickHouse user")
}

// normalizeModels refuses a table path ClickHouse cannot name: a table is
// t or database.t.
func (cfg *Config) normalizeModels() error {
	for _, m := range cfg.Models {
		if n := len(m.TableParts()); n < 1 || n > 2 {
			return fmt.Errorf("clickhouse source %s: model %s: table %s must be t or database.t", cfg.Source, m.Name, m.Table)
		}
	}
	return nil
}

// validUser reports whether name can be written as a quoted identifier:
// not blank and free of NUL and line breaks.
func validUser(name string) bool {
	return strings.TrimSpace(name) != "" && !strings.ContainsAny(name, "\x00\n\r")
}

// addr is the server's address as host:port.
func (cfg *Config) addr() string {
	return net.JoinHostPort(strings.Trim(cfg.Host, "[]"), strconv.Itoa(cfg.Port))
}

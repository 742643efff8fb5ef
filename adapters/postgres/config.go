package postgres

import (
	"context"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgxpool"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// TransportMode is how the connection to the database is protected
// (sources.<alias>.transport_mode); the modes are sqlsource's.
type TransportMode = sqlsource.TransportMode

// The transport modes.
const (
	// Plaintext is allowed only to a loopback address, localhost or a unix
	// socket.
	Plaintext = sqlsource.Plaintext
	// Verified is TLS with the server's certificate verified against
	// Config.CAFile (or the system roots) and the expected server name.
	Verified = sqlsource.Verified
	// Mutual is Verified plus a client certificate.
	Mutual = sqlsource.Mutual
)

// DefaultPort is the port of the zero Config; the pool's bounds default
// as sqlsource says.
const DefaultPort = 5432

// Config describes one postgres source. The zero value of every optional
// field is its default; New validates the rest.
type Config struct {
	// Source is the configured source alias; plans whose leg names another
	// source are not executed.
	Source string
	// Server is where the database is and how to reach it (see
	// sqlsource.Server): exactly one of Host and UnixSocket is set; Port
	// zero means DefaultPort; Database and User are required; an
	// impersonated identity is a database role.
	sqlsource.Server
	// UnixSocket is the directory holding the server's socket, or the
	// socket file itself (.s.PGSQL.<port>, whose port then wins over
	// Port).
	UnixSocket string
	// Models are the models of this source; Validate checks their tables
	// and declared columns.
	Models []domain.Model
	// JIT lets the server compile statements with LLVM (its jit setting).
	// Off by default: compiling is not interruptible, so a cancellation or
	// a deadline waits until it ends (up to seconds for a large statement,
	// every time, since nothing is cached), and metric statements rarely
	// run long enough to earn it back.
	JIT bool
}

// Server is the part of Config every networked SQL source shares (see
// sqlsource.Server).
type Server = sqlsource.Server

// ConfigError is New's refusal of one setting of the configuration (see
// sqlsource.ConfigError); its text starts "postgres source <alias>:".
type ConfigError = sqlsource.ConfigError

// normalize validates cfg and fills its defaults. It is the one check of
// a postgres source's settings: configuration only checks the shape of
// each key.
func (cfg *Config) normalize() error {
	cfg.Models = append([]domain.Model(nil), cfg.Models...)
	n := cfg.network()
	if err := n.Check(); err != nil {
		return err
	}
	if cfg.Database == "" {
		return n.Refuse("database", "is required")
	}
	if err := n.Defaults(); err != nil {
		return err
	}
	cfg.Server = n.Server
	if cfg.UnixSocket != "" {
		dir, port, reason := socketDir(cfg.UnixSocket)
		if reason != "" {
			return n.Refuse("unix_socket", reason)
		}
		cfg.UnixSocket = dir
		if port != 0 {
			cfg.Port = port
		}
	}
	if cfg.Port == 0 {
		cfg.Port = DefaultPort
	}
	return sqlsource.CheckPosture(&cfg.Server, "postgres", cfg.Source, "database role", validRole)
}

// network is the connection part of cfg, as sqlsource checks it.
func (cfg *Config) network() *sqlsource.Network {
	return &sqlsource.Network{System: "postgres", Source: cfg.Source, Server: cfg.Server, Socket: true, UnixSocket: cfg.UnixSocket}
}

// identities is the posture part of cfg: the identities are database
// roles.
func (cfg *Config) identities() *sqlsource.Identities {
	return sqlsource.ServerIdentities(&cfg.Server, "postgres", cfg.Source, "database role")
}

// validRole reports whether name can be a role's name: not blank and free
// of NUL.
func validRole(name string) bool {
	return strings.TrimSpace(name) != "" && !strings.ContainsRune(name, 0)
}

// socketDir returns the directory of a unix socket given as a directory or
// as the socket file .s.PGSQL.<port>, and the port its name holds, or the
// reason p is refused.
func socketDir(p string) (dir string, port int, reason string) {
	if !filepath.IsAbs(p) {
		return "", 0, "must be an absolute path"
	}
	base := filepath.Base(p)
	if rest, ok := strings.CutPrefix(base, ".s.PGSQL."); ok {
		port, err := strconv.Atoi(rest)
		if err != nil || port < 1 || port > 65535 {
			return "", 0, "names a socket file without a valid port"
		}
		return filepath.Dir(p), port, ""
	}
	return p, 0, ""
}

// neutral is the connection string parsed before cfg's own settings are
// set on the result: its explicit values keep PG* environment variables
// from loading certificate files or looking up the OS user while parsing
// (TLS is configured from cfg below; the user is replaced). PGSERVICE, if
// set, is still read by the driver.
const neutral = "sslmode=disable sslrootcert='' sslcert='' sslkey='' sslpassword='' user=sutura"

// poolConfig builds the pgx pool configuration from cfg alone: every
// setting a PG* environment variable or a password file could supply is
// set here after parsing.
func (cfg *Config) poolConfig() (*pgxpool.Config, error) {
	pc, err := pgxpool.ParseConfig(neutral)
	if err != nil {
		return nil, fmt.Errorf("postgres source %s: %w", cfg.Source, err)
	}
	tc, err := cfg.network().TLSConfig()
	if err != nil {
		return nil, err
	}
	cc := pc.ConnConfig
	cc.Host = cfg.Host
	if cfg.UnixSocket != "" {
		cc.Host = cfg.UnixSocket
	}
	cc.Port = uint16(cfg.Port)
	cc.Database = cfg.Database
	cc.User = cfg.User
	cc.Password = string(cfg.Password)
	cc.TLSConfig = tc
	cc.Fallbacks = nil // no second try without TLS, nor on another host
	cc.ValidateConnect = nil
	cc.ConnectTimeout = cfg.ConnectTimeout
	cc.KerberosSrvName, cc.KerberosSpn = "", ""
	cc.SSLNegotiation, cc.SSLCertMode, cc.ChannelBinding, cc.RequireAuth = "postgres", "allow", "prefer", ""
	cc.MinProtocolVersion, cc.MaxProtocolVersion = "3.0", "3.0"
	cc.DialFunc = (&net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}).DialContext
	cc.RuntimeParams = map[string]string{
		"application_name": "sutura/" + cfg.Source,
		// Timestamps bucket by their UTC date, as in the engine.
		"TimeZone":  "UTC",
		"DateStyle": "ISO, YMD",
		// A session with nothing to do holds no transaction open for long.
		"idle_in_transaction_session_timeout": "60000",
	}
	// No message from the server is held whole past maxMessageBytes: a row
	// wider than the result bound is refused from its length alone.
	cc.BuildFrontend = func(r io.Reader, w io.Writer) *pgproto3.Frontend {
		f := pgproto3.NewFrontend(r, w)
		f.SetMaxBodyLen(maxMessageBytes)
		return f
	}
	// On a cancelled context, ask the server to cancel the statement now;
	// close the socket only if it has not answered within a second.
	cc.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: time.Second}
	}
	jit := cfg.JIT
	pc.AfterConnect = func(ctx context.Context, c *pgx.Conn) error { return afterConnect(ctx, c, jit) }
	pc.MaxConns = int32(cfg.MaxConns)
	pc.MinConns = 0
	pc.MaxConnIdleTime = 5 * time.Minute
	pc.HealthCheckPeriod = 30 * time.Second
	return pc, nil
}

// afterConnect sets what depends on the server's version (an unknown
// parameter in the startup packet would refuse the connection): jit
// exists from PostgreSQL 11, client_connection_check_interval from 14.
func afterConnect(ctx context.Context, c *pgx.Conn, jit bool) error {
	major := majorVersion(c.PgConn().ParameterStatus("server_version"))
	var set []string
	if major >= 11 && !jit {
		set = append(set, "SET jit = off")
	}
	if major >= 14 {
		set = append(set, "SET client_connection_check_interval = 1000")
	}
	if len(set) == 0 {
		return nil
	}
	_, err := c.Exec(ctx, strings.Join(set, "; "))
	return err
}

// majorVersion is the leading number of a server_version such as
// "15.18 (Debian 15.18-0+deb12u1)", "9.6.24" or "17beta1"; 0 when none.
func majorVersion(v string) int {
	n := 0
	for _, r := range strings.TrimSpace(v) {
		if r < '0' || r > '9' {
			break
		}
		n = n*10 + int(r-'0')
	}
	return n
}

package postgres

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgxpool"
	"sutura.dev/domain"
)

// TransportMode is how the connection to the database is protected
// (sources.<alias>.transport_mode).
type TransportMode string

// The transport modes.
const (
	// Plaintext is allowed only to a loopback address, localhost or a unix
	// socket.
	Plaintext TransportMode = "plaintext"
	// Verified is TLS with the server's certificate verified against
	// Config.CAFile (or the system roots) and the expected server name.
	Verified TransportMode = "verified"
	// Mutual is Verified plus a client certificate.
	Mutual TransportMode = "mutual"
)

// Defaults of the zero Config.
const (
	DefaultPort           = 5432
	DefaultMaxConns       = 8
	DefaultConnectTimeout = 10 * time.Second
	DefaultTimeout        = 30 * time.Second
)

// Config describes one postgres source. The zero value of every optional
// field is its default; New validates the rest.
type Config struct {
	// Source is the configured source alias; plans whose leg names another
	// source are not executed.
	Source string
	// Host is the database host name or IP address; exactly one of Host and
	// UnixSocket is set.
	Host string
	// Port is the TCP port, or the port in the socket's name; zero means
	// DefaultPort.
	Port int
	// UnixSocket is the directory holding the server's socket, or the
	// socket file itself (.s.PGSQL.<port>, whose port then wins over
	// Port).
	UnixSocket string
	// Database is the database name (required).
	Database string
	// User is the user the pool connects as (required): the service user.
	User string
	// Password is the user's password, already read from password_file;
	// empty when the server needs none. New copies it.
	Password []byte
	// TransportMode is plaintext, verified or mutual; empty means plaintext
	// over a unix socket and verified otherwise. Plaintext is refused to
	// any host but a loopback address or localhost.
	TransportMode TransportMode
	// CAFile is a PEM bundle of the certificate authorities that may sign
	// the server's certificate; empty means the system roots.
	CAFile string
	// CertFile and KeyFile are the client certificate and key (mutual
	// only, both required).
	CertFile, KeyFile string
	// ServerName is the name the server's certificate must carry when it
	// differs from Host (verified and mutual only).
	ServerName string
	// Posture is shared-service-user or impersonation-at-source; empty
	// means shared-service-user.
	Posture domain.Posture
	// Impersonate maps a caller's subject to the database role its legs
	// run as (impersonation-at-source only).
	Impersonate map[string]string
	// VerificationIdentity is the database role Execute runs as under
	// impersonation-at-source: the identity of anchors and of every call
	// that has no caller. Empty means such calls are refused as
	// credential_unavailable.
	VerificationIdentity string
	// Models are the models of this source; Validate checks their tables
	// and declared columns.
	Models []domain.Model
	// MaxConns bounds the pool; zero means DefaultMaxConns. Give it the
	// admission bound (runtime.max_concurrent_queries) so a question never
	// waits for a connection.
	MaxConns int
	// ConnectTimeout bounds establishing one connection; zero means
	// DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// DefaultTimeout is the budget of a call whose context has no
	// deadline; zero means DefaultTimeout.
	DefaultTimeout time.Duration
	// JIT lets the server compile statements with LLVM (its jit setting).
	// Off by default: compiling is not interruptible, so a cancellation or
	// a deadline waits until it ends (up to seconds for a large statement,
	// every time, since nothing is cached), and metric statements rarely
	// run long enough to earn it back.
	JIT bool
}

// ConfigError is New's refusal of one setting of the configuration. Key
// is the setting's key as the configuration spells it under
// sources.<alias> (transport_mode, cert_file); Reason completes the
// sentence "<key> <reason>". Neither holds a configured value, so the
// composition root can report the key with the layer its value came from.
type ConfigError struct {
	Source, Key, Reason string
}

func (e *ConfigError) Error() string {
	return "postgres source " + e.Source + ": " + e.Key + " " + e.Reason
}

// Setting returns the key the refusal concerns and why it is refused.
func (e *ConfigError) Setting() (key, reason string) { return e.Key, e.Reason }

// configError is the refusal of one key of the source's configuration.
func configError(source, key, reason string) error {
	return &ConfigError{Source: source, Key: key, Reason: reason}
}

// normalize validates cfg and fills its defaults. It is the one check of
// a postgres source's settings: configuration only checks the shape of
// each key.
func (cfg *Config) normalize() error {
	s := cfg.Source
	if err := domain.CheckIdent(s); err != nil {
		return fmt.Errorf("postgres source: the alias %w", err)
	}
	switch {
	case cfg.Host != "" && cfg.UnixSocket != "":
		return configError(s, "unix_socket", "is set together with host: set exactly one")
	case cfg.Host == "" && cfg.UnixSocket == "":
		return configError(s, "host", "is required (or unix_socket)")
	case cfg.Host != "" && !validHost(cfg.Host):
		return configError(s, "host", "must be a host name or IP address, without scheme or port")
	case cfg.Database == "":
		return configError(s, "database", "is required")
	case cfg.User == "":
		return configError(s, "user", "is required")
	case cfg.Port < 0 || cfg.Port > 65535:
		return configError(s, "port", "must be between 1 and 65535")
	case cfg.MaxConns < 0 || cfg.ConnectTimeout < 0 || cfg.DefaultTimeout < 0:
		return fmt.Errorf("postgres source %s: the pool size and the timeouts may not be negative", s)
	}
	if cfg.UnixSocket != "" {
		dir, port, reason := socketDir(cfg.UnixSocket)
		if reason != "" {
			return configError(s, "unix_socket", reason)
		}
		cfg.UnixSocket = dir
		if port != 0 {
			cfg.Port = port
		}
	}
	if cfg.Port == 0 {
		cfg.Port = DefaultPort
	}
	if cfg.MaxConns == 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.DefaultTimeout == 0 {
		cfg.DefaultTimeout = DefaultTimeout
	}
	if err := cfg.normalizeTransport(); err != nil {
		return err
	}
	return cfg.normalizePosture()
}

func (cfg *Config) normalizeTransport() error {
	s := cfg.Source
	if cfg.TransportMode == "" {
		cfg.TransportMode = Verified
		if cfg.UnixSocket != "" {
			cfg.TransportMode = Plaintext
		}
	}
	switch cfg.TransportMode {
	case Plaintext:
		if cfg.Host != "" && !loopback(cfg.Host) {
			return configError(s, "transport_mode", "may be plaintext only to a loopback address, localhost or a unix socket: use verified or mutual")
		}
		if err := onlyWith(s, "applies only with transport_mode verified or mutual", "ca_file", cfg.CAFile, "tls_server_name", cfg.ServerName); err != nil {
			return err
		}
	case Verified, Mutual:
		if cfg.UnixSocket != "" {
			return configError(s, "transport_mode", "must be plaintext over a unix socket, where TLS does not apply")
		}
	default:
		return configError(s, "transport_mode", "must be plaintext, verified or mutual")
	}
	if cfg.TransportMode != Mutual {
		return onlyWith(s, "applies only with transport_mode mutual", "cert_file", cfg.CertFile, "key_file", cfg.KeyFile)
	}
	switch {
	case cfg.CertFile == "":
		return configError(s, "cert_file", "is required with transport_mode mutual")
	case cfg.KeyFile == "":
		return configError(s, "key_file", "is required with transport_mode mutual")
	}
	return nil
}

// onlyWith refuses, with reason, the first key of the key, value pairs kv
// whose value is set.
func onlyWith(source, reason string, kv ...string) error {
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			return configError(source, kv[i], reason)
		}
	}
	return nil
}

func (cfg *Config) normalizePosture() error {
	s := cfg.Source
	switch cfg.Posture {
	case "":
		cfg.Posture = domain.SharedServiceUser
	case domain.SharedServiceUser, domain.ImpersonationAtSource:
	default:
		return configError(s, "posture", "must be shared-service-user or impersonation-at-source")
	}
	if cfg.Posture == domain.SharedServiceUser {
		const only = "applies only with posture impersonation-at-source"
		if len(cfg.Impersonate) > 0 {
			return configError(s, "impersonate", only)
		}
		if cfg.VerificationIdentity != "" {
			return configError(s, "verification_identity", only)
		}
	}
	roles := make(map[string]string, len(cfg.Impersonate))
	for subject, role := range cfg.Impersonate {
		switch {
		case strings.TrimSpace(subject) == "":
			return configError(s, "impersonate", "has an empty subject")
		case strings.TrimSpace(role) == "" || strings.ContainsRune(role, 0):
			return configError(s, "impersonate", "maps a subject to an empty or invalid database role")
		}
		roles[subject] = role
	}
	cfg.Impersonate = roles
	if strings.ContainsRune(cfg.VerificationIdentity, 0) || (cfg.VerificationIdentity != "" && strings.TrimSpace(cfg.VerificationIdentity) == "") {
		return configError(s, "verification_identity", "is not a valid role name")
	}
	return nil
}

// loopback reports whether host is on this machine: localhost or a
// loopback IP literal. A name that merely resolves to one is not enough.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && a.IsLoopback()
}

// hostName is the shape of a DNS name.
var hostName = regexp.MustCompile(`^[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?)*\.?$`)

// validHost reports whether host is an IP literal or a DNS name: no
// scheme, port, path or user.
func validHost(host string) bool {
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	return len(host) <= 253 && hostName.MatchString(host)
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

// tlsConfig builds the client TLS configuration of verified and mutual.
func (cfg *Config) tlsConfig() (*tls.Config, error) {
	if cfg.TransportMode == Plaintext {
		return nil, nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: cfg.Host}
	if cfg.ServerName != "" {
		tc.ServerName = cfg.ServerName
	}
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, configError(cfg.Source, "ca_file", "cannot be read")
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, configError(cfg.Source, "ca_file", "holds no PEM certificate")
		}
		tc.RootCAs = pool
	}
	if cfg.TransportMode == Mutual {
		cert, err := tls.LoadX509KeyPair(cfg.CertFile, cfg.KeyFile)
		if err != nil {
			return nil, configError(cfg.Source, "cert_file", "cannot be read as a certificate with the key of key_file")
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
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
	tc, err := cfg.tlsConfig()
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

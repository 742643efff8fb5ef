package clickhouse

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"sutura.dev/domain"
)

// TransportMode is how the connection to the server is protected
// (sources.<alias>.transport_mode).
type TransportMode string

// The transport modes.
const (
	// Plaintext is allowed only to a loopback address or localhost.
	Plaintext TransportMode = "plaintext"
	// Verified is TLS with the server's certificate verified against
	// Config.CAFile (or the system roots) and the expected server name.
	Verified TransportMode = "verified"
	// Mutual is Verified plus a client certificate.
	Mutual TransportMode = "mutual"
)

// Defaults of the zero Config.
const (
	// DefaultPort is the native protocol's port without TLS.
	DefaultPort = 9000
	// DefaultTLSPort is the native protocol's port with TLS.
	DefaultTLSPort        = 9440
	DefaultDatabase       = "default"
	DefaultMaxConns       = 8
	DefaultConnectTimeout = 10 * time.Second
	DefaultTimeout        = 30 * time.Second
)

// Config describes one clickhouse source. The zero value of every
// optional field is its default; New validates the rest.
type Config struct {
	// Source is the configured source alias; plans whose leg names another
	// source are not executed.
	Source string
	// Host is the server's host name or IP address (required).
	Host string
	// Port is the native protocol's TCP port; zero means DefaultPort in
	// plaintext and DefaultTLSPort otherwise.
	Port int
	// Database is the database of tables named without one; empty means
	// DefaultDatabase.
	Database string
	// User is the user the pool signs in as (required): the service user.
	User string
	// Password is the user's password, already read from password_file;
	// empty when the user has none. New copies it.
	Password []byte
	// TransportMode is plaintext, verified or mutual; empty means
	// verified. Plaintext is refused to any host but a loopback address or
	// localhost.
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
	// Impersonate maps a caller's subject to the ClickHouse user its legs
	// run as with EXECUTE AS (impersonation-at-source only).
	Impersonate map[string]string
	// VerificationIdentity is the ClickHouse user Execute runs as under
	// impersonation-at-source: the identity of anchors and of every call
	// that has no caller. Empty means such calls are refused as
	// credential_unavailable.
	VerificationIdentity string
	// Models are the models of this source; Validate checks their tables
	// and declared columns.
	Models []domain.Model
	// MaxConns bounds the pool; zero means DefaultMaxConns. Give it the
	// admission bound (runtime.max_concurrent_queries) so a question never
	// waits for a connection; one more is kept for stopping statements.
	MaxConns int
	// ConnectTimeout bounds establishing one connection; zero means
	// DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// DefaultTimeout is the budget of a call whose context has no
	// deadline; zero means DefaultTimeout.
	DefaultTimeout time.Duration
}

// configError is a problem with the configuration, naming the key.
func configError(source, key, format string, args ...any) error {
	return fmt.Errorf("clickhouse source %s: %s %s", source, key, fmt.Sprintf(format, args...))
}

// normalize validates cfg and fills its defaults.
func (cfg *Config) normalize() error {
	s := cfg.Source
	if err := domain.CheckIdent(s); err != nil {
		return fmt.Errorf("clickhouse source: the alias %w", err)
	}
	switch {
	case strings.TrimSpace(cfg.Host) == "":
		return configError(s, "host", "is required")
	case strings.ContainsAny(cfg.Host, "/@ \t\n") || strings.Contains(strings.Trim(cfg.Host, "[]"), "]"):
		return configError(s, "host", "must be a host name or IP address, without scheme or port")
	case cfg.User == "":
		return configError(s, "user", "is required")
	case strings.ContainsRune(cfg.User, 0) || strings.ContainsRune(cfg.Database, 0):
		return configError(s, "user and database", "may not hold a NUL character")
	case cfg.Port < 0 || cfg.Port > 65535:
		return configError(s, "port", "must be between 1 and 65535")
	case cfg.MaxConns < 0 || cfg.ConnectTimeout < 0 || cfg.DefaultTimeout < 0:
		return configError(s, "max_conns and the timeouts", "may not be negative")
	}
	if cfg.Database == "" {
		cfg.Database = DefaultDatabase
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
	if cfg.Port == 0 {
		cfg.Port = DefaultTLSPort
		if cfg.TransportMode == Plaintext {
			cfg.Port = DefaultPort
		}
	}
	if err := cfg.normalizeModels(); err != nil {
		return err
	}
	return cfg.normalizePosture()
}

func (cfg *Config) normalizeTransport() error {
	s := cfg.Source
	if cfg.TransportMode == "" {
		cfg.TransportMode = Verified
	}
	switch cfg.TransportMode {
	case Plaintext:
		if !loopback(cfg.Host) {
			return configError(s, "transport_mode", "may be plaintext only to a loopback address or localhost: use verified or mutual")
		}
		if cfg.CAFile != "" || cfg.ServerName != "" || cfg.CertFile != "" || cfg.KeyFile != "" {
			return configError(s, "transport_mode", "is plaintext: ca_file, the server name, cert_file and key_file do not apply")
		}
	case Verified, Mutual:
		mutual := cfg.TransportMode == Mutual
		if mutual && (cfg.CertFile == "" || cfg.KeyFile == "") {
			return configError(s, "cert_file", "and key_file are required with transport_mode mutual")
		}
		if !mutual && (cfg.CertFile != "" || cfg.KeyFile != "") {
			return configError(s, "cert_file", "and key_file apply only with transport_mode mutual")
		}
	default:
		return configError(s, "transport_mode", "must be plaintext, verified or mutual")
	}
	return nil
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

func (cfg *Config) normalizePosture() error {
	s := cfg.Source
	switch cfg.Posture {
	case "":
		cfg.Posture = domain.SharedServiceUser
	case domain.SharedServiceUser, domain.ImpersonationAtSource:
	default:
		return configError(s, "posture", "must be shared-service-user or impersonation-at-source")
	}
	if cfg.Posture == domain.SharedServiceUser && (len(cfg.Impersonate) > 0 || cfg.VerificationIdentity != "") {
		return configError(s, "impersonate", "and verification_identity apply only with posture impersonation-at-source")
	}
	users := make(map[string]string, len(cfg.Impersonate))
	for subject, user := range cfg.Impersonate {
		if subject == "" || !validUser(user) {
			return configError(s, "impersonate", "maps an empty subject or names an empty or invalid ClickHouse user")
		}
		users[subject] = user
	}
	cfg.Impersonate = users
	if cfg.VerificationIdentity != "" && !validUser(cfg.VerificationIdentity) {
		return configError(s, "verification_identity", "is not a valid ClickHouse user name")
	}
	return nil
}

// validUser reports whether name can be written as a quoted identifier:
// not blank and free of NUL and line breaks.
func validUser(name string) bool {
	return strings.TrimSpace(name) != "" && !strings.ContainsAny(name, "\x00\n\r")
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

// addr is the server's address as host:port.
func (cfg *Config) addr() string {
	return net.JoinHostPort(strings.Trim(cfg.Host, "[]"), strconv.Itoa(cfg.Port))
}

// tlsConfig builds the client TLS configuration of verified and mutual.
func (cfg *Config) tlsConfig() (*tls.Config, error) {
	if cfg.TransportMode == Plaintext {
		return nil, nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: strings.Trim(cfg.Host, "[]")}
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
			return nil, configError(cfg.Source, "cert_file", "and key_file cannot be read as a certificate and its key")
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

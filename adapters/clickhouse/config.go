package clickhouse

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/netip"
	"os"
	"regexp"
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

// ConfigError is New's (or Validate's) refusal of one setting of the
// configuration. Key is the setting's key as the configuration spells it
// under sources.<alias> (transport_mode, cert_file); Reason completes the
// sentence "<key> <reason>". Neither holds a configured value, so the
// composition root can report the key with the layer its value came from.
type ConfigError struct {
	Source, Key, Reason string
}

func (e *ConfigError) Error() string {
	return "clickhouse source " + e.Source + ": " + e.Key + " " + e.Reason
}

// Setting returns the key the refusal concerns and why it is refused.
func (e *ConfigError) Setting() (key, reason string) { return e.Key, e.Reason }

// configError is the refusal of one key of the source's configuration.
func configError(source, key, reason string) error {
	return &ConfigError{Source: source, Key: key, Reason: reason}
}

// normalize validates cfg and fills its defaults. It is the one check of
// a clickhouse source's settings: configuration only checks the shape of
// each key.
func (cfg *Config) normalize() error {
	s := cfg.Source
	if err := domain.CheckIdent(s); err != nil {
		return fmt.Errorf("clickhouse source: the alias %w", err)
	}
	switch {
	case strings.TrimSpace(cfg.Host) == "":
		return configError(s, "host", "is required")
	case !validHost(cfg.Host):
		return configError(s, "host", "must be a host name or IP address, without scheme or port")
	case cfg.User == "":
		return configError(s, "user", "is required")
	case strings.ContainsAny(cfg.User, "\x00\n\r"):
		return configError(s, "user", "may not hold a NUL character or a line break")
	case strings.ContainsRune(cfg.Database, 0):
		return configError(s, "database", "may not hold a NUL character")
	case cfg.Port < 0 || cfg.Port > 65535:
		return configError(s, "port", "must be between 1 and 65535")
	case cfg.MaxConns < 0 || cfg.ConnectTimeout < 0 || cfg.DefaultTimeout < 0:
		return fmt.Errorf("clickhouse source %s: the pool size and the timeouts may not be negative", s)
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
		if err := onlyWith(s, "applies only with transport_mode verified or mutual", "ca_file", cfg.CAFile, "tls_server_name", cfg.ServerName); err != nil {
			return err
		}
	case Verified, Mutual:
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
	if cfg.Posture == domain.SharedServiceUser {
		const only = "applies only with posture impersonation-at-source"
		if len(cfg.Impersonate) > 0 {
			return configError(s, "impersonate", only)
		}
		if cfg.VerificationIdentity != "" {
			return configError(s, "verification_identity", only)
		}
	}
	users := make(map[string]string, len(cfg.Impersonate))
	for subject, user := range cfg.Impersonate {
		switch {
		case strings.TrimSpace(subject) == "":
			return configError(s, "impersonate", "has an empty subject")
		case !validUser(user):
			return configError(s, "impersonate", "maps a subject to an empty or invalid ClickHouse user")
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

// hostName is the shape of a DNS name.
var hostName = regexp.MustCompile(`^[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?)*\.?$`)

// validHost reports whether host is an IP literal (an IPv6 one possibly
// in brackets) or a DNS name: no scheme, port, path or user.
func validHost(host string) bool {
	if _, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return true
	}
	return len(host) <= 253 && hostName.MatchString(host)
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
			return nil, configError(cfg.Source, "cert_file", "cannot be read as a certificate with the key of key_file")
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

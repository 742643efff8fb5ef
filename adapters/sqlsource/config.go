package sqlsource

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/netip"
	"os"
	"regexp"
	"strings"
	"time"

	"sutura.dev/domain"
)

// ConfigError is an adapter's refusal of one setting of a source's
// configuration. Key is the setting's key as the configuration spells it
// under sources.<alias> (transport_mode, cert_file); Reason completes the
// sentence "<key> <reason>". Neither holds a configured value, so the
// composition root can report the key with the layer its value came from.
type ConfigError struct {
	// System is the kind of the source ("postgres"), the first word of the
	// text.
	System string
	// Source is the configured source alias.
	Source, Key, Reason string
}

func (e *ConfigError) Error() string {
	return e.System + " source " + e.Source + ": " + e.Key + " " + e.Reason
}

// Setting returns the key the refusal concerns and why it is refused.
func (e *ConfigError) Setting() (key, reason string) { return e.Key, e.Reason }

// TransportMode is how the connection to a data system is protected
// (sources.<alias>.transport_mode).
type TransportMode string

// The transport modes.
const (
	// Plaintext is allowed only to a loopback address, localhost or a unix
	// socket.
	Plaintext TransportMode = "plaintext"
	// Verified is TLS with the server's certificate verified against
	// Network.CAFile (or the system roots) and the expected server name.
	Verified TransportMode = "verified"
	// Mutual is Verified plus a client certificate.
	Mutual TransportMode = "mutual"
)

// Server is the part of a networked SQL source's configuration every
// such adapter shares: where the server is, who the pool signs in as, how
// the connection is protected, the posture its calls run under, and the
// pool's bounds. An adapter's Config embeds it; the zero value of every
// optional field is the adapter's default.
type Server struct {
	// Host is the server's host name or IP address (an IPv6 one possibly
	// in brackets).
	Host string
	// Port is the TCP port; zero is the adapter's default.
	Port int
	// Database is the database to use; whether it is required is the
	// adapter's.
	Database string
	// User is the user the pool signs in as (required): the service user.
	User string
	// Password is the user's password, already read from password_file;
	// empty when the user needs none. The adapter's New copies it.
	Password []byte
	// TransportMode is plaintext, verified or mutual; empty means
	// plaintext over a unix socket and verified otherwise. Plaintext is
	// refused to any host but a loopback address or localhost.
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
	// Impersonate maps a caller's subject to the identity of the data
	// system (a database role, a ClickHouse user) its legs run as
	// (impersonation-at-source only).
	Impersonate map[string]string
	// VerificationIdentity is the identity calls without a caller run as
	// under impersonation-at-source (anchors, run_sql). Empty means such
	// calls are refused as credential_unavailable.
	VerificationIdentity string
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
}

// Network is the connection part of a networked SQL source's
// configuration as Check validates it: the Server and what names the
// source. An adapter builds it from its Config, calls Check, and copies
// Server back.
type Network struct {
	// System is the kind of the source ("postgres"), for ConfigError.
	System string
	// Source is the configured source alias.
	Source string
	Server
	// Socket reports whether the system can be reached over a unix socket
	// instead of Host; UnixSocket is its path then.
	Socket     bool
	UnixSocket string
}

// ServerIdentities is the posture part of s, the Server of source, whose
// data system calls an identity noun ("database role").
func ServerIdentities(s *Server, system, source, noun string) *Identities {
	return &Identities{System: system, Source: source, Noun: noun,
		Posture: s.Posture, Impersonate: s.Impersonate, VerificationIdentity: s.VerificationIdentity}
}

// The pool's bounds of a Server whose fields are zero.
const (
	DefaultMaxConns       = 8
	DefaultConnectTimeout = 10 * time.Second
	DefaultTimeout        = 30 * time.Second
)

// Defaults fills the pool's bounds that are zero (DefaultMaxConns,
// DefaultConnectTimeout, DefaultTimeout), after refusing negative ones.
func (n *Network) Defaults() error {
	if n.MaxConns < 0 || n.ConnectTimeout < 0 || n.DefaultTimeout < 0 {
		return fmt.Errorf("%s source %s: the pool size and the timeouts may not be negative", n.System, n.Source)
	}
	if n.MaxConns == 0 {
		n.MaxConns = DefaultMaxConns
	}
	if n.ConnectTimeout == 0 {
		n.ConnectTimeout = DefaultConnectTimeout
	}
	if n.DefaultTimeout == 0 {
		n.DefaultTimeout = DefaultTimeout
	}
	return nil
}

// refuse is the refusal of key of n's source.
func (n *Network) refuse(key, reason string) error {
	return &ConfigError{System: n.System, Source: n.Source, Key: key, Reason: reason}
}

// Check validates the source alias, the address (Host or UnixSocket,
// Port's range), that a User is set, and the transport settings; it fills
// TransportMode's default and copies Password, so that the caller's
// slice is never kept. It is the one check of these keys: configuration
// only checks the shape of each key.
func (n *Network) Check() error {
	if err := domain.CheckIdent(n.Source); err != nil {
		return fmt.Errorf("%s source: the alias %w", n.System, err)
	}
	if err := n.checkAddress(); err != nil {
		return err
	}
	if n.User == "" {
		return n.refuse("user", "is required")
	}
	n.Password = append([]byte(nil), n.Password...)
	return n.checkTransport()
}

// Refuse is the refusal of key of n's source, for reason.
func (n *Network) Refuse(key, reason string) error { return n.refuse(key, reason) }

func (n *Network) checkAddress() error {
	switch {
	case n.Socket && n.Host != "" && n.UnixSocket != "":
		return n.refuse("unix_socket", "is set together with host: set exactly one")
	case n.Socket && n.Host == "" && n.UnixSocket == "":
		return n.refuse("host", "is required (or unix_socket)")
	case !n.Socket && strings.TrimSpace(n.Host) == "":
		return n.refuse("host", "is required")
	case n.Host != "" && !validHost(n.Host):
		return n.refuse("host", "must be a host name or IP address, without scheme or port")
	case n.Port < 0 || n.Port > 65535:
		return n.refuse("port", "must be between 1 and 65535")
	}
	if _, err := netip.ParseAddr(strings.Trim(n.Host, "[]")); err == nil {
		n.Host = strings.Trim(n.Host, "[]")
	}
	return nil
}

func (n *Network) checkTransport() error {
	if n.TransportMode == "" {
		n.TransportMode = Verified
		if n.UnixSocket != "" {
			n.TransportMode = Plaintext
		}
	}
	switch n.TransportMode {
	case Plaintext:
		if n.Host != "" && !Loopback(n.Host) {
			where := "a loopback address or localhost"
			if n.Socket {
				where = "a loopback address, localhost or a unix socket"
			}
			return n.refuse("transport_mode", "may be plaintext only to "+where+": use verified or mutual")
		}
		if err := n.onlyWith("applies only with transport_mode verified or mutual", "ca_file", n.CAFile, "tls_server_name", n.ServerName); err != nil {
			return err
		}
	case Verified, Mutual:
		if n.UnixSocket != "" {
			return n.refuse("transport_mode", "must be plaintext over a unix socket, where TLS does not apply")
		}
	default:
		return n.refuse("transport_mode", "must be plaintext, verified or mutual")
	}
	if n.TransportMode != Mutual {
		return n.onlyWith("applies only with transport_mode mutual", "cert_file", n.CertFile, "key_file", n.KeyFile)
	}
	switch {
	case n.CertFile == "":
		return n.refuse("cert_file", "is required with transport_mode mutual")
	case n.KeyFile == "":
		return n.refuse("key_file", "is required with transport_mode mutual")
	}
	return nil
}

// onlyWith refuses, with reason, the first key of the key, value pairs kv
// whose value is set.
func (n *Network) onlyWith(reason string, kv ...string) error {
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			return n.refuse(kv[i], reason)
		}
	}
	return nil
}

// TLSConfig builds the client TLS configuration of verified and mutual;
// nil for plaintext. Call it after Check.
func (n *Network) TLSConfig() (*tls.Config, error) {
	if n.TransportMode == Plaintext {
		return nil, nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: n.Host}
	if n.ServerName != "" {
		tc.ServerName = n.ServerName
	}
	if n.CAFile != "" {
		pem, err := os.ReadFile(n.CAFile)
		if err != nil {
			return nil, n.refuse("ca_file", "cannot be read")
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, n.refuse("ca_file", "holds no PEM certificate")
		}
		tc.RootCAs = pool
	}
	if n.TransportMode == Mutual {
		cert, err := tls.LoadX509KeyPair(n.CertFile, n.KeyFile)
		if err != nil {
			return nil, n.refuse("cert_file", "cannot be read as a certificate with the key of key_file")
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// Loopback reports whether host is on this machine: localhost or a
// loopback IP literal. A name that merely resolves to one is not enough.
func Loopback(host string) bool {
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

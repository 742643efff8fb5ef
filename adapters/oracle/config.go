package oracle

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"

	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// DefaultPort is the listener's port.
const DefaultPort = 1521

// Config describes one oracle source (docs/contract.md §9). The zero value
// of every optional field is its default; New validates the rest.
type Config struct {
	// Source is the configured source alias; plans whose leg names another
	// source are not executed.
	Source string
	// Server is where the server is and how to reach it (see
	// sqlsource.Server): Host (or UnixSocket) and User are required; Port
	// zero means DefaultPort; Database must be empty (Service names the
	// database); an impersonated identity is a database user the service
	// user connects through (proxy authentication).
	sqlsource.Server
	// Service is the service name the listener knows the database by
	// (required).
	Service string
	// UnixSocket is the path of the listener's unix socket (IPC), instead
	// of Host.
	UnixSocket string
	// WalletDir is a directory holding an auto-login wallet (cwallet.sso)
	// whose certificates TLS uses, instead of CAFile, CertFile and
	// KeyFile (verified and mutual only).
	WalletDir string
	// Models are the models of this source; Validate checks their tables
	// and declared columns.
	Models []domain.Model
}

// ConfigError is New's (or Validate's) refusal of one setting of the
// configuration (see sqlsource.ConfigError); its text starts "oracle
// source <alias>:".
type ConfigError = sqlsource.ConfigError

func configError(source, key, reason string) error {
	return &ConfigError{System: "oracle", Source: source, Key: key, Reason: reason}
}

// serviceName is the shape of a service name.
var serviceName = regexp.MustCompile(`^[A-Za-z0-9_$#.-]+$`)

// normalize validates cfg and fills its defaults. It is the one check of
// an oracle source's settings: configuration only checks the shape of
// each key.
func (cfg *Config) normalize() error {
	cfg.Models = append([]domain.Model(nil), cfg.Models...)
	n := cfg.network()
	if err := n.Check(); err != nil {
		return err
	}
	switch {
	case strings.ContainsAny(cfg.User, "\x00\n\r\"[]"):
		return n.Refuse("user", "may not hold a NUL character, a line break, a double quote or a bracket")
	case cfg.Database != "":
		return n.Refuse("database", "does not apply to an oracle source: use service")
	case cfg.Service == "":
		return n.Refuse("service", "is required: the service name of the database")
	case !serviceName.MatchString(cfg.Service):
		return n.Refuse("service", "is not an Oracle service name")
	case cfg.WalletDir != "" && n.TransportMode == sqlsource.Plaintext:
		return n.Refuse("wallet_dir", "applies only with transport_mode verified or mutual")
	case cfg.WalletDir != "" && (cfg.CAFile != "" || cfg.CertFile != "" || cfg.KeyFile != ""):
		return n.Refuse("wallet_dir", "is set together with ca_file, cert_file or key_file: the wallet holds the certificates, set one or the other")
	}
	if cfg.WalletDir != "" {
		if info, err := os.Stat(cfg.WalletDir); err != nil || !info.IsDir() {
			return n.Refuse("wallet_dir", "is not a directory that can be read")
		}
	}
	if err := n.Defaults(); err != nil {
		return err
	}
	cfg.Server = n.Server
	if cfg.Port == 0 {
		cfg.Port = DefaultPort
	}
	for _, m := range cfg.Models {
		if k := len(m.TableParts()); k < 1 || k > 2 {
			return fmt.Errorf("oracle source %s: model %s: table %s must be T or SCHEMA.T", cfg.Source, m.Name, m.Table)
		}
	}
	return sqlsource.CheckPosture(&cfg.Server, "oracle", cfg.Source, "database user", validUser)
}

// network is the connection part of cfg, as sqlsource checks it.
func (cfg *Config) network() *sqlsource.Network {
	return &sqlsource.Network{System: "oracle", Source: cfg.Source, Server: cfg.Server, Socket: true, UnixSocket: cfg.UnixSocket}
}

// identities is the posture part of cfg: the identities are database
// users the service user connects through.
func (cfg *Config) identities() *sqlsource.Identities {
	return sqlsource.ServerIdentities(&cfg.Server, "oracle", cfg.Source, "database user")
}

// validUser reports whether name can be a proxy client's user name: not
// blank and free of quotes, brackets, NUL and line breaks.
func validUser(name string) bool {
	return strings.TrimSpace(name) != "" && !strings.ContainsAny(name, "\x00\n\r\"[]")
}

// options are go-ora's connection options for a connection as client
// ("" for the service user itself).
func (cfg *Config) options(client string) map[string]string {
	o := map[string]string{
		"CONNECTION TIMEOUT": strconv.Itoa(max(int(cfg.ConnectTimeout.Seconds()), 1)),
		"PROGRAM":            "sutura-" + cfg.Source,
	}
	if cfg.UnixSocket != "" {
		o["UNIX SOCKET"] = cfg.UnixSocket
	}
	if cfg.WalletDir != "" {
		o["SSL"], o["SSL VERIFY"], o["WALLET"] = "true", "true", cfg.WalletDir
	}
	if client != "" {
		o["PROXY CLIENT NAME"] = client
	}
	return o
}

// host is the host go-ora is given: Host, or localhost over a unix socket.
func (cfg *Config) host() string {
	if cfg.Host == "" {
		return "localhost"
	}
	return cfg.Host
}

// dialer dials the listener, with TLS of its own when tc is not nil: a
// fresh copy of tc for each connection, verified by verifyPeer against
// the expected server name.
type dialer struct {
	tc      *tls.Config
	timeout func() net.Dialer
}

func (d dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	nd := d.timeout()
	conn, err := nd.DialContext(ctx, network, address)
	if err != nil || d.tc == nil || network == "unix" {
		return conn, err
	}
	t := tls.Client(conn, d.tc.Clone())
	if err := t.HandshakeContext(ctx); err != nil {
		_ = conn.Close()
		return nil, err
	}
	return t, nil
}

// tlsConfig is the TLS of verified and mutual without a wallet (nil
// otherwise): the client verifies the chain and the name itself, so the
// name checked is tls_server_name (or host) whatever go-ora would set.
func (cfg *Config) tlsConfig() (*tls.Config, error) {
	if cfg.WalletDir != "" || cfg.TransportMode == sqlsource.Plaintext {
		return nil, nil
	}
	tc, err := cfg.network().TLSConfig()
	if err != nil || tc == nil {
		return tc, err
	}
	name, roots := tc.ServerName, tc.RootCAs
	tc.InsecureSkipVerify = true
	tc.VerifyConnection = func(cs tls.ConnectionState) error { return verifyPeer(cs, name, roots) }
	return tc, nil
}

// verifyPeer verifies the server's certificate chain against roots (the
// system's when nil) and name.
func verifyPeer(cs tls.ConnectionState, name string, roots *x509.CertPool) error {
	if len(cs.PeerCertificates) == 0 {
		return errors.New("the server presented no certificate")
	}
	inter := x509.NewCertPool()
	for _, c := range cs.PeerCertificates[1:] {
		inter.AddCert(c)
	}
	_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{DNSName: name, Roots: roots, Intermediates: inter})
	return err
}

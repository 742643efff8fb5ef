package postgres_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	postgres "sutura.dev/adapters/postgres"
	"sutura.dev/domain"
)

// dataSystem is app.DataSystem, restated: this module may not import app.
// cli's compile-time check `var _ app.DataSystem = (*postgres.DB)(nil)`
// holds when this one does.
type dataSystem interface {
	Execute(ctx context.Context, plan *domain.Plan) (*domain.RowSet, error)
}

type validator interface {
	Validate(ctx context.Context) error
}

var (
	_ dataSystem = (*postgres.DB)(nil)
	_ validator  = (*postgres.DB)(nil)
)

func base() postgres.Config {
	return postgres.Config{Source: "warehouse", Server: postgres.Server{Host: "127.0.0.1", Database: "d", User: "u", TransportMode: postgres.Plaintext}}
}

// TestConfigRefusals needs no database: New validates without connecting.
func TestConfigRefusals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*postgres.Config)
		want   string // in the error; "" means accepted
	}{
		{"loopback plaintext", func(*postgres.Config) {}, ""},
		{"localhost plaintext", func(c *postgres.Config) { c.Host = "localhost" }, ""},
		{"ipv6 loopback", func(c *postgres.Config) { c.Host = "::1" }, ""},
		{"plaintext off loopback", func(c *postgres.Config) { c.Host = "10.0.0.5" }, "transport_mode may be plaintext only"},
		{"plaintext to a name", func(c *postgres.Config) { c.Host = "db.internal" }, "transport_mode may be plaintext only"},
		{"default is verified off a socket", func(c *postgres.Config) { c.Host, c.TransportMode = "db.internal", "" }, ""},
		{"socket default plaintext", func(c *postgres.Config) { c.Host, c.UnixSocket, c.TransportMode = "", "/run/postgresql", "" }, ""},
		{"socket file", func(c *postgres.Config) { c.Host, c.UnixSocket = "", "/run/postgresql/.s.PGSQL.5433" }, ""},
		{"socket bad file", func(c *postgres.Config) { c.Host, c.UnixSocket = "", "/run/postgresql/.s.PGSQL.x" }, "unix_socket"},
		{"socket relative", func(c *postgres.Config) { c.Host, c.UnixSocket = "", "run/postgresql" }, "unix_socket"},
		{"socket and host", func(c *postgres.Config) { c.UnixSocket = "/run/postgresql" }, "set exactly one"},
		{"TLS over a socket", func(c *postgres.Config) { c.Host, c.UnixSocket, c.TransportMode = "", "/run", postgres.Verified }, "must be plaintext over a unix socket"},
		{"neither", func(c *postgres.Config) { c.Host = "" }, "host is required (or unix_socket)"},
		{"no database", func(c *postgres.Config) { c.Database = "" }, "database is required"},
		{"no user", func(c *postgres.Config) { c.User = "" }, "user is required"},
		{"bad alias", func(c *postgres.Config) { c.Source = "no-dash" }, "alias"},
		{"bad mode", func(c *postgres.Config) { c.TransportMode = "tls" }, "transport_mode must be"},
		{"ca with plaintext", func(c *postgres.Config) { c.CAFile = "/ca.pem" }, "ca_file applies only with transport_mode verified or mutual"},
		{"mutual without cert", func(c *postgres.Config) { c.Host, c.TransportMode = "db", postgres.Mutual }, "cert_file is required with transport_mode mutual"},
		{"cert with verified", func(c *postgres.Config) { c.Host, c.TransportMode, c.CertFile = "db", postgres.Verified, "/c.pem" }, "cert_file applies only with transport_mode mutual"},
		{"missing CA file", func(c *postgres.Config) {
			c.Host, c.TransportMode, c.CAFile = "db", postgres.Verified, "/nonexistent/ca.pem"
		}, "ca_file cannot be read"},
		{"bad posture", func(c *postgres.Config) { c.Posture = "as-root" }, "posture must be"},
		{"impersonate when shared", func(c *postgres.Config) { c.Impersonate = map[string]string{"a": "r"} }, "impersonate applies only with posture impersonation-at-source"},
		{"empty role", func(c *postgres.Config) {
			c.Posture, c.Impersonate = domain.ImpersonationAtSource, map[string]string{"a": " "}
		}, "impersonate maps"},
		{"impersonating", func(c *postgres.Config) {
			c.Posture, c.Impersonate, c.VerificationIdentity = domain.ImpersonationAtSource, map[string]string{"a": "r"}, "anchors"
		}, ""},
		{"negative pool", func(c *postgres.Config) { c.MaxConns = -1 }, "may not be negative"},
		{"host with a scheme", func(c *postgres.Config) { c.Host = "https://db" }, "host must be a host name or IP address"},
		{"host with a port", func(c *postgres.Config) { c.Host = "db:5432" }, "host must be a host name or IP address"},
		{"tls server name with plaintext", func(c *postgres.Config) { c.ServerName = "db" }, "tls_server_name applies only with transport_mode verified or mutual"},
		{"key without cert", func(c *postgres.Config) { c.Host, c.TransportMode, c.CertFile = "db", postgres.Mutual, "/c.pem" }, "key_file is required with transport_mode mutual"},
		{"verification identity when shared", func(c *postgres.Config) { c.VerificationIdentity = "anchors" }, "verification_identity applies only with posture impersonation-at-source"},
		{"empty subject", func(c *postgres.Config) {
			c.Posture, c.Impersonate = domain.ImpersonationAtSource, map[string]string{" ": "r"}
		}, "impersonate has an empty subject"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base()
			tc.change(&cfg)
			db, err := postgres.New(context.Background(), cfg)
			if tc.want == "" {
				require.NoError(t, err)
				db.Close()
				return
			}
			require.ErrorContains(t, err, tc.want)
			require.ErrorContains(t, err, "postgres source")
			if tc.name != "negative pool" && tc.name != "bad alias" {
				// A setting's refusal names its key, for the composition
				// root to report with the layer it came from.
				var ce *postgres.ConfigError
				require.ErrorAs(t, err, &ce)
				key, reason := ce.Setting()
				require.Equal(t, "postgres source warehouse: "+key+" "+reason, err.Error())
			}
		})
	}
}

// TestCertificateFiles: a CA file that is not PEM and an unreadable client
// key pair are refused at construction, naming the key.
func TestCertificateFiles(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.pem")
	require.NoError(t, os.WriteFile(junk, []byte("not a certificate"), 0o600))
	cfg := base()
	cfg.Host, cfg.TransportMode, cfg.CAFile = "db", postgres.Verified, junk
	_, err := postgres.New(context.Background(), cfg)
	require.ErrorContains(t, err, "ca_file holds no PEM certificate")
	cfg.CAFile, cfg.TransportMode, cfg.CertFile, cfg.KeyFile = "", postgres.Mutual, junk, junk
	_, err = postgres.New(context.Background(), cfg)
	require.ErrorContains(t, err, "cert_file cannot be read as a certificate")
}

// TestUnreachableAtOnce: nothing listens on the port, so a question fails
// as unreachable, quickly, and New itself succeeded (it does not connect).
func TestUnreachableAtOnce(t *testing.T) {
	cfg := base()
	cfg.Port = 1 // nothing listens on port 1 of loopback
	cfg.Models = demoModels("warehouse")
	db, err := postgres.New(context.Background(), cfg)
	require.NoError(t, err)
	defer db.Close()
	require.ErrorIs(t, db.Ping(context.Background()), domain.ErrUnavailable)
	err = db.Validate(context.Background())
	require.ErrorIs(t, err, domain.ErrUnavailable)
	require.Equal(t, "postgres source warehouse: the database cannot be reached", err.Error())
}

// TestUnixSocket connects over a cluster's unix socket (scripts/pg puts it
// in the cluster directory), giving the socket file's path.
func TestUnixSocket(t *testing.T) {
	f := ownCluster(t)
	cfg := f.config()
	cfg.Host, cfg.TransportMode = "", ""
	cfg.UnixSocket = filepath.Join(f.dir, ".s.PGSQL."+strconv.Itoa(int(f.admin.Port)))
	db := open(t, cfg)
	require.NoError(t, db.Ping(context.Background()))
	require.NoError(t, db.Validate(context.Background()))
}

package clickhouse_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/clickhouse"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

func base() clickhouse.Config {
	return clickhouse.Config{Source: "warehouse", Server: sqlsource.Server{Host: "127.0.0.1", User: "u", TransportMode: sqlsource.Plaintext}}
}

// TestConfigRefusals needs no server: New validates without connecting.
func TestConfigRefusals(t *testing.T) {
	dir := t.TempDir()
	badCA := filepath.Join(dir, "ca.pem")
	require.NoError(t, os.WriteFile(badCA, []byte("not a certificate"), 0o600))
	for _, tc := range []struct {
		name   string
		change func(*clickhouse.Config)
		want   string // in the error; "" means accepted
	}{
		{"loopback plaintext", func(*clickhouse.Config) {}, ""},
		{"localhost plaintext", func(c *clickhouse.Config) { c.Host = "localhost" }, ""},
		{"ipv6 loopback", func(c *clickhouse.Config) { c.Host = "::1" }, ""},
		{"plaintext off loopback", func(c *clickhouse.Config) { c.Host = "10.0.0.5" }, "transport_mode may be plaintext only"},
		{"plaintext to a name", func(c *clickhouse.Config) { c.Host = "ch.internal" }, "transport_mode may be plaintext only"},
		{"verified by default", func(c *clickhouse.Config) { c.Host, c.TransportMode = "ch.internal", "" }, ""},
		{"no host", func(c *clickhouse.Config) { c.Host = "" }, "host is required"},
		{"host with scheme", func(c *clickhouse.Config) { c.Host = "tcp://ch" }, "host must be a host name"},
		{"no user", func(c *clickhouse.Config) { c.User = "" }, "user is required"},
		{"bad alias", func(c *clickhouse.Config) { c.Source = "no-dash" }, "alias"},
		{"bad port", func(c *clickhouse.Config) { c.Port = 70000 }, "port must be"},
		{"bad mode", func(c *clickhouse.Config) { c.TransportMode = "tls" }, "transport_mode must be"},
		{"ca with plaintext", func(c *clickhouse.Config) { c.CAFile = "/ca.pem" }, "ca_file applies only with transport_mode verified or mutual"},
		{"mutual without cert", func(c *clickhouse.Config) { c.Host, c.TransportMode = "ch", sqlsource.Mutual }, "cert_file is required with transport_mode mutual"},
		{"cert without mutual", func(c *clickhouse.Config) {
			c.Host, c.TransportMode, c.CertFile, c.KeyFile = "ch", sqlsource.Verified, "/c", "/k"
		}, "cert_file applies only with transport_mode mutual"},
		{"unreadable CA", func(c *clickhouse.Config) {
			c.Host, c.TransportMode, c.CAFile = "ch", sqlsource.Verified, filepath.Join(dir, "missing.pem")
		}, "ca_file cannot be read"},
		{"CA without a certificate", func(c *clickhouse.Config) {
			c.Host, c.TransportMode, c.CAFile = "ch", sqlsource.Verified, badCA
		}, "ca_file holds no PEM certificate"},
		{"bad posture", func(c *clickhouse.Config) { c.Posture = "as-caller" }, "posture must be"},
		{"impersonate when shared", func(c *clickhouse.Config) { c.Impersonate = map[string]string{"a": "b"} }, "impersonate applies only with posture impersonation-at-source"},
		{"impersonate empty user", func(c *clickhouse.Config) {
			c.Posture, c.Impersonate = domain.ImpersonationAtSource, map[string]string{"alice": " "}
		}, "impersonate maps a subject to an empty or invalid ClickHouse user"},
		{"impersonation", func(c *clickhouse.Config) {
			c.Posture, c.Impersonate, c.VerificationIdentity = domain.ImpersonationAtSource, map[string]string{"alice": "analyst"}, "anchors"
		}, ""},
		{"host with a port", func(c *clickhouse.Config) { c.Host = "ch:9000" }, "host must be a host name"},
		{"bracketed ipv6 loopback", func(c *clickhouse.Config) { c.Host = "[::1]" }, ""},
		{"tls server name with plaintext", func(c *clickhouse.Config) { c.ServerName = "ch" }, "tls_server_name applies only with transport_mode verified or mutual"},
		{"verification identity when shared", func(c *clickhouse.Config) { c.VerificationIdentity = "anchors" }, "verification_identity applies only with posture impersonation-at-source"},
		{"three-part table", func(c *clickhouse.Config) {
			c.Models = []domain.Model{{Name: "m", Source: "warehouse", Table: "p.d.t"}}
		}, "must be t or database.t"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base()
			tc.change(&cfg)
			db, err := clickhouse.New(context.Background(), cfg)
			if tc.want == "" {
				require.NoError(t, err)
				db.Close()
				return
			}
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
			var ce *clickhouse.ConfigError
			if errors.As(err, &ce) {
				// A setting's refusal names its key, for the composition
				// root to report with the layer it came from.
				key, reason := ce.Setting()
				require.Equal(t, "clickhouse source warehouse: "+key+" "+reason, err.Error())
				require.Contains(t, tc.want, key)
			}
		})
	}
}

// TestUnreachable: a server that cannot be reached is an *Error that says
// so in a fixed sentence.
func TestUnreachable(t *testing.T) {
	cfg := base()
	cfg.Port = 1 // nothing listens on port 1
	db, err := clickhouse.New(context.Background(), cfg)
	require.NoError(t, err)
	defer db.Close()
	err = db.Ping(context.Background())
	require.ErrorIs(t, err, domain.ErrUnavailable)
	require.Equal(t, "clickhouse source warehouse: the server cannot be reached", err.Error())
}

// TestImpersonationNeedsAMapping: a subject without a user is refused
// before the server is asked (no server runs here), and so is a call
// without a caller when there is no verification identity.
func TestImpersonationNeedsAMapping(t *testing.T) {
	cfg := base()
	cfg.Port = 1
	cfg.Posture = domain.ImpersonationAtSource
	cfg.Impersonate = map[string]string{"alice": "analyst"}
	db, err := clickhouse.New(context.Background(), cfg)
	require.NoError(t, err)
	defer db.Close()
	plan := &domain.Plan{Legs: []domain.Leg{{Source: "warehouse"}}}
	for _, p := range []domain.Principal{{Subject: "bob"}, {}} {
		_, err := db.ExecuteAs(context.Background(), p, plan)
		require.Equal(t, domain.CredentialUnavailable, refusalCode(err))
		require.NotContains(t, err.Error(), "bob")
	}
	_, err = db.Execute(context.Background(), plan)
	require.Equal(t, domain.CredentialUnavailable, refusalCode(err))
	_, err = db.RunSQL(context.Background(), "SELECT 1", 1)
	require.Equal(t, domain.CredentialUnavailable, refusalCode(err))
	require.Equal(t, domain.ImpersonationAtSource, db.Posture())
}

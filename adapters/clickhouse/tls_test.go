package clickhouse_test

import (
	"context"
	"crypto/x509"
	"crypto/x509/pkix"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/clickhouse"
	"sutura.dev/adapters/clickhouse/chtest"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/domain"
)

// TestTLS starts a server of its own that listens with TLS and requires a
// client certificate from a CA made here: mutual connects and answers;
// without the client certificate, with a CA that did not sign the
// server's certificate, or expecting a name the certificate does not
// carry, the server cannot be reached, in the fixed sentence.
func TestTLS(t *testing.T) {
	chtest.Tier.Value(t) // runs where the clickhouse tier runs
	dir := t.TempDir()
	other := sqltest.Issue(t, &x509.Certificate{Subject: pkix.Name{CommonName: "another CA"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}, nil)
	write := func(name string, b []byte, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o600))
		return p
	}
	files := sqltest.WriteTLS(t, "sutura", write)
	caFile, otherFile := files.CA, write("other.pem", other.Cert, 0o600)
	certFile, keyFile := files.ClientCert, files.ClientKey
	t.Setenv("SUTURA_CH_TLS_CERT", files.ServerCert)
	t.Setenv("SUTURA_CH_TLS_KEY", files.ServerKey)
	t.Setenv("SUTURA_CH_TLS_CA", caFile)
	vars := exports(chScript(t, "start"))
	t.Cleanup(func() { chScript(t, "stop", vars["SUTURA_CH_DIR"]) })
	port, err := strconv.Atoi(vars["SUTURA_CH_TLS_PORT"])
	require.NoError(t, err)
	pw, err := os.ReadFile(filepath.Join(vars["SUTURA_CH_DIR"], "password"))
	require.NoError(t, err)

	base := clickhouse.Config{Source: source, Server: sqlsource.Server{Host: "127.0.0.1", Port: port, User: "default", Password: pw,
		TransportMode: sqlsource.Mutual, CAFile: caFile, CertFile: certFile, KeyFile: keyFile}}
	db := open(t, base)
	require.NoError(t, db.Ping(context.Background()))
	rs, err := db.RunSQL(context.Background(), "SELECT 1", 1)
	require.NoError(t, err)
	require.Equal(t, [][]string{{"1"}}, rendered(rs))

	for name, change := range map[string]func(*clickhouse.Config){
		"verified without a client certificate": func(c *clickhouse.Config) {
			c.TransportMode, c.CertFile, c.KeyFile = sqlsource.Verified, "", ""
		},
		"another CA":       func(c *clickhouse.Config) { c.CAFile = otherFile },
		"another name":     func(c *clickhouse.Config) { c.ServerName = "warehouse.example" },
		"the system roots": func(c *clickhouse.Config) { c.CAFile = "" },
	} {
		cfg := base
		change(&cfg)
		err := open(t, cfg).Ping(context.Background())
		require.ErrorIs(t, err, domain.ErrUnavailable, name)
		require.Equal(t, "clickhouse source demo: the server cannot be reached", err.Error(), name)
	}
}

package clickhouse_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/clickhouse"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/adapters/clickhouse/chtest"
	"sutura.dev/domain"
)

// issued is a certificate and its key, PEM-encoded.
type issued struct {
	cert, key []byte
	x509      *x509.Certificate
	priv      *ecdsa.PrivateKey
}

// issue makes a certificate for tmpl, signed by ca (self-signed when ca is
// nil).
func issue(t *testing.T, tmpl *x509.Certificate, ca *issued) issued {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	parent, signer := tmpl, priv
	if ca != nil {
		parent, signer = ca.x509, ca.priv
	}
	tmpl.SerialNumber = big.NewInt(time.Now().UnixNano())
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &priv.PublicKey, signer)
	require.NoError(t, err)
	c, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	kd, err := x509.MarshalPKCS8PrivateKey(priv)
	require.NoError(t, err)
	return issued{
		cert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		key:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kd}),
		x509: c, priv: priv,
	}
}

// TestTLS starts a server of its own that listens with TLS and requires a
// client certificate from a CA made here: mutual connects and answers;
// without the client certificate, with a CA that did not sign the
// server's certificate, or expecting a name the certificate does not
// carry, the server cannot be reached, in the fixed sentence.
func TestTLS(t *testing.T) {
	chtest.URL(t) // runs where the clickhouse tier runs
	dir := t.TempDir()
	ca := issue(t, &x509.Certificate{Subject: pkix.Name{CommonName: "sutura test CA"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}, nil)
	other := issue(t, &x509.Certificate{Subject: pkix.Name{CommonName: "another CA"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}, nil)
	server := issue(t, &x509.Certificate{Subject: pkix.Name{CommonName: "localhost"}, DNSNames: []string{"localhost"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature}, &ca)
	client := issue(t, &x509.Certificate{Subject: pkix.Name{CommonName: "sutura"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature}, &ca)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o600))
		return p
	}
	caFile, otherFile := write("ca.pem", ca.cert), write("other.pem", other.cert)
	certFile, keyFile := write("client.crt", client.cert), write("client.key", client.key)
	t.Setenv("SUTURA_CH_TLS_CERT", write("server.crt", server.cert))
	t.Setenv("SUTURA_CH_TLS_KEY", write("server.key", server.key))
	t.Setenv("SUTURA_CH_TLS_CA", caFile)
	vars := exports(chScript(t, "start"))
	t.Cleanup(func() { chScript(t, "stop", vars["SUTURA_CH_DIR"]) })
	port, err := strconv.Atoi(vars["SUTURA_CH_TLS_PORT"])
	require.NoError(t, err)
	pw, err := os.ReadFile(filepath.Join(vars["SUTURA_CH_DIR"], "password"))
	require.NoError(t, err)

	base := clickhouse.Config{Source: source, Server: sqlsource.Server{Host: "127.0.0.1", Port: port, User: "default", Password: pw,
		TransportMode: clickhouse.Mutual, CAFile: caFile, CertFile: certFile, KeyFile: keyFile}}
	db := open(t, base)
	require.NoError(t, db.Ping(context.Background()))
	rs, err := db.RunSQL(context.Background(), "SELECT 1", 1)
	require.NoError(t, err)
	require.Equal(t, [][]string{{"1"}}, rendered(rs))

	for name, change := range map[string]func(*clickhouse.Config){
		"verified without a client certificate": func(c *clickhouse.Config) {
			c.TransportMode, c.CertFile, c.KeyFile = clickhouse.Verified, "", ""
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

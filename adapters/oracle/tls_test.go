package oracle

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/adapters/sqlsource/sqltest"
)

// tlsListener accepts TLS connections with files' server certificate
// (for localhost and 127.0.0.1), requiring a client certificate signed by
// files' CA when mutual, and completes each handshake.
func tlsListener(t *testing.T, files sqltest.TLSFiles, mutual bool) string {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(files.ServerCert, files.ServerKey)
	require.NoError(t, err)
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if mutual {
		pem, err := os.ReadFile(files.CA)
		require.NoError(t, err)
		pool := x509.NewCertPool()
		require.True(t, pool.AppendCertsFromPEM(pem))
		cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	l, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				_ = c.(*tls.Conn).Handshake()
				// The client reads the server's verdict on its certificate
				// (TLS 1.3 sends it after the handshake).
				_, _ = c.Write([]byte{0})
				time.Sleep(100 * time.Millisecond)
				_ = c.Close()
			}()
		}
	}()
	return l.Addr().String()
}

// TestTLSDialer: the adapter's own TLS verifies the chain against ca_file
// and the name against tls_server_name (or host), whatever go-ora sets,
// and presents the client certificate under mutual.
func TestTLSDialer(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, pem []byte, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, pem, mode))
		return p
	}
	files := sqltest.WriteTLS(t, "client", write)
	other := sqltest.WriteTLS(t, "client", func(name string, pem []byte, mode os.FileMode) string {
		return write("other-"+name, pem, mode)
	})
	for _, tc := range []struct {
		name   string
		mutual bool
		edit   func(*Config)
		ok     bool
	}{
		{"verified", false, func(*Config) {}, true},
		{"the name of the certificate", false, func(c *Config) { c.ServerName = "localhost" }, true},
		{"another name", false, func(c *Config) { c.ServerName = "db.example.test" }, false},
		{"another CA", false, func(c *Config) { c.CAFile = other.CA }, false},
		{"mutual", true, func(c *Config) {
			c.TransportMode, c.CertFile, c.KeyFile = sqlsource.Mutual, files.ClientCert, files.ClientKey
		}, true},
		{"mutual without a client certificate", true, func(*Config) {}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := tlsListener(t, files, tc.mutual)
			host, port, err := net.SplitHostPort(addr)
			require.NoError(t, err)
			cfg := Config{Source: "wh", Service: "FREEPDB1", Server: sqlsource.Server{Host: host, User: "svc",
				TransportMode: sqlsource.Verified, CAFile: files.CA}}
			cfg.Port, _ = net.LookupPort("tcp", port)
			tc.edit(&cfg)
			require.NoError(t, cfg.normalize())
			tlsc, err := cfg.tlsConfig()
			require.NoError(t, err)
			require.NotNil(t, tlsc)
			d := dialer{tc: tlsc, timeout: func() net.Dialer { return net.Dialer{Timeout: 2 * time.Second} }}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			conn, err := d.DialContext(ctx, "tcp", addr)
			if err == nil {
				// A refused client certificate shows on the first read.
				_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
				_, err = conn.Read(make([]byte, 1))
				_ = conn.Close()
			}
			if tc.ok {
				assert.NoError(t, err)
			} else {
				assert.Error(t, err)
			}
		})
	}
	t.Run("plaintext and a wallet use none", func(t *testing.T) {
		cfg := Config{Source: "wh", Service: "S", Server: sqlsource.Server{Host: "127.0.0.1", User: "u", TransportMode: sqlsource.Plaintext}}
		require.NoError(t, cfg.normalize())
		tlsc, err := cfg.tlsConfig()
		require.NoError(t, err)
		assert.Nil(t, tlsc)
		cfg = Config{Source: "wh", Service: "S", WalletDir: dir, Server: sqlsource.Server{Host: "db.example.com", User: "u"}}
		require.NoError(t, cfg.normalize())
		tlsc, err = cfg.tlsConfig()
		require.NoError(t, err)
		assert.Nil(t, tlsc)
		assert.Equal(t, "true", cfg.options("")["SSL"])
		assert.Equal(t, dir, cfg.options("")["WALLET"])
	})
}

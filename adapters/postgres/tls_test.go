package postgres_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	postgres "sutura.dev/adapters/postgres"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/domain"
)

// TestTLS turns TLS on in a cluster of its own (a CA made here, a server
// certificate for localhost and 127.0.0.1) and connects verified and
// mutual: the session is encrypted, the client certificate is presented,
// and a server name the certificate does not carry, or a CA that did not
// sign it, is a database that cannot be reached.
func TestTLS(t *testing.T) {
	f := ownCluster(t)
	dir := f.dir
	// The server's files sit in the cluster directory, owned by the
	// cluster's owner (the server refuses a key others can read).
	tlsDir := filepath.Join(dir, "tls-"+f.suffix)
	require.NoError(t, os.MkdirAll(tlsDir, 0o755))
	t.Cleanup(func() { os.RemoveAll(tlsDir) })
	st, err := os.Stat(filepath.Join(dir, "data"))
	require.NoError(t, err)
	owner := st.Sys().(*syscall.Stat_t)
	write := func(name string, b []byte, mode os.FileMode) string {
		p := filepath.Join(tlsDir, name)
		require.NoError(t, os.WriteFile(p, b, mode))
		if os.Geteuid() == 0 {
			require.NoError(t, os.Chown(p, int(owner.Uid), int(owner.Gid)))
		}
		return p
	}
	files := sqltest.WriteTLS(t, f.role("reader"), write)
	caFile, serverCert, serverKey := files.CA, files.ServerCert, files.ServerKey
	clientCert, clientKey := files.ClientCert, files.ClientKey
	f.exec(t, "ALTER SYSTEM SET ssl_cert_file = '"+serverCert+"'")
	f.exec(t, "ALTER SYSTEM SET ssl_key_file = '"+serverKey+"'")
	f.exec(t, "ALTER SYSTEM SET ssl_ca_file = '"+caFile+"'")
	f.exec(t, "ALTER SYSTEM SET ssl = on")
	f.exec(t, "SELECT pg_reload_conf()")
	t.Cleanup(func() {
		for _, s := range []string{"ssl", "ssl_cert_file", "ssl_key_file", "ssl_ca_file"} {
			f.exec(t, "ALTER SYSTEM RESET "+s)
		}
		f.exec(t, "SELECT pg_reload_conf()")
	})
	time.Sleep(200 * time.Millisecond) // the postmaster reloads asynchronously

	ctx := context.Background()
	session := "SELECT ssl, coalesce(client_dn, '') FROM pg_stat_ssl WHERE pid = pg_backend_pid()"
	verified := f.config()
	verified.Host, verified.TransportMode, verified.CAFile = "localhost", postgres.Verified, caFile
	rs, err := open(t, verified).RunSQL(ctx, session, 1)
	require.NoError(t, err)
	require.Equal(t, [][]string{{"true", ""}}, rendered(rs))

	byIP := verified
	byIP.Host = "127.0.0.1"
	require.NoError(t, open(t, byIP).Ping(ctx), "the certificate names the IP too")

	mutual := verified
	mutual.TransportMode, mutual.CertFile, mutual.KeyFile = postgres.Mutual, clientCert, clientKey
	rs, err = open(t, mutual).RunSQL(ctx, session, 1)
	require.NoError(t, err)
	require.Equal(t, [][]string{{"true", "/CN=" + f.role("reader")}}, rendered(rs))

	wrongName := verified
	wrongName.ServerName = "db.example"
	require.ErrorIs(t, open(t, wrongName).Ping(ctx), domain.ErrUnavailable)

	systemRoots := verified
	systemRoots.CAFile = ""
	require.ErrorIs(t, open(t, systemRoots).Ping(ctx), domain.ErrUnavailable)
}

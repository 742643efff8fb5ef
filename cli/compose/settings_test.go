package compose

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/cli/internal/config"
)

// planted is a distinctive value put where a refused setting goes: no
// message may repeat it.
const planted = "zz-secret-value-77"

// TestSourceSettingsAreCheckedOnceByTheirAdapter: what a kind requires of
// its settings is checked by its adapter alone, when the source is opened
// (serve, mcp, validate) or pinged (doctor), and the refusal still reads
// like the loader's own: the key under sources.<alias>, the layer (file,
// line and column, or variable) its value came from, why — and never the
// value.
func TestSourceSettingsAreCheckedOnceByTheirAdapter(t *testing.T) {
	pg := "kind: postgres, posture: shared-service-user, user: u, "
	pgNet := pg + "database: d, "
	ch := "kind: clickhouse, posture: shared-service-user, user: u, "
	duck := "kind: duckdb, posture: shared-service-user, "
	for _, tc := range []struct {
		name, source string
		env          map[string]string
		key, also    string
		value        string // must not appear; planted when empty
	}{
		{"postgres: neither host nor socket", pg + "database: " + planted, nil, "host", "is required (or unix_socket)", ""},
		{"postgres: host and socket", pgNet + "host: localhost, unix_socket: /run/" + planted, nil, "unix_socket", "set exactly one", ""},
		{"postgres: host with a scheme", pgNet + "host: 'https://" + planted + "'", nil, "host", "without scheme or port", ""},
		{"postgres: no user", "kind: postgres, posture: shared-service-user, database: d, host: " + planted + ".example", nil, "user", "is required", ""},
		{"postgres: no database", pg + "host: " + planted + ".example", nil, "database", "is required", ""},
		{"postgres: port out of range", pgNet + "host: localhost, transport_mode: plaintext, port: 77007700", nil, "port", "between 1 and 65535", "77007700"},
		{"postgres: unknown transport", pgNet + "host: localhost, transport_mode: " + planted, nil, "transport_mode", "must be plaintext, verified or mutual", ""},
		{"postgres: plaintext to the network", pgNet + "host: " + planted + ".example, transport_mode: plaintext", nil, "transport_mode", "loopback", ""},
		{"postgres: a CA with plaintext", pgNet + "host: localhost, transport_mode: plaintext, ca_file: " + planted, nil, "ca_file", "verified or mutual", ""},
		{"postgres: a server name over a socket", pgNet + "unix_socket: /run/pg, tls_server_name: " + planted, nil, "tls_server_name", "verified or mutual", ""},
		{"postgres: TLS over a socket", pgNet + "unix_socket: /run/" + planted + ", transport_mode: verified", nil, "transport_mode", "unix socket", ""},
		{"postgres: mutual without a certificate", pgNet + "host: db.example, transport_mode: mutual, key_file: " + planted, nil, "cert_file", "required with transport_mode mutual", ""},
		{"postgres: a client key without mutual", pgNet + "host: db.example, key_file: " + planted, nil, "key_file", "only with transport_mode mutual", ""},
		{"postgres: a verification identity when shared", pgNet + "unix_socket: /run/pg, verification_identity: " + planted, nil, "verification_identity", "only with posture impersonation-at-source", ""},
		{"postgres: impersonate when shared", pgNet + "host: db.example, impersonate: {alice: " + planted + "}", nil, "impersonate", "only with posture impersonation-at-source", ""},
		{"postgres: impersonate without a role", "kind: postgres, posture: impersonation-at-source, user: u, database: " + planted + ", host: db.example, impersonate: {alice: ''}",
			nil, "impersonate", "empty or invalid database role", ""},
		{"postgres: a setting from a variable", pgNet + "host: " + planted + ".example", map[string]string{"SUTURA__SOURCES__S__TRANSPORT_MODE": "plaintext"},
			"transport_mode", "loopback", ""},
		{"clickhouse: no host", ch + "database: " + planted, nil, "host", "is required", ""},
		{"clickhouse: plaintext to the network", ch + "host: " + planted + ".example, transport_mode: plaintext", nil, "transport_mode", "loopback", ""},
		{"clickhouse: mutual without a key", ch + "host: ch.example, transport_mode: mutual, cert_file: " + planted, nil, "key_file", "required with transport_mode mutual", ""},
		{"duckdb: no path", duck + "threads: 2", nil, "path", "is required", ""},
		{"duckdb: a file that does not exist", duck + "path: " + planted + ".duckdb", nil, "path", "does not exist", ""},
		{"duckdb: too many threads", duck + "path: x.duckdb, threads: 77007", nil, "threads", "between 1 and 1024", "77007"},
		{"duckdb: too much memory", duck + "path: x.duckdb, memory_limit_bytes: 77007700770077", nil, "memory_limit_bytes", "1 TiB", "77007700770077"},
		{"duckdb: impersonation", "kind: duckdb, posture: impersonation-at-source, path: " + planted + ".duckdb, impersonate: {}", nil,
			"posture", "use shared-service-user", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := configEnv(t, shopCatalog, "  s: {"+tc.source+"}\n")
			for k, v := range tc.env {
				env[k] = v
			}
			key, layer := "sources.s."+tc.key, filepath.Join(env["SUTURA_CONFIG_DIR"], "base.yaml")
			for k := range tc.env {
				if strings.HasSuffix(k, "__"+strings.ToUpper(tc.key)) {
					layer = k
				}
			}
			value := tc.value
			if value == "" {
				value = planted
			}
			check := func(err error) {
				t.Helper()
				require.Error(t, err)
				assert.NotContains(t, err.Error(), value, "a message repeats the value")
				errs := config.Errors(err)
				require.Len(t, errs, 1, "not a refusal of the configuration: %v", err)
				e := errs[0]
				assert.Equal(t, key, e.Key, e.Error())
				assert.Equal(t, layer, e.Layer, e.Error())
				assert.True(t, strings.HasPrefix(e.Error(), layer), e.Error())
				assert.Contains(t, e.Error(), ": "+key+": ")
				if tc.env == nil {
					// The line of the source, where the key was set or is missing.
					assert.Equal(t, 6, e.Line, e.Error())
				}
				assert.Contains(t, e.Error(), tc.also)
			}
			p, err := Open(t.Context(), env, &bytes.Buffer{}, Options{})
			require.Nil(t, p)
			check(err)

			// doctor reports the same refusal for the source, and reaches the
			// files source beside it.
			cfg, err := LoadConfig(env, nil)
			require.NoError(t, err, "the loader leaves the kind's requirements to its adapter")
			checks := CheckSources(t.Context(), cfg)
			require.Len(t, checks, 2)
			assert.NoError(t, checks[0].Err, "files")
			check(checks[1].Err)
		})
	}
}

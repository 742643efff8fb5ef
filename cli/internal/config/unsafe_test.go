package config

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Token files shared by the unsafe-combination cases.
var tokens = map[string]string{"access": "access-token-1\n", "metrics": "metrics-token-2\n", "same": "access-token-1\r\n"}

func with(files map[string]string, more map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range []map[string]string{files, more} {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

const (
	multiUserInbound = "security:\n  identity: multi-user\n  access_token_file: access\n" +
		"  inbound: {mode: direct, issuer: https://id.example, audience: sutura, jwks_file: jwks.json, algorithms: [RS256]}\n"
	pgSource = "  pg: {kind: postgres, posture: %s, host: db.example.com, database: d, user: u}\n"
)

func TestRefusedUnsafeCombinations(t *testing.T) {
	runRefusals(t, []refusalCase{
		{"non-loopback bind without TLS termination", with(tokens, base("security: {access_token_file: access}\nserver:\n  host: 10.77.77.77\n  agent_surface: {enabled: false}")), nil,
			refusal{key: "server.host", layer: "base.yaml", at: ":3:9", also: "server.tls_terminated_upstream", value: "10.77.77.77"}},
		{"non-loopback bind from a variable", with(tokens, base("security: {access_token_file: access}\nserver: {agent_surface: {enabled: false}}")), Env{"SUTURA__SERVER__HOST": "10.77.77.77"},
			refusal{key: "server.host", layer: "SUTURA__SERVER__HOST", value: "10.77.77.77"}},
		{"free port in production", with(tokens, map[string]string{"base.yaml": "security: {access_token_file: access}", "production.yaml": "server: {port: 0}"}), Env{EnvEnvironment: "production"},
			refusal{key: "server.port", layer: "production.yaml", also: "in production"}},
		{"no access token in production", nil, Env{EnvEnvironment: "production"},
			refusal{key: "security.access_token_file", layer: "defaults", also: "in production (SUTURA_ENVIRONMENT)"}},
		{"access token cleared in production", with(tokens, map[string]string{"base.yaml": "security: {access_token_file: access}", "production.yaml": "security: {access_token_file: ''}"}), Env{EnvEnvironment: "production"},
			refusal{key: "security.access_token_file", layer: "production.yaml", also: "is required in production"}},
		{"no access token off loopback", base("server: {host: 10.77.77.77, tls_terminated_upstream: true, agent_surface: {enabled: false}}"), nil,
			refusal{key: "security.access_token_file", layer: "defaults", also: "server.host, from ", value: "10.77.77.77"}},
		{"metrics token equal to the access token", with(map[string]string{"a": planted + "\n", "m": planted}, base("security: {access_token_file: a, metrics_token_file: m}")), nil,
			refusal{key: "security.metrics_token_file", layer: "base.yaml", also: "equal to the access token (security.access_token_file, from "}},
		{"run_sql in multi-user mode", with(tokens, base(multiUserInbound+"tools: {run_sql: {enabled: true}}")), nil,
			refusal{key: "tools.run_sql.enabled", layer: "base.yaml", also: "multi-user mode (security.identity, from "}},
		{"run_sql when a later layer turns multi-user on", with(tokens, map[string]string{"base.yaml": "tools: {run_sql: {enabled: true}}", "production.yaml": multiUserInbound}),
			Env{EnvEnvironment: "production"}, refusal{key: "tools.run_sql.enabled", layer: "base.yaml", also: "production.yaml"}},
		{"/mcp in multi-user without inbound", with(tokens, base("security: {identity: multi-user}\nserver: {agent_surface: {enabled: true}}")), nil,
			refusal{key: "server.agent_surface.enabled", layer: "base.yaml", also: "configure security.inbound"}},
		{"/mcp by default in multi-user without inbound", with(tokens, base("security: {identity: multi-user}")), nil,
			refusal{key: "server.agent_surface.enabled", layer: "defaults", also: "single-user on a loopback address"}},
		{"/mcp single-user off loopback without inbound", with(tokens, base("security: {access_token_file: access}\nserver: {host: 10.77.77.77, tls_terminated_upstream: true}")), nil,
			refusal{key: "server.agent_surface.enabled", layer: "defaults", also: "(server.host, from ", value: "10.77.77.77"}},
		{"shared source in multi-user without acknowledgement", with(tokens, base(multiUserInbound+"sources:\n"+fmt.Sprintf(pgSource, "shared-service-user"))), nil,
			refusal{key: "sources.pg.acknowledged_because", layer: "base.yaml", at: ":6:3", also: "multi-user mode"}},
		{"a shared source of a deployment that can federate", with(tokens, base(multiUserInbound+"sources:\n"+fmt.Sprintf(pgSource, "impersonation-at-source")+
			"  f: {kind: files, posture: shared-service-user, data_dir: d}")), nil,
			refusal{key: "sources.f.acknowledged_because", layer: "base.yaml", also: "combined in one answer"}},
		{"blank acknowledgement", with(tokens, base(multiUserInbound+"sources:\n  f: {kind: files, posture: shared-service-user, data_dir: d, acknowledged_because: '  '}")), nil,
			refusal{key: "sources.f.acknowledged_because", layer: "base.yaml"}},
		{"impersonation without a subject", with(tokens, base("security: {identity: single-user}\nsources:\n"+fmt.Sprintf(pgSource, "impersonation-at-source"))), nil,
			refusal{key: "sources.pg.impersonate", layer: "base.yaml", also: "without a way to carry the subject"}},
		{"bigquery impersonation without a subject", with(tokens, base("security: {identity: single-user}\nsources:\n  bq: {kind: bigquery, posture: impersonation-at-source, project: p}")), nil,
			refusal{key: "sources.bq.posture", layer: "base.yaml", also: "configure security.inbound"}},
		{"single-user sources in production without a reason", with(tokens, base("security: {identity: single-user, access_token_file: access}\nsources:\n  f: {kind: files, posture: shared-service-user, data_dir: d}")),
			Env{EnvEnvironment: "production"}, refusal{key: "security.single_user_because", layer: "defaults", also: "in production (SUTURA_ENVIRONMENT)"}},
		{"single-user sources off loopback without a reason", with(tokens, base("security: {identity: single-user, access_token_file: access, single_user_because: ' '}\n"+
			"server: {host: 10.77.77.77, tls_terminated_upstream: true, agent_surface: {enabled: false}}\nsources:\n  f: {kind: files, posture: shared-service-user, data_dir: d}")), nil,
			refusal{key: "security.single_user_because", layer: "base.yaml", also: "off loopback (server.host, from ", value: "10.77.77.77"}},
	})
}

func TestSafeCombinations(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		env   Env
	}{
		{"single-user with a source on loopback needs no reason", base("security: {identity: single-user}\nsources:\n  f: {kind: files, posture: shared-service-user, data_dir: d}"), nil},
		{"single-user in production with a reason", with(tokens, base("security: {identity: single-user, access_token_file: access, single_user_because: one analyst's laptop}\n"+
			"sources:\n  f: {kind: files, posture: shared-service-user, data_dir: d}")), Env{EnvEnvironment: "production"}},
		{"off loopback behind a TLS proxy with a token and no /mcp", with(tokens, base("security: {access_token_file: access}\nserver: {host: 0.0.0.0, tls_terminated_upstream: true, agent_surface: {enabled: false}}")), nil},
		{"distinct metrics token", with(tokens, base("security: {access_token_file: access, metrics_token_file: metrics}")), nil},
		{"run_sql single-user", base("tools: {run_sql: {enabled: true}}"), nil},
		{"multi-user with inbound and acknowledged shared source", with(tokens, base(multiUserInbound+"sources:\n  f: {kind: files, posture: shared-service-user, data_dir: d, acknowledged_because: public data}")), nil},
		{"federating sources, each shared one acknowledged", with(tokens, base(multiUserInbound+"sources:\n"+fmt.Sprintf(pgSource, "impersonation-at-source")+
			"  f: {kind: files, posture: shared-service-user, data_dir: d, acknowledged_because: the store list is public}\ngovernance: {lookup_leg_ceiling: 8, source_ceiling: 2, max_leg_rows: 10000000}")), nil},
		{"impersonation carried by inbound identity", with(tokens, base(multiUserInbound+"sources:\n"+fmt.Sprintf(pgSource, "impersonation-at-source"))), nil},
		{"impersonation carried by a mapping", base("security: {identity: single-user}\nsources:\n  pg: {kind: postgres, posture: impersonation-at-source, host: db.example.com, database: d, user: u, impersonate: {alice: analyst}}"), nil},
		{"inbound on IPv6 loopback", base("server: {host: '::1'}"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := loadDir(t, tt.files, tt.env)
			require.NoError(t, err)
		})
	}
}

func TestSecretTrailingLineEnding(t *testing.T) {
	cfg, _ := mustLoad(t, with(tokens, base("security: {access_token_file: access, metrics_token_file: metrics}")), nil)
	assert.Equal(t, []byte("access-token-1"), cfg.Security.AccessToken.Reveal())
	assert.Equal(t, []byte("metrics-token-2"), cfg.Security.MetricsToken.Reveal())

	_, dir, err := loadDir(t, with(tokens, base("security: {access_token_file: access, metrics_token_file: same}")), nil)
	requireRefusal(t, err, dir, refusal{key: "security.metrics_token_file", layer: "base.yaml", value: "access-token-1"})
}

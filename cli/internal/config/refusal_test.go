package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refusalCase is one configuration that must be refused.
type refusalCase struct {
	name  string
	files map[string]string
	env   Env
	want  refusal
}

// runRefusals loads each case and checks its refusal.
func runRefusals(t *testing.T, cases []refusalCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, dir, err := loadDir(t, tc.files, tc.env)
			assert.Nil(t, cfg)
			requireRefusal(t, err, dir, tc.want)
		})
	}
}

// base is a shorthand for a base.yaml-only configuration.
func base(yaml string) map[string]string { return map[string]string{"base.yaml": yaml} }

// withSource wraps the YAML of one source "s" in a single-user configuration.
func withSource(src string) map[string]string {
	return base("security: {identity: single-user}\nsources:\n  s:\n" + indent(src, "    "))
}

func indent(s, by string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = by + l
	}
	return strings.Join(lines, "\n") + "\n"
}

func TestRefusedUnknownKeys(t *testing.T) {
	runRefusals(t, []refusalCase{
		{"top level in base", base("colour: " + planted),
			nil, refusal{key: "colour", layer: "base.yaml", at: ":1:1"}},
		{"nested in base", base("server:\n  port: 1\n  colour: " + planted),
			nil, refusal{key: "server.colour", layer: "base.yaml", at: ":3:3"}},
		{"deep in a source", withSource("kind: postgres\nhots: " + planted),
			nil, refusal{key: "sources.s.hots", layer: "base.yaml", also: "did you mean host?"}},
		{"in a catalogue item", base("catalogs:\n  - {name: a, kind: markdown, dir: d, version: v, colour: " + planted + "}"),
			nil, refusal{key: "catalogs[0].colour", layer: "base.yaml"}},
		{"in the environment file", map[string]string{"production.yaml": "server:\n  request_timeout: " + planted},
			Env{EnvEnvironment: "production"}, refusal{key: "server.request_timeout", layer: "production.yaml", at: ":2:3", also: "did you mean request_timeout_seconds?"}},
		{"case matters in files", base("Server: {port: 1}"),
			nil, refusal{key: "Server", layer: "base.yaml", also: "did you mean server?", value: "zz-none"}},
		{"variable", nil,
			Env{"SUTURA__SERVER__COLOUR": planted}, refusal{key: "server.colour", layer: "SUTURA__SERVER__COLOUR"}},
		{"deep variable", nil,
			Env{"SUTURA__SECURITY__INBOUND__ISSUR": planted}, refusal{key: "security.inbound.issur", layer: "SUTURA__SECURITY__INBOUND__ISSUR"}},
		{"inside a variable's flow mapping", nil,
			Env{"SUTURA__SECURITY__INBOUND": "{mode: direct, colour: " + planted + "}"}, refusal{key: "security.inbound.colour", layer: "SUTURA__SECURITY__INBOUND"}},
		{"the token itself instead of its file", nil,
			Env{"SUTURA__SECURITY__ACCESS_TOKEN": planted}, refusal{key: "security.access_token", layer: "SUTURA__SECURITY__ACCESS_TOKEN", also: "did you mean access_token_file?"}},
		{"merge key", base("server:\n  <<: {port: 1}\n  host: " + planted),
			nil, refusal{key: "server.<<", layer: "base.yaml"}},
	})
}

func TestRefusedTypes(t *testing.T) {
	runRefusals(t, []refusalCase{
		{"string for an integer", base("server:\n  port: " + planted),
			nil, refusal{key: "server.port", layer: "base.yaml", at: ":2:9", also: "expected an integer"}},
		{"quoted integer", base(`server: {port: "8080"}`),
			nil, refusal{key: "server.port", layer: "base.yaml", also: "expected an integer", value: "8080"}},
		{"float for an integer", base("runtime: {max_concurrent_queries: 7.77077}"),
			nil, refusal{key: "runtime.max_concurrent_queries", layer: "base.yaml", value: "7.77077"}},
		{"huge integer", base("runtime: {working_set_max_bytes: 99999999999999999999977}"),
			nil, refusal{key: "runtime.working_set_max_bytes", layer: "base.yaml", value: "99999999999999999999977"}},
		{"string for a boolean", base("server:\n  agent_surface:\n    enabled: " + planted),
			nil, refusal{key: "server.agent_surface.enabled", layer: "base.yaml", at: ":3:14", also: "expected true or false"}},
		{"yes is not a boolean", base("tools: {run_sql: {enabled: yes}}"),
			nil, refusal{key: "tools.run_sql.enabled", layer: "base.yaml", also: "expected true or false"}},
		{"scalar for a mapping", base("server: " + planted),
			nil, refusal{key: "server", layer: "base.yaml", also: "expected a mapping"}},
		{"scalar for a list", base("server: {allowed_hosts: " + planted + "}"),
			nil, refusal{key: "server.allowed_hosts", layer: "base.yaml", also: "expected a list"}},
		{"mapping for a string", base("server: {host: {a: " + planted + "}}"),
			nil, refusal{key: "server.host", layer: "base.yaml", also: "expected a string"}},
		{"null list item", base("server: {allowed_hosts: [a.example, ~]}"),
			nil, refusal{key: "server.allowed_hosts[1]", layer: "base.yaml"}},
		{"list for a source", base("sources: {s: [" + planted + "]}"),
			nil, refusal{key: "sources.s", layer: "base.yaml", also: "expected a mapping"}},
		{"variable", nil,
			Env{"SUTURA__SERVER__PORT": planted}, refusal{key: "server.port", layer: "SUTURA__SERVER__PORT", also: "expected an integer"}},
		{"variable list item", nil,
			Env{"SUTURA__SECURITY__INBOUND__ALGORITHMS": "[RS256, {a: " + planted + "}]"}, refusal{key: "security.inbound.algorithms[1]", layer: "SUTURA__SECURITY__INBOUND__ALGORITHMS"}},
		{"list under a list", nil,
			Env{"SUTURA__CATALOGS__0__DIR": planted}, refusal{key: "catalogs", layer: "SUTURA__CATALOGS__0__DIR", also: "expected a list"}},
		{"duplicate key", base("server:\n  port: 1\n  port: 2"),
			nil, refusal{key: "server.port", layer: "base.yaml", at: ":3:3", also: "duplicate key (first at line 2)"}},
		{"top level not a mapping", base("- " + planted),
			nil, refusal{key: "", layer: "base.yaml", at: ":1:1"}},
		{"top level scalar", base(planted),
			nil, refusal{key: "", layer: "base.yaml"}},
	})
}

func TestRefusedSyntax(t *testing.T) {
	runRefusals(t, []refusalCase{
		{"unclosed flow", base("server:\n  allowed_hosts: [" + planted),
			nil, refusal{key: "", layer: "base.yaml", also: "is not valid YAML"}},
		{"tab indentation", base("server:\n\tport: " + planted),
			nil, refusal{key: "", layer: "base.yaml", also: "is not valid YAML"}},
		{"unknown anchor", base("server: *" + planted),
			nil, refusal{key: "", layer: "base.yaml", also: "is not valid YAML"}},
		{"bad explicit tag", base("server: !!int " + planted),
			nil, refusal{key: "server", layer: "base.yaml"}},
		{"two documents", base("server: {port: 1}\n---\nserver: {host: " + planted + "}"),
			nil, refusal{key: "", layer: "base.yaml", also: "more than one YAML document"}},
		{"environment file", map[string]string{"test.yaml": "a: [" + planted},
			Env{EnvEnvironment: "test"}, refusal{key: "", layer: "test.yaml"}},
		{"variable value", nil,
			Env{"SUTURA__SERVER__HOST": "[" + planted}, refusal{key: "server.host", layer: "SUTURA__SERVER__HOST", also: "not a valid YAML value"}},
		{"variable with an empty level", nil,
			Env{"SUTURA__SERVER____PORT": planted}, refusal{key: "server..port", layer: "SUTURA__SERVER____PORT"}},
		{"bare prefix", nil,
			Env{"SUTURA__": planted}, refusal{key: "", layer: "SUTURA__"}},
	})
}

func TestRefusedRanges(t *testing.T) {
	src := "security: {identity: single-user}\nsources:\n  s: {kind: postgres, posture: shared-service-user, host: localhost, transport_mode: plaintext, database: d, user: u, port: %s}\n"
	duck := "security: {identity: single-user}\nsources:\n  d: {kind: duckdb, posture: shared-service-user, path: x.duckdb, "
	cat := "catalogs:\n  - {name: a, kind: markdown, dir: d, version: v, refresh_seconds: %s}\n"
	for _, tt := range []struct {
		key, yaml, rangeText string
	}{
		{"server.port", "server: {port: %s}", "between 0 and 65535"},
		{"server.request_timeout_seconds", "server: {request_timeout_seconds: %s}", "between 2 and 300"},
		{"server.max_body_bytes", "server: {max_body_bytes: %s}", "between 1 and 67108864"},
		{"runtime.max_concurrent_queries", "runtime: {max_concurrent_queries: %s}", "between 1 and 512"},
		{"governance.lookup_leg_ceiling", "governance: {lookup_leg_ceiling: %s}", "between 1 and 8"},
		{"governance.source_ceiling", "governance: {source_ceiling: %s}", "between 1 and 16"},
		{"governance.max_leg_rows", "governance: {max_leg_rows: %s}", "between 1 and 10000000"},
		{"runtime.admission_timeout_seconds", "runtime: {admission_timeout_seconds: %s}", "between 1 and 300"},
		{"runtime.working_set_max_bytes", "runtime: {working_set_max_bytes: %s}", "between 1 and 1099511627776"},
		{"runtime.shutdown_grace_seconds", "runtime: {shutdown_grace_seconds: %s}", "between 1 and 300"},
		{"catalogs[0].refresh_seconds", cat, "between 10 and 86400"},
		{"security.inbound.jwks_max_stale_seconds", "security: {inbound: {jwks_max_stale_seconds: %s}}", "between 60 and 86400"},
	} {
		// Zero never means unlimited, a negative number is no bound, and
		// a large one is out of range too.
		for _, bad := range []struct{ name, value string }{{"zero", "0"}, {"negative", "-770077"}, {"large", "77007700770077"}} {
			if tt.key == "server.port" && bad.value == "0" {
				continue // 0 picks a free port; refused only in production
			}
			t.Run(tt.key+"/"+bad.name, func(t *testing.T) { // the value stays out of the name: it is in the temporary path
				bad := bad.value
				_, dir, err := loadDir(t, base(strings.Replace(tt.yaml, "%s", bad, 1)), nil)
				value := bad
				if bad == "0" {
					value = planted // "0" appears in every range
				}
				requireRefusal(t, err, dir, refusal{key: tt.key, layer: "base.yaml", also: "must be " + tt.rangeText, value: value})
			})
		}
	}
	// A source's numbers are bounded by its adapter; the loader only
	// refuses a number that is set and below 1, which would otherwise read
	// as the default.
	for _, tt := range []struct{ key, yaml string }{
		{"sources.s.port", src}, {"sources.d.threads", duck + "threads: %s}\n"}, {"sources.d.memory_limit_bytes", duck + "memory_limit_bytes: %s}\n"},
	} {
		for name, bad := range map[string]string{"zero": "0", "negative": "-770077"} {
			t.Run(tt.key+"/"+name, func(t *testing.T) {
				_, dir, err := loadDir(t, base(strings.Replace(tt.yaml, "%s", bad, 1)), nil)
				value := bad
				if bad == "0" {
					value = planted
				}
				requireRefusal(t, err, dir, refusal{key: tt.key, layer: "base.yaml", also: "must be at least 1", value: value})
			})
		}
		t.Run(tt.key+"/large", func(t *testing.T) {
			mustLoad(t, base(strings.Replace(tt.yaml, "%s", "77007700770077", 1)), nil) // its adapter refuses it
		})
	}
	runRefusals(t, []refusalCase{
		{"variable", nil, Env{"SUTURA__RUNTIME__SHUTDOWN_GRACE_SECONDS": "770077"},
			refusal{key: "runtime.shutdown_grace_seconds", layer: "SUTURA__RUNTIME__SHUTDOWN_GRACE_SECONDS", also: "between 1 and 300", value: "770077"}},
		{"environment file", map[string]string{"base.yaml": "server: {request_timeout_seconds: 20}", "development.yaml": "server: {request_timeout_seconds: 770077}"}, nil,
			refusal{key: "server.request_timeout_seconds", layer: "development.yaml", at: ":1:35", value: "770077"}},
	})
}

func TestRefusedEnums(t *testing.T) {
	runRefusals(t, []refusalCase{
		{"identity", base("security: {identity: " + planted + "}"), nil,
			refusal{key: "security.identity", layer: "base.yaml", also: "single-user, multi-user"}},
		{"catalog prose", base("prompt: {catalog_prose: " + planted + "}"), nil,
			refusal{key: "prompt.catalog_prose", layer: "base.yaml", also: "quoted, omitted"}},
		{"audit sink", base("audit: {sink: " + planted + "}"), nil,
			refusal{key: "audit.sink", layer: "base.yaml", also: "stderr, file"}},
		{"audit sink none", nil, Env{"SUTURA__AUDIT__SINK": "none"},
			refusal{key: "audit.sink", layer: "SUTURA__AUDIT__SINK", also: "must not be none"}},
		{"inbound mode", base("security: {inbound: {mode: " + planted + "}}"), nil,
			refusal{key: "security.inbound.mode", layer: "base.yaml", also: "direct"}},
		{"algorithm", base("security: {inbound: {mode: direct, issuer: i, audience: a, jwks_file: j, algorithms: [RS256, " + planted + "]}}"), nil,
			refusal{key: "security.inbound.algorithms[1]", layer: "base.yaml", also: "RS256, ES256, EdDSA"}},
		{"repeated algorithm", base("security: {inbound: {mode: direct, issuer: i, audience: a, jwks_file: j, algorithms: [RS256, RS256]}}"), nil,
			refusal{key: "security.inbound.algorithms[1]", layer: "base.yaml"}},
		{"catalogue kind", base("catalogs: [{name: a, kind: " + planted + ", dir: d, version: v}]"), nil,
			refusal{key: "catalogs[0].kind", layer: "base.yaml", also: "markdown"}},
		{"source kind", withSource("kind: " + planted + "\nposture: shared-service-user"), nil,
			refusal{key: "sources.s.kind", layer: "base.yaml", also: "files, postgres, oracle, duckdb, clickhouse, bigquery"}},
		{"posture", withSource("kind: files\ndata_dir: d\nposture: " + planted), nil,
			refusal{key: "sources.s.posture", layer: "base.yaml", also: "shared-service-user, impersonation-at-source"}},
	})
}

func TestRefusedEnvironment(t *testing.T) {
	file := filepath.Join(t.TempDir(), planted)
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	for _, tc := range []struct {
		name string
		env  Env
		want refusal
	}{
		{"unknown environment", Env{EnvEnvironment: planted}, refusal{layer: EnvEnvironment, also: "development, test, production"}},
		{"environment is case-sensitive", Env{EnvEnvironment: "Production"}, refusal{layer: EnvEnvironment, value: "Production"}},
		{"missing directory", Env{EnvConfigDir: "/nonexistent/" + planted}, refusal{layer: EnvConfigDir, also: "does not name an existing directory"}},
		{"directory is a file", Env{EnvConfigDir: file}, refusal{layer: EnvConfigDir, also: "does not name a directory"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Load(tc.env)
			assert.Nil(t, cfg)
			requireRefusal(t, err, "", tc.want)
		})
	}
}

func TestRefusedLayerFiles(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "base.yaml"), 0o755))
	_, err := Load(Env{EnvConfigDir: dir})
	requireRefusal(t, err, dir, refusal{layer: "base.yaml", also: "not a regular file"})

	dir = t.TempDir()
	big := strings.Repeat("# "+planted+"\n", maxFileBytes/len(planted)+1)
	writeFiles(t, dir, map[string]string{"base.yaml": big})
	_, err = Load(Env{EnvConfigDir: dir})
	requireRefusal(t, err, dir, refusal{layer: "base.yaml", also: "larger than 1 MiB"})
}

func TestRefusedSecrets(t *testing.T) {
	tokenFile := "security:\n  access_token_file: %s\n"
	runRefusals(t, []refusalCase{
		{"missing file", base(strings.Replace(tokenFile, "%s", planted+".txt", 1)), nil,
			refusal{key: "security.access_token_file", layer: "base.yaml", at: ":2:22", also: "does not exist"}},
		{"empty file", map[string]string{"base.yaml": strings.Replace(tokenFile, "%s", planted, 1), planted: "\n"}, nil,
			refusal{key: "security.access_token_file", layer: "base.yaml", also: "empty file"}},
		{"directory", map[string]string{"base.yaml": strings.Replace(tokenFile, "%s", "dir", 1), "dir/" + planted: "x"}, nil,
			refusal{key: "security.access_token_file", layer: "base.yaml", also: "not name a regular file"}},
		{"too large", map[string]string{"base.yaml": strings.Replace(tokenFile, "%s", "big", 1), "big": strings.Repeat(planted, maxSecretBytes/len(planted)+1)}, nil,
			refusal{key: "security.access_token_file", layer: "base.yaml", also: "too large"}},
		{"metrics token from a variable", nil, Env{"SUTURA__SECURITY__METRICS_TOKEN_FILE": "/nonexistent/" + planted},
			refusal{key: "security.metrics_token_file", layer: "SUTURA__SECURITY__METRICS_TOKEN_FILE"}},
		{"source password", withSource("kind: postgres\nposture: shared-service-user\nhost: localhost\ntransport_mode: plaintext\ndatabase: d\nuser: u\npassword_file: " + planted), nil,
			refusal{key: "sources.s.password_file", layer: "base.yaml"}},
	})
}

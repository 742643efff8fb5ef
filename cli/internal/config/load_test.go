package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaults(t *testing.T) {
	cfg, err := Load(Env{})
	require.NoError(t, err)

	assert.Equal(t, Development, cfg.Environment)
	assert.Empty(t, cfg.Dir)
	assert.True(t, cfg.Demo())
	assert.Empty(t, cfg.Catalogs)
	assert.Empty(t, cfg.Sources)

	assert.Equal(t, "127.0.0.1", cfg.Server.Host)
	assert.Equal(t, 8080, cfg.Server.Port)
	assert.Equal(t, "127.0.0.1:8080", cfg.Server.Addr())
	assert.True(t, cfg.Server.Loopback())
	assert.Equal(t, 30*time.Second, cfg.Server.RequestTimeout())
	assert.Equal(t, 65536, cfg.Server.MaxBodyBytes)
	assert.Equal(t, []string{}, cfg.Server.AllowedHosts)
	assert.False(t, cfg.Server.TLSTerminatedUpstream)
	assert.True(t, cfg.Server.AgentSurface.Enabled)

	assert.Equal(t, SingleUser, cfg.Security.Identity, "no source: single-user")
	assert.False(t, cfg.Security.AccessToken.Set())
	assert.False(t, cfg.Security.MetricsToken.Set())
	assert.False(t, cfg.Security.Inbound.Enabled())
	assert.Equal(t, "scope", cfg.Security.Inbound.ScopeClaim)
	assert.Equal(t, "groups", cfg.Security.Inbound.GroupsClaim)

	assert.Equal(t, 8, cfg.Runtime.MaxConcurrentQueries)
	assert.Equal(t, 5*time.Second, cfg.Runtime.AdmissionTimeout())
	assert.Equal(t, int64(1073741824), cfg.Runtime.WorkingSetMaxBytes)
	assert.Equal(t, 15*time.Second, cfg.Runtime.ShutdownGrace())

	assert.Equal(t, ProseQuoted, cfg.Prompt.CatalogProse)
	assert.False(t, cfg.Prompt.ListPhysicalSchema)
	assert.False(t, cfg.Tools.RunSQL.Enabled)
	assert.Equal(t, SinkStderr, cfg.Audit.Sink)
}

func TestEmptyConfigDirAndEmptyFiles(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"no files":        nil,
		"empty files":     {"base.yaml": "", "development.yaml": ""},
		"comments only":   {"base.yaml": "# nothing yet\n"},
		"null top level":  {"base.yaml": "~\n"},
		"explicit nulls":  {"base.yaml": "server:\nprompt:\n  catalog_prose: ~\n"},
		"document marker": {"base.yaml": "---\nserver: {port: 8080}\n"},
	} {
		t.Run(name, func(t *testing.T) {
			cfg, dir := mustLoad(t, files, nil)
			assert.Equal(t, dir, cfg.Dir)
			assert.Equal(t, 8080, cfg.Server.Port)
			assert.Equal(t, ProseQuoted, cfg.Prompt.CatalogProse)
		})
	}
}

func TestLayerOrder(t *testing.T) {
	base := "server:\n  port: 9001\n  request_timeout_seconds: 40\nruntime:\n  max_concurrent_queries: 9\n"
	envFile := "server:\n  port: 9002\n  request_timeout_seconds: 41\n"
	tests := []struct {
		name        string
		files       map[string]string
		env         Env
		port        int
		timeout     int
		concurrency int
	}{
		{"defaults only", nil, nil, 8080, 30, 8},
		{"base over defaults", map[string]string{"base.yaml": base}, nil, 9001, 40, 9},
		{"environment file over base", map[string]string{"base.yaml": base, "development.yaml": envFile}, nil, 9002, 41, 9},
		{"variables over files", map[string]string{"base.yaml": base, "development.yaml": envFile},
			Env{"SUTURA__SERVER__PORT": "9003"}, 9003, 41, 9},
		{"environment file without base", map[string]string{"development.yaml": envFile}, nil, 9002, 41, 8},
		{"other environments' files are not read", map[string]string{"base.yaml": base, "production.yaml": envFile, "test.yaml": envFile},
			nil, 9001, 40, 9},
		{"the chosen environment's file is read", map[string]string{"base.yaml": base, "development.yaml": "server: {port: 1}", "test.yaml": envFile},
			Env{EnvEnvironment: "test"}, 9002, 41, 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _ := mustLoad(t, tt.files, tt.env)
			assert.Equal(t, tt.port, cfg.Server.Port)
			assert.Equal(t, tt.timeout, cfg.Server.RequestTimeoutSeconds)
			assert.Equal(t, tt.concurrency, cfg.Runtime.MaxConcurrentQueries)
		})
	}
}

func TestEnvironmentVariable(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  Environment
	}{{"", Development}, {"development", Development}, {"test", Test}, {"production", Production}} {
		t.Run(tt.value, func(t *testing.T) {
			env := Env{EnvEnvironment: tt.value}
			if tt.want == Production { // production needs a token and an explicit identity story
				env = Env{EnvEnvironment: tt.value, "SUTURA__SECURITY__ACCESS_TOKEN_FILE": "secrets/token"}
			}
			cfg, _ := mustLoad(t, map[string]string{"secrets/token": "t0ken\n"}, env)
			assert.Equal(t, tt.want, cfg.Environment)
		})
	}
}

func TestMergeSemantics(t *testing.T) {
	base := `
security: {identity: single-user}
server:
  allowed_hosts: [a.example, b.example]
sources:
  pg:
    kind: postgres
    posture: shared-service-user
    host: db.example.com
    database: analytics
    user: sutura
  files:
    kind: files
    posture: shared-service-user
    data_dir: data
prompt:
  instructions_file: instructions.md
`
	development := `
server:
  allowed_hosts: [c.example]
sources:
  pg:
    host: 127.0.0.1
    transport_mode: plaintext
prompt:
  instructions_file: ""
  catalog_prose: ~
`
	cfg, dir := mustLoad(t, map[string]string{"base.yaml": base, "development.yaml": development}, nil)

	assert.Equal(t, []string{"c.example"}, cfg.Server.AllowedHosts, "lists are replaced whole")
	pg := cfg.Sources["pg"]
	assert.Equal(t, "127.0.0.1", pg.Host, "mappings merge key by key")
	assert.Equal(t, "analytics", pg.Database, "keys not overridden are kept")
	assert.Equal(t, Plaintext, pg.TransportMode)
	assert.Zero(t, pg.Port, "an omitted port is left to the adapter, whose default it is")
	assert.Equal(t, filepath.Join(dir, "data"), cfg.Sources["files"].DataDir, "a source not mentioned again is kept")
	assert.Empty(t, cfg.Prompt.InstructionsFile, `"" clears a string`)
	assert.Equal(t, ProseQuoted, cfg.Prompt.CatalogProse, "null changes nothing")
}

func TestEnvVariables(t *testing.T) {
	base := "sources:\n  demo:\n    kind: files\n    posture: shared-service-user\n    data_dir: data\nsecurity:\n  identity: single-user\n"
	tests := []struct {
		name  string
		env   Env
		check func(t *testing.T, cfg *Config, dir string)
	}{
		{"integer", Env{"SUTURA__SERVER__REQUEST_TIMEOUT_SECONDS": "10"}, func(t *testing.T, cfg *Config, _ string) {
			assert.Equal(t, 10, cfg.Server.RequestTimeoutSeconds)
		}},
		{"boolean", Env{"SUTURA__SERVER__AGENT_SURFACE__ENABLED": "false"}, func(t *testing.T, cfg *Config, _ string) {
			assert.False(t, cfg.Server.AgentSurface.Enabled)
		}},
		{"flow list", Env{"SUTURA__SERVER__ALLOWED_HOSTS": "[a.example, b.example]"}, func(t *testing.T, cfg *Config, _ string) {
			assert.Equal(t, []string{"a.example", "b.example"}, cfg.Server.AllowedHosts)
		}},
		{"map entry of a source", Env{"SUTURA__SOURCES__DEMO__DATA_DIR": "/srv/data"}, func(t *testing.T, cfg *Config, _ string) {
			assert.Equal(t, "/srv/data", cfg.Sources["demo"].DataDir)
			assert.Equal(t, KindFiles, cfg.Sources["demo"].Kind, "the rest of the source is kept")
		}},
		{"relative path from a variable", Env{"SUTURA__SOURCES__DEMO__DATA_DIR": "other"}, func(t *testing.T, cfg *Config, dir string) {
			assert.Equal(t, filepath.Join(dir, "other"), cfg.Sources["demo"].DataDir)
		}},
		{"new source from a flow mapping", Env{"SUTURA__SOURCES__DUCK": "{kind: duckdb, posture: shared-service-user, path: x.duckdb}"},
			func(t *testing.T, cfg *Config, dir string) {
				assert.Equal(t, filepath.Join(dir, "x.duckdb"), cfg.Sources["duck"].Path)
			}},
		{"duckdb threads and memory", Env{"SUTURA__SOURCES__DUCK": "{kind: duckdb, posture: shared-service-user, path: x.duckdb, threads: 2, memory_limit_bytes: 536870912}"},
			func(t *testing.T, cfg *Config, dir string) {
				assert.Equal(t, 2, cfg.Sources["duck"].Threads)
				assert.Equal(t, int64(512<<20), cfg.Sources["duck"].MemoryLimitBytes)
			}},
		{"deeper variable wins", Env{
			"SUTURA__PROMPT":                "{catalog_prose: omitted, list_physical_schema: true}",
			"SUTURA__PROMPT__CATALOG_PROSE": "quoted",
		}, func(t *testing.T, cfg *Config, _ string) {
			assert.Equal(t, ProseQuoted, cfg.Prompt.CatalogProse)
			assert.True(t, cfg.Prompt.ListPhysicalSchema)
		}},
		{"empty value changes nothing", Env{"SUTURA__SERVER__PORT": ""}, func(t *testing.T, cfg *Config, _ string) {
			assert.Equal(t, 8080, cfg.Server.Port)
		}},
		{"quoted string", Env{"SUTURA__SOURCES__DEMO__ACKNOWLEDGED_BECAUSE": `"public: data only"`}, func(t *testing.T, cfg *Config, _ string) {
			assert.Equal(t, "public: data only", cfg.Sources["demo"].AcknowledgedBecause)
		}},
		{"numbers are strings where strings are expected", Env{"SUTURA__SOURCES__DEMO__ACKNOWLEDGED_BECAUSE": "42"}, func(t *testing.T, cfg *Config, _ string) {
			assert.Equal(t, "42", cfg.Sources["demo"].AcknowledgedBecause)
		}},
		{"audience mapping", Env{"SUTURA__SECURITY__AUDIENCE_MAPPING__FINANCE": "[finance, everyone]"}, func(t *testing.T, cfg *Config, _ string) {
			assert.Equal(t, map[string][]string{"finance": {"finance", "everyone"}}, cfg.Security.AudienceMapping)
		}},
		{"other variables are ignored", Env{"SUTURA_OTHER": "x", "PATH": "/bin", "SUTURA": "y"}, func(t *testing.T, cfg *Config, _ string) {
			assert.Equal(t, 8080, cfg.Server.Port)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, dir := mustLoad(t, map[string]string{"base.yaml": base}, tt.env)
			tt.check(t, cfg, dir)
		})
	}
}

func TestRelativePaths(t *testing.T) {
	base := `
security:
  identity: multi-user
  access_token_file: secrets/access
  metrics_token_file: /abs/does-not-matter-here
  inbound: {mode: direct, issuer: https://id.example, audience: sutura, jwks_file: keys/jwks.json, algorithms: [EdDSA]}
prompt: {instructions_file: prompt/instructions.md}
audit: {sink: file, file: log/audit.jsonl}
catalogs:
  - {name: main, kind: markdown, dir: catalog, version: v1}
  - {name: abs, kind: markdown, dir: /srv/catalog, version: v1}
sources:
  pg:
    kind: postgres
    posture: impersonation-at-source
    unix_socket: run
    database: d
    user: u
    password_file: secrets/pg
  ch:
    kind: clickhouse
    posture: impersonation-at-source
    host: ch.example.com
    user: u
    transport_mode: mutual
    ca_file: tls/ca.pem
    cert_file: tls/cert.pem
    key_file: tls/key.pem
  bq: {kind: bigquery, posture: impersonation-at-source, project: p, credentials_file: gcp.json}
  duck: {kind: duckdb, posture: shared-service-user, path: ":memory:", acknowledged_because: scratch}
`
	files := map[string]string{"base.yaml": base, "secrets/access": "a\n", "secrets/pg": "p\n"}
	dir := t.TempDir()
	writeFiles(t, dir, files)
	writeFiles(t, dir, map[string]string{"metrics": "m\n"})
	cfg, err := Load(Env{EnvConfigDir: dir, "SUTURA__SECURITY__METRICS_TOKEN_FILE": filepath.Join(dir, "metrics")})
	require.NoError(t, err)

	j := func(p string) string { return filepath.Join(dir, p) }
	assert.Equal(t, j("secrets/access"), cfg.Security.AccessTokenFile)
	assert.Equal(t, j("metrics"), cfg.Security.MetricsTokenFile)
	assert.Equal(t, j("keys/jwks.json"), cfg.Security.Inbound.JWKSFile)
	assert.Equal(t, j("prompt/instructions.md"), cfg.Prompt.InstructionsFile)
	assert.Equal(t, j("log/audit.jsonl"), cfg.Audit.File)
	assert.Equal(t, j("catalog"), cfg.Catalogs[0].Dir)
	assert.Equal(t, "/srv/catalog", cfg.Catalogs[1].Dir)
	assert.Equal(t, j("run"), cfg.Sources["pg"].UnixSocket)
	assert.Equal(t, j("secrets/pg"), cfg.Sources["pg"].PasswordFile)
	assert.Empty(t, cfg.Sources["pg"].TransportMode, "an omitted transport is left to the adapter (plaintext over a unix socket)")
	ch := cfg.Sources["ch"]
	assert.Equal(t, []string{j("tls/ca.pem"), j("tls/cert.pem"), j("tls/key.pem")}, []string{ch.CAFile, ch.CertFile, ch.KeyFile})
	assert.Zero(t, ch.Port, "the adapter's default")
	assert.Equal(t, j("gcp.json"), cfg.Sources["bq"].CredentialsFile)
	assert.Equal(t, ":memory:", cfg.Sources["duck"].Path)
	assert.Equal(t, []byte("p"), cfg.Sources["pg"].Password.Reveal())
	assert.False(t, cfg.Demo())
}

func TestYAMLFeatures(t *testing.T) {
	extension := "\nx-common: &tls\n  placeholder: true\n"
	base := `security: {identity: single-user}
sources:
  a: &pg
    kind: postgres
    posture: shared-service-user
    host: localhost
    transport_mode: plaintext
    database: d
    user: u
  b: *pg
server:
  port: 0x1F90
`
	_, dir, err := loadDir(t, map[string]string{"base.yaml": extension + base}, nil)
	requireRefusal(t, err, dir, refusal{key: "x-common", layer: "base.yaml", at: ":2:1"})

	cfg, _ := mustLoad(t, map[string]string{"base.yaml": base}, nil)
	assert.Equal(t, cfg.Sources["a"], cfg.Sources["b"], "aliases are followed")
	assert.Equal(t, 8080, cfg.Server.Port, "YAML integer forms are read")
}

func TestServerPortZeroOutsideProduction(t *testing.T) {
	cfg, _ := mustLoad(t, map[string]string{"base.yaml": "server: {port: 0}"}, nil)
	assert.Equal(t, 0, cfg.Server.Port)
}

func TestErrorsHelper(t *testing.T) {
	assert.Nil(t, Errors(nil))
	e1, e2 := &Error{Layer: "a", Reason: "r"}, &Error{Layer: "b", Key: "k", Line: 3, Column: 4, Reason: "s"}
	got := Errors(errors.Join(e1, fmt.Errorf("context: %w", e2)))
	assert.Equal(t, []*Error{e1, e2}, got)
	assert.Equal(t, "b:3:4: k: s", e2.Error())
	assert.Equal(t, "a: r", e1.Error())
	assert.Equal(t, "f:7: k: r", (&Error{Layer: "f", Key: "k", Line: 7, Reason: "r"}).Error())
	assert.Equal(t, `"a b": r`, (&Error{Layer: "x", Key: "a b", Reason: "r"}).Error()[len("x: "):])
}

// TestFixtureDirectory loads testdata/layered through a relative
// SUTURA_CONFIG_DIR.
func TestFixtureDirectory(t *testing.T) {
	cfg, err := Load(Env{EnvConfigDir: "testdata/layered", EnvEnvironment: "test", "SUTURA__RUNTIME__MAX_CONCURRENT_QUERIES": "6"})
	require.NoError(t, err)
	abs, err := filepath.Abs("testdata/layered")
	require.NoError(t, err)

	assert.Equal(t, abs, cfg.Dir)
	assert.Equal(t, Test, cfg.Environment)
	assert.Equal(t, 0, cfg.Server.Port, "test.yaml over base.yaml")
	assert.Equal(t, 5*time.Second, cfg.Server.RequestTimeout())
	assert.Equal(t, 2*time.Second, cfg.Runtime.AdmissionTimeout())
	assert.Equal(t, 6, cfg.Runtime.MaxConcurrentQueries, "the variable over base.yaml")
	assert.Equal(t, ProseOmitted, cfg.Prompt.CatalogProse)
	assert.Equal(t, []string{"sutura.localhost"}, cfg.Server.AllowedHosts)
	assert.Equal(t, []byte("fixture-access-token"), cfg.Security.AccessToken.Reveal())
	assert.False(t, cfg.Security.AccessToken.Equal(cfg.Security.MetricsToken))
	assert.False(t, cfg.Demo())
	assert.Equal(t, []Catalog{{Name: "local", Kind: CatalogMarkdown, Dir: filepath.Join(abs, "catalog"), Version: "dev"}}, cfg.Catalogs)
	assert.Equal(t, filepath.Join(abs, "data"), cfg.Sources["demo"].DataDir)
	pg := cfg.Sources["pg"]
	assert.Empty(t, pg.TransportMode, "left to the adapter: plaintext over a unix socket")
	assert.Zero(t, pg.Port, "left to the adapter: 5432")
	assert.Equal(t, "/var/run/postgresql", pg.UnixSocket)
	assert.Equal(t, map[string]string{"alice": "analyst_alice", "bob": "analyst_bob"}, pg.Impersonate)
}

// TestAliasBudget checks that aliases cannot make a small file expensive.
func TestAliasBudget(t *testing.T) {
	var b strings.Builder
	b.WriteString("server:\n  allowed_hosts: &h [")
	for i := range 2000 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("h" + strconv.Itoa(i) + ".example")
	}
	b.WriteString("]\nsecurity:\n  audience_mapping:\n")
	for i := range 2000 {
		b.WriteString("    g" + strconv.Itoa(i) + ": *h\n")
	}
	start := time.Now()
	_, dir, err := loadDir(t, base(b.String()), nil)
	require.Error(t, err)
	assert.Less(t, time.Since(start), 5*time.Second)
	errs := Errors(err)
	require.Len(t, errs, 1, "work stops at the first exhaustion")
	assert.Equal(t, filepath.Join(dir, "base.yaml"), errs[0].Layer)
	assert.Contains(t, errs[0].Key, "security.audience_mapping.g")
	assert.Contains(t, errs[0].Error(), "too many aliases")
	assert.NotContains(t, err.Error(), "h1999.example")
}

// TestJWKSMaxStale: an hour unless set; a variable sets it like any key.
func TestJWKSMaxStale(t *testing.T) {
	cfg, _ := mustLoad(t, nil, nil)
	assert.Equal(t, time.Hour, cfg.Security.Inbound.JWKSMaxStale())
	cfg, _ = mustLoad(t, nil, Env{"SUTURA__SECURITY__INBOUND__JWKS_MAX_STALE_SECONDS": "600"})
	assert.Equal(t, 10*time.Minute, cfg.Security.Inbound.JWKSMaxStale())
}

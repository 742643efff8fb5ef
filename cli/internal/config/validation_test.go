package config

import (
	"strings"
	"testing"
)

func TestRefusedKindSpecificKeys(t *testing.T) {
	pg := "kind: postgres\nposture: shared-service-user\nhost: localhost\ntransport_mode: plaintext\ndatabase: d\nuser: u\n"
	runRefusals(t, []refusalCase{
		{"host on files", withSource("kind: files\nposture: shared-service-user\ndata_dir: d\nhost: " + planted), nil,
			refusal{key: "sources.s.host", layer: "base.yaml", also: "does not apply to kind files"}},
		{"data_dir on postgres", withSource(pg + "data_dir: " + planted), nil,
			refusal{key: "sources.s.data_dir", layer: "base.yaml", also: "does not apply to kind postgres"}},
		{"database on oracle", withSource("kind: oracle\nposture: shared-service-user\nhost: localhost\ntransport_mode: plaintext\nservice: s\nuser: u\ndatabase: " + planted), nil,
			refusal{key: "sources.s.database", layer: "base.yaml", also: "does not apply to kind oracle"}},
		{"service on postgres", withSource(pg + "service: " + planted), nil,
			refusal{key: "sources.s.service", layer: "base.yaml", also: "does not apply to kind postgres"}},
		{"project on duckdb", withSource("kind: duckdb\nposture: shared-service-user\npath: x.duckdb\nproject: " + planted), nil,
			refusal{key: "sources.s.project", layer: "base.yaml", also: "does not apply to kind duckdb"}},
		{"threads on postgres", withSource(pg + "threads: 2"), nil,
			refusal{key: "sources.s.threads", layer: "base.yaml", also: "does not apply to kind postgres"}},
		{"impersonate on bigquery", withSource("kind: bigquery\nposture: shared-service-user\nproject: p\nimpersonate: {alice: " + planted + "}"), nil,
			refusal{key: "sources.s.impersonate", layer: "base.yaml", also: "does not apply to kind bigquery"}},
		{"path on clickhouse", withSource("kind: clickhouse\nposture: shared-service-user\nhost: localhost\ntransport_mode: plaintext\nuser: u\npath: " + planted), nil,
			refusal{key: "sources.s.path", layer: "base.yaml", also: "does not apply to kind clickhouse"}},
		{"unix socket on clickhouse", withSource("kind: clickhouse\nposture: shared-service-user\ntransport_mode: plaintext\nuser: u\nunix_socket: /run/" + planted), nil,
			refusal{key: "sources.s.unix_socket", layer: "base.yaml", also: "does not apply to kind clickhouse"}},
		{"a later layer changes the kind", map[string]string{
			"base.yaml":        "security: {identity: single-user}\nsources:\n  s: {kind: files, posture: shared-service-user, data_dir: " + planted + "}",
			"development.yaml": "sources:\n  s: {kind: duckdb, path: x.duckdb}",
		}, nil, refusal{key: "sources.s.data_dir", layer: "base.yaml", also: "does not apply to kind duckdb"}},
		{"from a variable", withSource("kind: files\nposture: shared-service-user\ndata_dir: d"), Env{"SUTURA__SOURCES__S__USER": planted},
			refusal{key: "sources.s.user", layer: "SUTURA__SOURCES__S__USER", also: "does not apply to kind files"}},
	})
}

func TestRefusedSourceValues(t *testing.T) {
	runRefusals(t, []refusalCase{
		{"bad alias", base("security: {identity: single-user}\nsources:\n  9bad: {kind: files, posture: shared-service-user, data_dir: " + planted + "}"), nil,
			refusal{key: "sources.9bad", layer: "base.yaml", also: "not an identifier"}},
		{"long alias", base("security: {identity: single-user}\nsources:\n  " + strings.Repeat("a", 70) + ": {kind: files, posture: shared-service-user, data_dir: " + planted + "}"), nil,
			refusal{key: "sources." + strings.Repeat("a", 70), layer: "base.yaml", also: "at most 63"}},
		{"missing kind", withSource("posture: shared-service-user\ndata_dir: " + planted), nil,
			refusal{key: "sources.s.kind", layer: "base.yaml", at: ":3:3", also: "is required"}},
		{"missing posture", withSource("kind: files\ndata_dir: " + planted), nil,
			refusal{key: "sources.s.posture", layer: "base.yaml", also: "is required"}},
		{"files without data_dir", withSource("kind: files\nposture: shared-service-user"), nil,
			refusal{key: "sources.s.data_dir", layer: "base.yaml", also: "is required"}},
		{"files impersonating", withSource("kind: files\nposture: impersonation-at-source\ndata_dir: " + planted), nil,
			refusal{key: "sources.s.posture", layer: "base.yaml", also: "use shared-service-user"}},
		{"run_sql source without run_sql", withSource("kind: files\nposture: shared-service-user\ndata_dir: d\n"), Env{"SUTURA__TOOLS__RUN_SQL__SOURCE": "s"},
			refusal{key: "tools.run_sql.source", layer: "SUTURA__TOOLS__RUN_SQL__SOURCE", also: "only when tools.run_sql.enabled is true", value: "zz-none"}},
		{"run_sql source not configured", withSource("kind: files\nposture: shared-service-user\ndata_dir: d\n"),
			Env{"SUTURA__TOOLS__RUN_SQL__ENABLED": "true", "SUTURA__TOOLS__RUN_SQL__SOURCE": planted},
			refusal{key: "tools.run_sql.source", layer: "SUTURA__TOOLS__RUN_SQL__SOURCE", also: "must be the alias of a configured source"}},
		{"identity missing once a source exists", base("sources:\n  s: {kind: files, posture: shared-service-user, data_dir: " + planted + "}"), nil,
			refusal{key: "security.identity", layer: "defaults", also: "sources.s, from "}},
	})
}

func TestRefusedOtherValues(t *testing.T) {
	inbound := "security:\n  inbound:\n    mode: direct\n    issuer: i\n    audience: a\n    algorithms: [RS256]\n"
	runRefusals(t, []refusalCase{
		{"host name for server.host", base("server: {host: " + planted + ".example}"), nil,
			refusal{key: "server.host", layer: "base.yaml", also: "must be an IP address literal"}},
		{"zoned server.host", base("server: {host: 'fe80::77%" + planted + "'}"), nil,
			refusal{key: "server.host", layer: "base.yaml"}},
		{"bad allowed host", nil, Env{"SUTURA__SERVER__ALLOWED_HOSTS": "[ok.example, " + planted + "/path]"},
			refusal{key: "server.allowed_hosts[1]", layer: "SUTURA__SERVER__ALLOWED_HOSTS", also: "host name or IP"}},
		{"bad allowed host port", base("server: {allowed_hosts: ['" + planted + ".example:99999']}"), nil,
			refusal{key: "server.allowed_hosts[0]", layer: "base.yaml"}},
		{"bad trusted proxy", base("server: {trusted_proxies: [10.0.0.0/8, '" + planted + "/33']}"), nil,
			refusal{key: "server.trusted_proxies[1]", layer: "base.yaml", also: "CIDR prefix"}},
		{"no connections", nil, Env{"SUTURA__SERVER__MAX_CONNECTIONS": "0"},
			refusal{key: "server.max_connections", layer: "SUTURA__SERVER__MAX_CONNECTIONS", also: "between 1 and"}},
		{"inbound key without mode", base("security: {inbound: {issuer: " + planted + "}}"), nil,
			refusal{key: "security.inbound.issuer", layer: "base.yaml", also: "set mode to direct"}},
		{"inbound without key set", base(inbound), nil,
			refusal{key: "security.inbound.jwks_file", layer: "base.yaml", also: "jwks_url is required"}},
		{"inbound with both key sets", base(inbound + "    jwks_file: " + planted + "\n    jwks_url: https://id.example/jwks\n"), nil,
			refusal{key: "security.inbound.jwks_url", layer: "base.yaml", also: "exactly one"}},
		{"inbound without issuer", base("security: {inbound: {mode: direct, audience: a, jwks_file: " + planted + ", algorithms: [ES256]}}"), nil,
			refusal{key: "security.inbound.issuer", layer: "base.yaml", also: "is required"}},
		{"inbound without algorithms", base("security: {inbound: {mode: direct, issuer: i, audience: a, jwks_file: " + planted + "}}"), nil,
			refusal{key: "security.inbound.algorithms", layer: "base.yaml", also: "is required"}},
		{"inbound with an empty claim", base(inbound + "    jwks_file: j\n    scope_claim: ''\n"), nil,
			refusal{key: "security.inbound.scope_claim", layer: "base.yaml", at: ":8:18"}},
		{"jwks url with credentials", base(inbound + "    jwks_url: https://user:" + planted + "@id.example/jwks\n"), nil,
			refusal{key: "security.inbound.jwks_url", layer: "base.yaml", also: "must not carry credentials"}},
		{"jwks url over http", base(inbound + "    jwks_url: http://" + planted + ".example/jwks\n"), nil,
			refusal{key: "security.inbound.jwks_url", layer: "base.yaml", also: "must use https"}},
		{"jwks url not a url", base(inbound + "    jwks_url: " + planted + "\n"), nil,
			refusal{key: "security.inbound.jwks_url", layer: "base.yaml", also: "absolute https URL"}},
		{"audience mapping without audiences", base("security: {audience_mapping: {" + planted + "x: []}}"), nil,
			refusal{key: "security.audience_mapping." + planted + "x", layer: "base.yaml", also: "at least one audience", value: "zz-none"}},
		{"audience mapping with an empty audience", base("security: {audience_mapping: {finance: [a, '']}}"), nil,
			refusal{key: "security.audience_mapping.finance[1]", layer: "base.yaml"}},
		{"audit file sink without a file", base("audit: {sink: file}"), nil,
			refusal{key: "audit.file", layer: "defaults", also: "is required when audit.sink is file (audit.sink, from "}},
		{"audit file with stderr", map[string]string{"base.yaml": "audit: {sink: file, file: " + planted + "}", "development.yaml": "audit: {sink: stderr}"}, nil,
			refusal{key: "audit.file", layer: "base.yaml", also: "only when audit.sink is file"}},
		{"catalogue without a directory", base("catalogs:\n  - {name: a, kind: markdown, version: " + planted + "}"), nil,
			refusal{key: "catalogs[0].dir", layer: "base.yaml", at: ":2:5", also: "is required"}},
		{"catalogue without a version", base("catalogs:\n  - {name: a, kind: markdown, dir: " + planted + "}"), nil,
			refusal{key: "catalogs[0].version", layer: "base.yaml", also: "label stamped on the bundle"}},
		{"catalogue without a kind", base("catalogs:\n  - {name: a, version: v, dir: " + planted + "}"), nil,
			refusal{key: "catalogs[0].kind", layer: "base.yaml", also: "is required"}},
		{"catalogue with a bad name", base("catalogs:\n  - {name: '" + planted + " x', kind: markdown, version: v, dir: d}"), nil,
			refusal{key: "catalogs[0].name", layer: "base.yaml", also: "letters, digits"}},
		{"catalogue names repeat", base("catalogs:\n  - {name: " + planted + ", kind: markdown, version: v, dir: d}\n  - {name: " + planted + ", kind: markdown, version: v, dir: e}"), nil,
			refusal{key: "catalogs[1].name", layer: "base.yaml", at: ":3:12", also: "repeats the name of catalogs[0]"}},
		{"catalogues from a variable", nil, Env{"SUTURA__CATALOGS": "[{name: a, kind: markdown, dir: " + planted + "}]"},
			refusal{key: "catalogs[0].version", layer: "SUTURA__CATALOGS"}},
	})
}

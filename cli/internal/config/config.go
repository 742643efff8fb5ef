package config

import (
	"net"
	"net/netip"
	"path/filepath"
	"strconv"
	"time"
)

// Environment is the deployment environment chosen by SUTURA_ENVIRONMENT;
// it selects the second configuration file and tightens some rules.
type Environment string

// The environments SUTURA_ENVIRONMENT accepts.
const (
	Development Environment = "development"
	Test        Environment = "test"
	Production  Environment = "production"
)

// Identity says whether sutura serves one person or many
// (security.identity).
type Identity string

// The values of security.identity.
const (
	SingleUser Identity = "single-user"
	MultiUser  Identity = "multi-user"
)

// InboundMode is how callers present their identity (security.inbound.mode).
type InboundMode string

// InboundDirect validates a caller's JWT against the configured key set.
const InboundDirect InboundMode = "direct"

// The JWT algorithms security.inbound.algorithms may pin.
const (
	RS256 = "RS256"
	ES256 = "ES256"
	EdDSA = "EdDSA"
)

// CatalogProse says how the catalogue's prose reaches the agent prompt
// (prompt.catalog_prose).
type CatalogProse string

// The values of prompt.catalog_prose.
const (
	ProseQuoted  CatalogProse = "quoted"
	ProseOmitted CatalogProse = "omitted"
)

// AuditSink is where audit records go (audit.sink). There is deliberately
// no value that turns auditing off.
type AuditSink string

// The values of audit.sink.
const (
	SinkStderr AuditSink = "stderr"
	SinkFile   AuditSink = "file"
)

// LogFormat is how sutura serve writes its log lines (log.format).
type LogFormat string

// The values of log.format.
const (
	LogText LogFormat = "text"
	LogJSON LogFormat = "json"
)

// CatalogKind is the format of a catalogue (catalogs[].kind).
type CatalogKind string

// CatalogMarkdown is the Markdown catalogue read by adapters/catalog-markdown.
const CatalogMarkdown CatalogKind = "markdown"

// Config is the effective configuration: every layer applied, validated,
// paths resolved and secrets read. A Config returned by [Load] is safe to
// use as is; nothing in it needs defaulting again.
type Config struct {
	Server   Server   `yaml:"server"`
	Security Security `yaml:"security"`
	// Governance bounds federated questions (docs/contract.md §11).
	Governance Governance `yaml:"governance"`
	Runtime    Runtime    `yaml:"runtime"`
	Prompt     Prompt     `yaml:"prompt"`
	Tools      Tools      `yaml:"tools"`
	Audit      Audit      `yaml:"audit"`
	Log        Log        `yaml:"log"`
	// Catalogs lists the configured catalogues; empty means the embedded
	// demo catalogue (see [Config.Demo]).
	Catalogs []Catalog `yaml:"catalogs"`
	// Sources maps a source alias to its data system.
	Sources map[string]Source `yaml:"sources" key:"alias"`

	// Environment is the environment the configuration was loaded for.
	Environment Environment `yaml:"-"`
	// Dir is the absolute configuration directory, or empty when
	// SUTURA_CONFIG_DIR is unset (relative paths then stay relative to
	// the working directory).
	Dir string `yaml:"-"`

	// origins records the layer that set each key, for Refusal.
	origins map[string]origin
	// baseFound is whether Dir holds base.yaml.
	baseFound bool
	// budgetSet records that a layer set governance.budget (BudgetSet).
	budgetSet bool
}

// Refusal is the refusal of key found after loading — by a source's
// adapter, which checks its own settings when the source is opened — as
// an [*Error] naming key and the layer its value came from (for a key no
// layer set, the layer that declared its nearest parent, or the
// defaults), as every refusal of [Load] does. reason completes "key: …"
// and holds no configured value.
func (c *Config) Refusal(key, reason string) *Error {
	o := (&checker{cfg: c, origins: c.origins}).where(key)
	return &Error{Layer: o.layer, Key: key, Line: o.line, Column: o.column, Reason: reason}
}

// Demo reports whether no catalogue is configured, so the embedded demo
// catalogue and its embedded data are served; the cli says so once at
// start.
func (c *Config) Demo() bool { return len(c.Catalogs) == 0 }

// DemoBecause says, for the start notice, why no catalogue is configured:
// SUTURA_CONFIG_DIR is unset, the directory it names holds no base.yaml
// (named by path), or the layers read name no catalogs. It is "" when a
// catalogue is configured.
func (c *Config) DemoBecause() string {
	switch {
	case !c.Demo():
		return ""
	case c.Dir == "":
		return EnvConfigDir + " is unset"
	case !c.baseFound:
		return filepath.Join(c.Dir, BaseFile) + " does not exist"
	}
	return "the configuration names no catalogs"
}

// Server is the HTTP surface (server.*).
type Server struct {
	// Host is the IP literal to bind.
	Host string `yaml:"host"`
	// Port is the TCP port; 0 picks a free one (refused in production).
	Port int `yaml:"port"`
	// RequestTimeoutSeconds bounds one caller's whole wait (2..300).
	RequestTimeoutSeconds int `yaml:"request_timeout_seconds"`
	// MaxBodyBytes bounds a request body or one stdio message.
	MaxBodyBytes int `yaml:"max_body_bytes"`
	// AllowedHosts lists the extra Host header values accepted.
	AllowedHosts []string `yaml:"allowed_hosts"`
	// TLSTerminatedUpstream declares that a proxy in front of sutura
	// terminates TLS; required to bind a non-loopback address.
	TLSTerminatedUpstream bool `yaml:"tls_terminated_upstream"`
	// AgentSurface controls /mcp on the HTTP surface.
	AgentSurface AgentSurface `yaml:"agent_surface"`
	// RateLimit bounds the requests of one client: its address, then its
	// subject once inbound identity authenticated it.
	RateLimit RateLimit `yaml:"rate_limit"`
	// TrustedProxies are CIDR prefixes (or single addresses) of the proxies
	// whose X-Forwarded-For header names the client address the rate limit
	// reckons by; the header of any other peer is ignored.
	TrustedProxies []string `yaml:"trusted_proxies"`
	// MaxConnections bounds the HTTP connections open at once (1..1048576);
	// the default is runtime.DefaultMaxConnections, three quarters of the
	// process's open-file limit.
	MaxConnections int `yaml:"max_connections"`
}

// TrustedProxyPrefixes returns server.trusted_proxies as prefixes (a
// single address is its own /32 or /128); entries that do not parse were
// refused by validation.
func (s Server) TrustedProxyPrefixes() []netip.Prefix {
	var out []netip.Prefix
	for _, t := range s.TrustedProxies {
		if p, ok := parseProxy(t); ok {
			out = append(out, p)
		}
	}
	return out
}

// parseProxy reads one entry of server.trusted_proxies.
func parseProxy(s string) (netip.Prefix, bool) {
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Masked(), true
	}
	if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), true
	}
	return netip.Prefix{}, false
}

// RateLimit is server.rate_limit: a token bucket per client address and
// per authenticated subject.
type RateLimit struct {
	// PerSecond is the sustained rate (1..100000).
	PerSecond int `yaml:"per_second"`
	// Burst is the bucket size (1..100000).
	Burst int `yaml:"burst"`
}

// AgentSurface is server.agent_surface.
type AgentSurface struct {
	// Enabled serves /mcp.
	Enabled bool `yaml:"enabled"`
}

// Addr returns host:port for net.Listen.
func (s Server) Addr() string { return net.JoinHostPort(s.Host, strconv.Itoa(s.Port)) }

// Loopback reports whether Host is a loopback address.
func (s Server) Loopback() bool { return isLoopbackIP(s.Host) }

// RequestTimeout returns server.request_timeout_seconds as a duration.
func (s Server) RequestTimeout() time.Duration {
	return time.Duration(s.RequestTimeoutSeconds) * time.Second
}

// Security is identity, tokens and visibility (security.*).
type Security struct {
	// Identity is single-user or multi-user; a loaded Config always has
	// one (single-user when no source is configured and none was set).
	Identity Identity `yaml:"identity"`
	// SingleUserBecause records why single-user mode is acceptable where
	// it is required (see docs/configuration.md).
	SingleUserBecause string `yaml:"single_user_because"`
	// AccessTokenFile is the resolved path of the bearer token file.
	AccessTokenFile string `yaml:"access_token_file"`
	// MetricsTokenFile is the resolved path of the /metrics token file.
	MetricsTokenFile string `yaml:"metrics_token_file"`
	// Inbound is the JWT validation of callers.
	Inbound Inbound `yaml:"inbound"`
	// AudienceMapping maps a caller group to the metric audiences it sees.
	AudienceMapping map[string][]string `yaml:"audience_mapping" key:"group"`

	// AccessToken is the content of AccessTokenFile; absent when unset.
	AccessToken Secret `yaml:"-"`
	// MetricsToken is the content of MetricsTokenFile; absent when unset.
	MetricsToken Secret `yaml:"-"`
}

// Inbound is security.inbound: how callers' JWTs are validated.
type Inbound struct {
	// Mode is empty (no inbound identity) or direct.
	Mode InboundMode `yaml:"mode"`
	// Issuer is the required iss claim.
	Issuer string `yaml:"issuer"`
	// Audience is the required aud claim.
	Audience string `yaml:"audience"`
	// JWKSFile is the resolved path of a JWK set; exclusive with JWKSURL.
	JWKSFile string `yaml:"jwks_file"`
	// JWKSURL is an https URL of a JWK set; exclusive with JWKSFile.
	JWKSURL string `yaml:"jwks_url"`
	// Algorithms pins the accepted signature algorithms.
	Algorithms []string `yaml:"algorithms"`
	// ScopeClaim names the claim holding the caller's scopes.
	ScopeClaim string `yaml:"scope_claim"`
	// GroupsClaim names the claim holding the caller's groups.
	GroupsClaim string `yaml:"groups_claim"`
	// JWKSMaxStaleSeconds is how long keys are trusted after their last
	// successful read while every read since fails (60..86400); past it
	// callers are refused.
	JWKSMaxStaleSeconds int `yaml:"jwks_max_stale_seconds"`
}

// Enabled reports whether callers present a validated identity.
func (i Inbound) Enabled() bool { return i.Mode != "" }

// JWKSMaxStale returns security.inbound.jwks_max_stale_seconds as a
// duration.
func (i Inbound) JWKSMaxStale() time.Duration {
	return time.Duration(i.JWKSMaxStaleSeconds) * time.Second
}

// Governance bounds what one question may span across data systems
// (governance.*).
type Governance struct {
	// LookupLegCeiling is the most crossing relationships (lookup legs)
	// one question's plan may need (1..8); more is refused as
	// plan_needs_too_many_lookup_legs.
	LookupLegCeiling int `yaml:"lookup_leg_ceiling"`
	// SourceCeiling is the most data systems one question may read
	// (1..16); more is refused as plan_spans_too_many_sources. 1 turns
	// federation off.
	SourceCeiling int `yaml:"source_ceiling"`
	// MaxLegRows is the most rows one leg of a federated question may
	// return (1..10000000); more is refused as result_too_large.
	MaxLegRows int `yaml:"max_leg_rows"`
	// MaxScanBytesPerQuestion is the most bytes one question's estimate
	// may come to (docs/contract.md §15); more is refused as
	// scan_ceiling_exceeded before anything runs.
	MaxScanBytesPerQuestion int64 `yaml:"max_scan_bytes_per_question"`
	// Budget is every caller's spend per window; not set, no budget
	// applies (budget.go).
	Budget Budget `yaml:"budget,omitempty" default:"none"`
	// BudgetByAudience overrides Budget for the callers of an audience.
	BudgetByAudience map[string]Budget `yaml:"budget_by_audience" key:"audience"`
	// BudgetLedger is where budgets are kept: memory or postgres.
	BudgetLedger BudgetLedger `yaml:"budget_ledger"`
	// BudgetLedgerSource is the alias of the postgres source whose
	// database keeps the ledger, with budget_ledger: postgres.
	BudgetLedgerSource string `yaml:"budget_ledger_source"`
}

// Runtime is the process-wide bounds of docs/contract.md §7 (runtime.*).
type Runtime struct {
	// MaxConcurrentQueries is the one admission bound (1..512).
	MaxConcurrentQueries int `yaml:"max_concurrent_queries"`
	// AdmissionTimeoutSeconds is the longest wait for a slot (1..300).
	AdmissionTimeoutSeconds int `yaml:"admission_timeout_seconds"`
	// WorkingSetMaxBytes is the embedded engine's memory ceiling.
	WorkingSetMaxBytes int64 `yaml:"working_set_max_bytes"`
	// ShutdownGraceSeconds is how long in-flight questions may finish
	// after SIGTERM or SIGINT (1..300).
	ShutdownGraceSeconds int `yaml:"shutdown_grace_seconds"`
}

// AdmissionTimeout returns runtime.admission_timeout_seconds as a duration.
func (r Runtime) AdmissionTimeout() time.Duration {
	return time.Duration(r.AdmissionTimeoutSeconds) * time.Second
}

// ShutdownGrace returns runtime.shutdown_grace_seconds as a duration.
func (r Runtime) ShutdownGrace() time.Duration {
	return time.Duration(r.ShutdownGraceSeconds) * time.Second
}

// Prompt is the agent prompt rendering (prompt.*).
type Prompt struct {
	// CatalogProse is quoted or omitted.
	CatalogProse CatalogProse `yaml:"catalog_prose"`
	// InstructionsFile is the resolved path of extra operator instructions.
	InstructionsFile string `yaml:"instructions_file"`
	// ListPhysicalSchema lists tables and columns in the prompt.
	ListPhysicalSchema bool `yaml:"list_physical_schema"`
}

// Tools is the optional tools (tools.*).
type Tools struct {
	// RunSQL is tools.run_sql.
	RunSQL RunSQL `yaml:"run_sql"`
}

// RunSQL is tools.run_sql, the raw SQL tool for single-user exploration.
type RunSQL struct {
	// Enabled offers run_sql; refused in multi-user mode.
	Enabled bool `yaml:"enabled"`
	// Source is the alias of the source run_sql runs on; empty means the
	// one shared-service-user source that can run SQL. Required when
	// several can.
	Source string `yaml:"source"`
}

// Audit is the audit sink (audit.*).
type Audit struct {
	// Sink is stderr or file.
	Sink AuditSink `yaml:"sink"`
	// File is the resolved path appended to when Sink is file.
	File string `yaml:"file"`

	// SinkChosen says a layer set audit.sink. When none did, the command
	// line may send records to a file instead of a terminal (see
	// docs/operations.md); a chosen sink is always used as it is.
	SinkChosen bool `yaml:"-"`
}

// Log is the log of the serving commands (log.*).
type Log struct {
	// Format is text (key=value lines) or json (one object per line).
	Format LogFormat `yaml:"format"`
}

// Catalog is one entry of catalogs.
type Catalog struct {
	// Name identifies the catalogue in messages and provenance.
	Name string `yaml:"name"`
	// Kind is markdown.
	Kind CatalogKind `yaml:"kind"`
	// Dir is the resolved directory of the catalogue documents.
	Dir string `yaml:"dir"`
	// Version is the label stamped on the bundle.
	Version string `yaml:"version"`
	// RefreshSeconds re-reads the catalogue on this interval; 0 when
	// omitted, meaning the catalogue is read once.
	RefreshSeconds int `yaml:"refresh_seconds,omitempty"`
}

// Refresh returns refresh_seconds as a duration; 0 means no refresh.
func (c Catalog) Refresh() time.Duration { return time.Duration(c.RefreshSeconds) * time.Second }

// isLoopbackIP reports whether s is an IP literal of a loopback address.
func isLoopbackIP(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.IsLoopback()
}

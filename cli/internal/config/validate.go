package config

import (
	"net/netip"
	"net/url"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// checker validates an applied configuration. Every refusal names the key
// and the layer its value came from, found through the origins the
// appliers recorded.
type checker struct {
	cfg     *Config
	origins map[string]origin
	errs    errList
}

// where returns the origin of key: the layer that set it or, when no
// layer did, the layer that set its nearest parent below the top level
// (which declared the source, catalogue or mapping that needs it), or the
// defaults. A top-level section (server, security, ...) is never the
// origin of a key under it: a layer that set server.port said nothing of
// server.agent_surface.enabled.
func (c *checker) where(key string) origin {
	for k := key; k != ""; {
		if o, ok := c.origins[k]; ok && (k == key || strings.ContainsAny(k, ".[")) {
			return o
		}
		i := strings.LastIndexAny(k, ".[")
		if i < 0 {
			break
		}
		k = k[:i]
	}
	return origin{layer: defaultsLayer}
}

// isSet reports whether some layer set key.
func (c *checker) isSet(key string) bool {
	_, ok := c.origins[key]
	return ok
}

// fail records a refusal of key.
func (c *checker) fail(key, reason string) { c.failErr(key, reason, nil) }

func (c *checker) failErr(key, reason string, err error) {
	o := c.where(key)
	c.errs.add(&Error{Layer: o.layer, Key: key, Line: o.line, Column: o.column, Reason: reason, Err: err})
}

// from names key and its origin, for a reason that points at a second key.
func (c *checker) from(key string) string {
	o := c.where(key)
	e := Error{Layer: o.layer, Line: o.line, Column: o.column}
	return key + ", from " + e.Where()
}

// intRange refuses v outside lo..hi. The range is not the value, so it
// may be printed.
func (c *checker) intRange(key string, v, lo, hi int64) {
	if v < lo || v > hi {
		c.fail(key, "must be between "+strconv.FormatInt(lo, 10)+" and "+strconv.FormatInt(hi, 10))
	}
}

// oneOf refuses v outside allowed; an empty v is accepted when optional.
func oneOf[T ~string](c *checker, key string, v T, optional bool, allowed ...T) bool {
	if (v == "" && optional) || slices.Contains(allowed, v) {
		return true
	}
	if v == "" {
		c.fail(key, "is required: one of "+joinStrings(allowed))
		return false
	}
	c.fail(key, "must be one of "+joinStrings(allowed))
	return false
}

func joinStrings[T ~string](vs []T) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}

// blank reports whether s holds nothing but white space.
func blank(s string) bool { return strings.TrimSpace(s) == "" }

// required refuses a blank v.
func (c *checker) required(key, v, what string) {
	if blank(v) {
		c.fail(key, "is required"+what)
	}
}

// Bounds that are not in docs/contract.md §7, chosen so that no number means
// unlimited.
const (
	maxBodyBytesLimit  = 64 << 20
	maxWorkingSetBytes = 1 << 40
	minRefreshSeconds  = 10
	maxRefreshSeconds  = 86400
	maxAliasLength     = 63
	// A federated base leg groups by its four dimensions and a key per
	// crossing, and the embedded engine groups by at most twelve columns.
	maxLookupLegCeiling = 8
	maxSourceCeiling    = 16
	maxLegRows          = 10_000_000 // domain.MaxLegRowCap
	maxHostNameLength   = 253
)

// identifier is the shape of a source alias.
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// catalogName is the shape of a catalogue name: an identifier that may
// also hold hyphens.
var catalogName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// hostName is the shape of a DNS name.
var hostName = regexp.MustCompile(`^[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?)*\.?$`)

// validHost reports whether s is an IP literal or a DNS name.
func validHost(s string) bool {
	if _, err := netip.ParseAddr(s); err == nil {
		return true
	}
	return len(s) <= maxHostNameLength && hostName.MatchString(s)
}

// loopbackHost reports whether a host (of a URL) is on this machine.
func loopbackHost(s string) bool { return strings.EqualFold(s, "localhost") || isLoopbackIP(s) }

// validate checks every key on its own and the rules that make a key
// required by another.
func (c *checker) validate() {
	c.server()
	c.security()
	g := c.cfg.Governance
	c.intRange("governance.lookup_leg_ceiling", int64(g.LookupLegCeiling), 1, maxLookupLegCeiling)
	c.intRange("governance.source_ceiling", int64(g.SourceCeiling), 1, maxSourceCeiling)
	c.intRange("governance.max_leg_rows", int64(g.MaxLegRows), 1, maxLegRows)
	c.spend()
	r := c.cfg.Runtime
	c.intRange("runtime.max_concurrent_queries", int64(r.MaxConcurrentQueries), 1, 512)
	c.intRange("runtime.admission_timeout_seconds", int64(r.AdmissionTimeoutSeconds), 1, 300)
	c.intRange("runtime.working_set_max_bytes", r.WorkingSetMaxBytes, 1, maxWorkingSetBytes)
	c.intRange("runtime.shutdown_grace_seconds", int64(r.ShutdownGraceSeconds), 1, 300)
	oneOf(c, "prompt.catalog_prose", c.cfg.Prompt.CatalogProse, false, ProseQuoted, ProseOmitted)
	oneOf(c, "log.format", c.cfg.Log.Format, false, LogText, LogJSON)
	c.runSQL()
	c.audit()
	c.catalogs()
	for _, alias := range sortedKeys(c.cfg.Sources) {
		c.source(alias, c.cfg.Sources[alias])
	}
}

func (c *checker) server() {
	s := c.cfg.Server
	if a, err := netip.ParseAddr(s.Host); err != nil || a.Zone() != "" {
		c.fail("server.host", "must be an IP address literal such as 127.0.0.1 or ::1 (host names are not accepted)")
	}
	c.intRange("server.port", int64(s.Port), 0, 65535)
	c.intRange("server.request_timeout_seconds", int64(s.RequestTimeoutSeconds), 2, 300)
	c.intRange("server.max_body_bytes", int64(s.MaxBodyBytes), 1, maxBodyBytesLimit)
	c.intRange("server.rate_limit.per_second", int64(s.RateLimit.PerSecond), 1, 100000)
	c.intRange("server.rate_limit.burst", int64(s.RateLimit.Burst), 1, 100000)
	c.intRange("server.max_connections", int64(s.MaxConnections), 1, 1<<20)
	for i, t := range s.TrustedProxies {
		if _, ok := parseProxy(t); !ok {
			c.fail(indexKey("server.trusted_proxies", i), "must be an IP address or a CIDR prefix such as 10.0.0.0/8")
		}
	}
	for i, h := range s.AllowedHosts {
		host := h
		if hp, err := netip.ParseAddrPort(h); err == nil {
			host = hp.Addr().String()
		} else if name, port, ok := strings.Cut(h, ":"); ok && !strings.Contains(port, ":") {
			if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
				host = "" // refused below
			} else {
				host = name
			}
		}
		if !validHost(host) {
			c.fail(indexKey("server.allowed_hosts", i), "must be a host name or IP address, optionally with :port")
		}
	}
}

func (c *checker) security() {
	sec := c.cfg.Security
	oneOf(c, "security.identity", sec.Identity, true, SingleUser, MultiUser)
	if sec.Identity == "" && len(c.cfg.Sources) > 0 {
		first := sortedKeys(c.cfg.Sources)[0]
		c.fail("security.identity", "is required once a source is configured ("+c.from("sources."+first)+"): one of single-user, multi-user")
	}
	c.inbound()
	m := sec.AudienceMapping
	for _, group := range sortedKeys(m) {
		key := childKey("security.audience_mapping", group)
		if blank(group) {
			c.fail(key, "has an empty group name")
			continue
		}
		if len(m[group]) == 0 {
			c.fail(key, "must list at least one audience")
		}
		for i, aud := range m[group] {
			if blank(aud) {
				c.fail(indexKey(key, i), "must not be empty")
			}
		}
	}
}

func (c *checker) inbound() {
	in := c.cfg.Security.Inbound
	const p = "security.inbound."
	c.intRange(p+"jwks_max_stale_seconds", int64(in.JWKSMaxStaleSeconds), 60, 86400)
	if !oneOf(c, p+"mode", in.Mode, true, InboundDirect) {
		return
	}
	if in.Mode == "" {
		// Settings without a mode would look like protection that is not there.
		for _, f := range []struct {
			key string
			set bool
		}{
			{"issuer", in.Issuer != ""}, {"audience", in.Audience != ""}, {"jwks_file", in.JWKSFile != ""},
			{"jwks_url", in.JWKSURL != ""}, {"algorithms", len(in.Algorithms) > 0},
		} {
			if f.set {
				c.fail(p+f.key, "is set but security.inbound.mode is not: set mode to direct, or remove this key")
			}
		}
		return
	}
	c.required(p+"issuer", in.Issuer, " with security.inbound.mode direct")
	c.required(p+"audience", in.Audience, " with security.inbound.mode direct")
	switch {
	case in.JWKSFile != "" && in.JWKSURL != "":
		c.fail(p+"jwks_url", "is set together with security.inbound.jwks_file: set exactly one")
	case blank(in.JWKSFile) && blank(in.JWKSURL):
		c.fail(p+"jwks_file", "or security.inbound.jwks_url is required with security.inbound.mode direct")
	case in.JWKSURL != "":
		c.jwksURL(p+"jwks_url", in.JWKSURL)
	}
	if len(in.Algorithms) == 0 {
		c.fail(p+"algorithms", "is required with security.inbound.mode direct: a list of RS256, ES256, EdDSA")
	}
	for i, alg := range in.Algorithms {
		k := indexKey(p+"algorithms", i)
		switch {
		case !slices.Contains([]string{RS256, ES256, EdDSA}, alg):
			c.fail(k, "must be one of RS256, ES256, EdDSA")
		case slices.Index(in.Algorithms, alg) < i:
			c.fail(k, "repeats an earlier algorithm")
		}
	}
	c.required(p+"scope_claim", in.ScopeClaim, "")
	c.required(p+"groups_claim", in.GroupsClaim, "")
}

// jwksURL checks that keys come over https (http only on loopback) and
// that the URL carries no credentials: secrets come from files.
func (c *checker) jwksURL(key, s string) {
	u, err := url.Parse(s)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		c.fail(key, "must be an absolute https URL")
	case u.User != nil:
		c.fail(key, "must not carry credentials (secrets come from files)")
	case u.Scheme == "http" && !loopbackHost(u.Hostname()):
		c.fail(key, "must use https (http is allowed only to a loopback address)")
	}
}

// runSQL checks tools.run_sql.source: an alias of a configured source,
// and only with run_sql enabled. Whether that source can run SQL is the
// surface's to say, once its data system is open.
func (c *checker) runSQL() {
	r := c.cfg.Tools.RunSQL
	switch {
	case r.Source == "":
	case !r.Enabled:
		c.fail("tools.run_sql.source", "applies only when tools.run_sql.enabled is true ("+c.from("tools.run_sql.enabled")+")")
	default:
		if _, ok := c.cfg.Sources[r.Source]; !ok {
			c.fail("tools.run_sql.source", "must be the alias of a configured source (a key of sources)")
		}
	}
}

func (c *checker) audit() {
	a := c.cfg.Audit
	if a.Sink == "none" {
		c.fail("audit.sink", "must not be none: every outcome is audited; use stderr or file")
	} else if !oneOf(c, "audit.sink", a.Sink, false, SinkStderr, SinkFile) {
		return
	}
	switch {
	case a.Sink == SinkFile && blank(a.File):
		c.fail("audit.file", "is required when audit.sink is file ("+c.from("audit.sink")+")")
	case a.Sink != SinkFile && a.File != "":
		c.fail("audit.file", "applies only when audit.sink is file")
	}
}

func (c *checker) catalogs() {
	for i, cat := range c.cfg.Catalogs {
		key := indexKey("catalogs", i)
		switch {
		case blank(cat.Name):
			c.fail(key+".name", "is required")
		case !catalogName.MatchString(cat.Name) || len(cat.Name) > maxAliasLength:
			c.fail(key+".name", "must be a name of letters, digits, _ and - (at most 63 characters, not starting with a digit or -)")
		default:
			for j := range i {
				if c.cfg.Catalogs[j].Name == cat.Name {
					c.fail(key+".name", "repeats the name of "+indexKey("catalogs", j))
					break
				}
			}
		}
		oneOf(c, key+".kind", cat.Kind, false, CatalogMarkdown)
		c.required(key+".dir", cat.Dir, "")
		c.required(key+".version", cat.Version, ": the label stamped on the bundle")
		if c.isSet(key + ".refresh_seconds") {
			c.intRange(key+".refresh_seconds", int64(cat.RefreshSeconds), minRefreshSeconds, maxRefreshSeconds)
		}
	}
}

// source checks the shape of one source: its alias, kind and posture, the
// keys that do not apply to its kind, and that a number it sets is one.
// What a kind requires of its settings (a host, a transport that suits
// it, TLS files, a database file that exists, the range of a number) is
// its adapter's to check, once, when the source is opened; the
// composition root reports such a refusal with its key and layer
// ([Config.Refusal]). A files source, which no adapter configures, is
// checked here.
func (c *checker) source(alias string, s Source) {
	key := childKey("sources", alias)
	if !identifier.MatchString(alias) || len(alias) > maxAliasLength {
		c.fail(key, "has an alias that is not an identifier ([A-Za-z_][A-Za-z0-9_]*, at most 63 characters)")
		return
	}
	kindOK := oneOf(c, key+".kind", s.Kind, false, allKinds...)
	oneOf(c, key+".posture", s.Posture, false, SharedServiceUser, ImpersonationAtSource)
	if !kindOK {
		return
	}
	v := reflect.ValueOf(s)
	fields, names := fieldsOf(v.Type())
	for _, name := range names {
		f := v.Field(fields[name])
		if f.IsZero() || (f.Kind() == reflect.Map && f.Len() == 0) || keyApplies(name, s.Kind) {
			continue
		}
		c.fail(key+"."+name, "does not apply to kind "+string(s.Kind))
	}
	// Zero never means unlimited, nor the default: a number that is set is
	// at least 1 (its adapter bounds it from above).
	for _, n := range []struct {
		name string
		v    int64
	}{{"port", int64(s.Port)}, {"threads", int64(s.Threads)}, {"memory_limit_bytes", s.MemoryLimitBytes},
		{"maximum_bytes_billed", s.MaximumBytesBilled}} {
		if k := key + "." + n.name; c.isSet(k) && n.v < 1 {
			c.fail(k, "must be at least 1 (leave it out for the default)")
		}
	}
	if s.Kind == KindFiles {
		c.required(key+".data_dir", s.DataDir, " for kind files")
		if s.Posture == ImpersonationAtSource {
			c.fail(key+".posture", "cannot be impersonation-at-source for kind files, which has no identity at the source: use shared-service-user")
		}
	}
}

// normalize fills the defaults that depend on other keys. A source's
// defaults (its port, its transport) are its adapter's.
func (c *checker) normalize() {
	if c.cfg.Security.Identity == "" {
		c.cfg.Security.Identity = SingleUser // only reachable with no source
	}
}

// resolvePaths makes relative paths relative to the configuration
// directory.
func (c *checker) resolvePaths() {
	dir := c.cfg.Dir
	if dir == "" {
		return
	}
	abs := func(p *string) {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
	}
	sec := &c.cfg.Security
	abs(&sec.AccessTokenFile)
	abs(&sec.MetricsTokenFile)
	abs(&sec.Inbound.JWKSFile)
	abs(&c.cfg.Prompt.InstructionsFile)
	abs(&c.cfg.Audit.File)
	for i := range c.cfg.Catalogs {
		abs(&c.cfg.Catalogs[i].Dir)
	}
	for alias, s := range c.cfg.Sources {
		for _, p := range []*string{&s.DataDir, &s.UnixSocket, &s.PasswordFile, &s.CAFile, &s.CertFile, &s.KeyFile, &s.CredentialsFile, &s.WalletDir} {
			abs(p)
		}
		if s.Path != ":memory:" {
			abs(&s.Path)
		}
		c.cfg.Sources[alias] = s
	}
}

// readSecrets reads every configured secret file.
func (c *checker) readSecrets() {
	read := func(key, path string, into *Secret) {
		if path == "" {
			return
		}
		s, reason, err := readSecret(path)
		if reason != "" {
			c.failErr(key, reason, err)
			return
		}
		*into = s
	}
	sec := &c.cfg.Security
	read("security.access_token_file", sec.AccessTokenFile, &sec.AccessToken)
	read("security.metrics_token_file", sec.MetricsTokenFile, &sec.MetricsToken)
	for _, alias := range sortedKeys(c.cfg.Sources) {
		s := c.cfg.Sources[alias]
		read(childKey("sources", alias)+".password_file", s.PasswordFile, &s.Password)
		c.cfg.Sources[alias] = s
	}
}

// sortedKeys returns the keys of m in order, for deterministic messages.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

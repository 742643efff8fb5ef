package httpapi

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"sutura.dev/app"
)

// DefaultMaxBodyBytes is the body limit when Config leaves it zero.
const DefaultMaxBodyBytes = 65536

// Config wires a Server. Surface is required; every other zero value is a
// default. The composition root (cli) fills it from the configuration.
type Config struct {
	// Surface answers; it is the process's one app.Surface.
	Surface *app.Surface
	// CatalogName is the catalogue's name for people (its configured name,
	// or "demo"), shown in the catalogue browser's header; "" shows none.
	CatalogName string
	// Tools is the capability list to serve; nil is the surface's
	// (app.Surface.Tools). A list that is not the surface's fails New:
	// whether a tool is enabled, and whether a caller's scopes grant it,
	// is the surface's decision (app.Surface.Permit), which the capability
	// gate asks. POST /v1/sql/run serves run_sql only when the surface
	// offers it; otherwise it is 403 tool_not_enabled. The OpenAPI
	// document describes exactly this list.
	Tools []app.Tool
	// MCP is the Streamable HTTP handler mounted at /mcp behind the same
	// gates as /v1; nil leaves /mcp unmounted. Build it with
	// mcpserver.Options{Caller: CallerFrom, EnforceScopes: true}.
	MCP http.Handler
	// Ready reports whether the bundle is pinned, its anchors checked and
	// every source open; nil is always ready.
	Ready func() bool
	// MaxBodyBytes bounds a request body (server.max_body_bytes); zero is
	// 65536.
	MaxBodyBytes int64
	// AllowedHosts are the Host header values answered besides the
	// loopback names (server.allowed_hosts): a host name or IP, optionally
	// with :port.
	AllowedHosts []string
	// AccessToken is the deployment bearer token; nil means none. Without
	// inbound identity it is sent as "Authorization: Bearer"; with it, in
	// the AccessTokenHeader header.
	AccessToken []byte
	// MetricsToken is the bearer token of /metrics; nil leaves /metrics
	// unmounted. It must differ from AccessToken.
	MetricsToken []byte
	// Inbound is the JWT identity of callers (security.inbound in direct
	// mode); nil means none.
	Inbound *InboundConfig
	// SingleUser makes every caller the local operator
	// (domain.LocalOperator), who sees every metric and holds every scope.
	// It excludes Inbound. With neither, every caller is the anonymous
	// principal: every scope, open metrics only.
	SingleUser bool
	// RateLimit bounds the requests of one client: of its address until
	// a credential it presents holds, then (with Inbound) of its subject,
	// or (with AccessToken alone) of its address's authenticated requests.
	RateLimit RateLimit
	// TrustedProxies are the peers whose X-Forwarded-For header names the
	// client address (server.trusted_proxies); a header from any other
	// peer is ignored.
	TrustedProxies []netip.Prefix
	// MaxConnections bounds the connections open at once on a listener
	// wrapped by LimitListener (server.max_connections); zero is
	// runtime.DefaultMaxConnections.
	MaxConnections int
	// Metrics is the process's registry; build it with NewMetrics and wrap
	// the audit sink given to app.New with Metrics.Audit, so that outcomes
	// of every transport are counted. nil is a registry of this server's
	// requests only.
	Metrics *Metrics
	// Logger receives one line per request (debug; warn for 5xx) and per
	// service failure, with the correlation id, never a question, a value
	// or a token; nil discards.
	Logger *slog.Logger
}

// InboundConfig is security.inbound in direct mode, with
// security.audience_mapping.
type InboundConfig struct {
	// Issuer is the required iss claim.
	Issuer string
	// Audience is the required aud claim.
	Audience string
	// JWKSFile and JWKSURL locate the key set; exactly one is set.
	JWKSFile, JWKSURL string
	// Algorithms pins the accepted algorithms: RS256, ES256, EdDSA.
	Algorithms []string
	// ScopeClaim names the claim of the scopes; "" is "scope".
	ScopeClaim string
	// GroupsClaim names the claim of the groups; "" is "groups".
	GroupsClaim string
	// AudienceMapping maps a group to the metric audiences it sees.
	AudienceMapping map[string][]string
	// Resource is this server's resource identifier in the RFC 9728
	// metadata (its public base URL, such as https://metrics.example.com);
	// "" derives it from each request's Host, https off loopback.
	Resource string
	// JWKSMaxStale is how long keys are trusted after they were last read
	// when every read since has failed (security.inbound.jwks_max_stale_seconds);
	// past it every token is refused with identity_unavailable until a
	// read succeeds. Keys are re-read once half of it (or KeysMaxAge) has
	// passed. Zero is DefaultJWKSMaxStale; it must be at least
	// RefetchInterval.
	JWKSMaxStale time.Duration
	// Client fetches JWKSURL; nil is a client with a 10 s timeout. Whatever
	// client is given, redirects are not followed: the keys come from the
	// URL configured, over the scheme it names, or not at all.
	Client *http.Client
}

// Server is the HTTP surface: the routes of docs/contract.md §6 behind the
// layers of §6 in their order. It is safe for concurrent use.
type Server struct {
	cfg          Config
	log          *slog.Logger
	metrics      *Metrics
	tools        []app.Tool
	scopes       []string // every scope of the tool list
	limiter      *limiter // by client address
	principals   *limiter // by authenticated subject
	hosts        []hostPattern
	accessDigest *[32]byte
	metricsHash  *[32]byte
	verifier     *verifier
	openapi      []byte
	docs         []byte
	handler      http.Handler
	methods      map[string][]string // path → methods, for 405
}

// New validates cfg and builds the server. It reads a JWKS file, but
// fetches a JWKS URL only when the first token needs it.
func New(cfg Config) (*Server, error) {
	if cfg.Surface == nil {
		return nil, errors.New("httpapi: a server needs the app surface")
	}
	tools, err := app.ServedTools(cfg.Surface, cfg.Tools)
	if err != nil {
		return nil, fmt.Errorf("httpapi: %w", err)
	}
	cfg.Tools = tools
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.RateLimit.PerSecond == 0 {
		cfg.RateLimit.PerSecond = DefaultRatePerSecond
	}
	if cfg.RateLimit.Burst == 0 {
		cfg.RateLimit.Burst = DefaultRateBurst
	}
	switch {
	case cfg.MaxBodyBytes < 0:
		return nil, errors.New("httpapi: the body limit must be positive")
	case cfg.RateLimit.PerSecond < 0 || cfg.RateLimit.Burst < 0:
		return nil, errors.New("httpapi: the rate limit must be positive")
	case cfg.SingleUser && cfg.Inbound != nil:
		return nil, errors.New("httpapi: a single-user server has no inbound identity")
	case cfg.AccessToken != nil && len(cfg.AccessToken) == 0:
		return nil, errors.New("httpapi: the access token is empty")
	case cfg.MetricsToken != nil && len(cfg.MetricsToken) == 0:
		return nil, errors.New("httpapi: the metrics token is empty")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, log: log, metrics: cfg.Metrics, tools: cfg.Tools,
		limiter: newLimiter(cfg.RateLimit, time.Now), principals: newLimiter(cfg.RateLimit, time.Now)}
	for _, t := range cfg.Tools {
		s.scopes = append(s.scopes, string(t.Scope))
	}
	if s.metrics == nil {
		m, err := NewMetrics(MetricsConfig{})
		if err != nil {
			return nil, err
		}
		s.metrics = m
	}
	if cfg.AccessToken != nil {
		d := sha256.Sum256(cfg.AccessToken)
		s.accessDigest = &d
	}
	if cfg.MetricsToken != nil {
		d := sha256.Sum256(cfg.MetricsToken)
		if s.accessDigest != nil && d == *s.accessDigest {
			return nil, errors.New("httpapi: the metrics token must differ from the access token")
		}
		s.metricsHash = &d
	}
	for _, h := range cfg.AllowedHosts {
		p, err := parseHostPattern(h)
		if err != nil {
			return nil, err
		}
		s.hosts = append(s.hosts, p)
	}
	if cfg.Inbound != nil {
		v, err := newVerifier(cfg.Inbound, log)
		if err != nil {
			return nil, err
		}
		s.verifier = v
	}
	doc, err := buildOpenAPI(documentOptions{tools: cfg.Tools, mcp: cfg.MCP != nil, direct: cfg.Inbound != nil, metrics: cfg.MetricsToken != nil})
	if err != nil {
		return nil, err
	}
	if s.openapi, err = doc.encode(); err != nil {
		return nil, err
	}
	if s.docs, err = renderDocs(doc, cfg.AccessToken == nil && cfg.Inbound == nil); err != nil {
		return nil, fmt.Errorf("httpapi: rendering /docs: %w", err)
	}
	s.handler = s.observe(s.trace(s.timeout(s.routes())))
	return s, nil
}

// newVerifier validates the inbound configuration and prepares its key
// set; a key set file is read now, so a bad file stops the start.
func newVerifier(in *InboundConfig, log *slog.Logger) (*verifier, error) {
	switch {
	case in.Issuer == "":
		return nil, errors.New("httpapi: inbound identity needs an issuer")
	case in.Audience == "":
		return nil, errors.New("httpapi: inbound identity needs an audience")
	case (in.JWKSFile == "") == (in.JWKSURL == ""):
		return nil, errors.New("httpapi: inbound identity needs exactly one of a JWKS file and a JWKS URL")
	case len(in.Algorithms) == 0:
		return nil, errors.New("httpapi: inbound identity needs at least one algorithm")
	case in.JWKSMaxStale != 0 && in.JWKSMaxStale < RefetchInterval:
		return nil, fmt.Errorf("httpapi: the key set's maximum staleness must be at least %v", RefetchInterval)
	}
	for i, a := range in.Algorithms {
		if !slices.Contains([]string{RS256, ES256, EdDSA}, a) || slices.Contains(in.Algorithms[:i], a) {
			return nil, fmt.Errorf("httpapi: inbound algorithms are RS256, ES256 and EdDSA, each at most once")
		}
	}
	if in.Resource != "" {
		u, err := url.Parse(in.Resource)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return nil, errors.New("httpapi: the inbound resource must be an absolute http(s) URL without query or fragment")
		}
	}
	v := &verifier{issuer: in.Issuer, audience: in.Audience, algorithms: in.Algorithms,
		scopeClaim: in.ScopeClaim, groupsClaim: in.GroupsClaim, mapping: in.AudienceMapping, now: time.Now}
	if v.scopeClaim == "" {
		v.scopeClaim = "scope"
	}
	if v.groupsClaim == "" {
		v.groupsClaim = "groups"
	}
	ks := &keySet{log: log, now: time.Now, maxStale: in.JWKSMaxStale}
	if ks.maxStale == 0 {
		ks.maxStale = DefaultJWKSMaxStale
	}
	if in.JWKSFile != "" {
		ks.source = fileSource(in.JWKSFile)
		data, err := ks.source(context.Background())
		if err == nil {
			var keys []jwk
			if keys, err = parseJWKS(data); err == nil {
				ks.set(keys, time.Now())
			}
		}
		if err != nil {
			return nil, fmt.Errorf("httpapi: inbound key set file: %w", err)
		}
	} else {
		u, err := url.Parse(in.JWKSURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
			return nil, errors.New("httpapi: the JWKS URL must be an http(s) URL without credentials")
		}
		client := &http.Client{Timeout: fetchTimeout}
		if in.Client != nil {
			c := *in.Client
			client = &c
		}
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		ks.source = urlSource(client, in.JWKSURL)
	}
	v.keys = ks
	return v, nil
}

// Handler returns the HTTP surface with every layer in place.
func (s *Server) Handler() http.Handler { return s.handler }

// Connection bounds of HTTPServer besides those derived from the request
// timeout.
const (
	// MaxHeaderBytes bounds the request line and headers of one request.
	MaxHeaderBytes = 64 << 10
	// maxHeaderTime bounds the headers of a request when the request
	// timeout is longer.
	maxHeaderTime = 10 * time.Second
	// writeMargin is the time a response may take to write past the
	// request timeout (a large answer to a slow reader).
	writeMargin = 10 * time.Second
)

// HTTPServer returns an http.Server on addr serving Handler, with the
// connection bounds of docs/contract.md §6, derived from the request timeout T
// (server.request_timeout_seconds):
//
//   - the request line and headers arrive within min(T, 10 s) and hold at
//     most MaxHeaderBytes (ReadHeaderTimeout, MaxHeaderBytes);
//   - the whole request, body included, arrives within T of its first
//     byte (ReadTimeout): a body a route does not read (a 401, a 429, a
//     GET with a body) cannot hold the connection while it trickles in.
//     Routes that take a body read it whole under the request's own
//     deadline and then lift the read deadline, so the answer may use the
//     rest of T;
//   - the response is written within T + 10 s (WriteTimeout);
//   - a keep-alive connection idle for 2 T is closed (IdleTimeout).
//
// The caller owns ListenAndServe/Serve and Shutdown.
func (s *Server) HTTPServer(addr string) *http.Server {
	t := s.cfg.Surface.RequestTimeout()
	return &http.Server{
		Addr: addr, Handler: s.handler,
		ReadHeaderTimeout: min(t, maxHeaderTime),
		ReadTimeout:       t,
		WriteTimeout:      t + writeMargin,
		IdleTimeout:       2 * t,
		MaxHeaderBytes:    MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// OpenAPI returns the OpenAPI 3.1 document this server serves at
// /openapi.json.
func (s *Server) OpenAPI() []byte { return slices.Clone(s.openapi) }

// hostPattern is one allowed Host: a lower-case name or IP and an optional
// port.
type hostPattern struct{ host, port string }

func parseHostPattern(h string) (hostPattern, error) {
	bad := fmt.Errorf("httpapi: an allowed host is a host name or IP address, optionally with :port")
	if h == "" || strings.ContainsAny(h, "/@?# \t") {
		return hostPattern{}, bad
	}
	host, port := splitHost(h)
	if host == "" {
		return hostPattern{}, bad
	}
	return hostPattern{host: host, port: port}, nil
}

// splitHost splits a Host header value into its lower-case host (without
// brackets or a trailing dot) and port.
func splitHost(hostport string) (host, port string) {
	host = hostport
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		host, port = h, p
	}
	host = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(host, "]"), "["), ".")
	return strings.ToLower(host), port
}

// hostAllowed reports whether a Host header names this server: a loopback
// name, or an allowed host, with no port or a port number. Any other port
// names no server; refused, it can never reach the resource metadata and
// the bearer challenge, which are built from the Host header.
func (s *Server) hostAllowed(hostport string) bool {
	host, port := splitHost(hostport)
	if host == "" || !portNumber(port) {
		return false
	}
	if isLoopbackName(host) {
		return true
	}
	for _, p := range s.hosts {
		if p.host == host && (p.port == "" || p.port == port) {
			return true
		}
	}
	return false
}

// portNumber reports whether port is empty or a TCP port, 1 to 65535,
// written in at most five decimal digits.
func portNumber(port string) bool {
	if port == "" {
		return true
	}
	if len(port) > 5 || strings.ContainsFunc(port, func(r rune) bool { return r < '0' || r > '9' }) {
		return false
	}
	n, _ := strconv.Atoi(port)
	return n >= 1 && n <= 65535
}

func isLoopbackName(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

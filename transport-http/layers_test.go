package httpapi

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// callerEcho stands in for the MCP handler: it answers with the caller the
// gates put in the request's context, as mcpserver reads it through
// Options.Caller.
func callerEcho() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := CallerFrom(r.Context())
		body, _ := io.ReadAll(r.Body)
		writeJSON(w, http.StatusOK, map[string]any{"subject": c.Principal.Subject, "scopes": c.Principal.Scopes,
			"actors": c.Principal.Actors, "correlation_id": c.CorrelationID, "body_bytes": len(body)})
	})
}

func TestCorrelationID(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	r := e.ask(t, qAnswer, map[string]string{CorrelationHeader: "req-42.a_b:c"})
	require.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, "req-42.a_b:c", r.header.Get(CorrelationHeader))
	assert.NotContains(t, string(r.body), "req-42", "never in a body")
	assert.Equal(t, "req-42.a_b:c", e.audit.Records()[0].CorrelationID, "in the audit record")
	assert.Contains(t, e.logs.String(), "correlation_id=req-42.a_b:c", "in the log")

	long := strings.Repeat("x", maxCorrelationID)
	r = e.ask(t, qAnswer, map[string]string{CorrelationHeader: long})
	assert.Equal(t, long, r.header.Get(CorrelationHeader), "the longest id is adopted")
	for _, bad := range []string{"", "has space", long + "x", strings.Repeat("x", 200), "<script>", "-leading"} {
		r = e.ask(t, qAnswer, map[string]string{CorrelationHeader: bad})
		minted := r.header.Get(CorrelationHeader)
		assert.True(t, adoptable(minted), minted)
		assert.NotEqual(t, bad, minted)
	}
	recs := e.audit.Records()
	assert.NotEqual(t, recs[2].CorrelationID, recs[3].CorrelationID, "each request mints its own")
}

func TestHostAllowlist(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{cfg: Config{AllowedHosts: []string{"metrics.example.com", "10.0.0.5:8443"}}})
	for host, ok := range map[string]bool{
		"localhost": true, "localhost:1234": true, "127.0.0.1:9": true, "[::1]:80": true,
		"metrics.example.com": true, "METRICS.example.com.:443": true, "10.0.0.5:8443": true,
		"10.0.0.5:80": false, "evil.example": false, "metrics.example.com.evil.example": false, "127.0.0.1.evil.example": false,
	} {
		r := e.do(t, request{path: "/v1/catalog", host: host})
		if ok {
			assert.Equal(t, http.StatusOK, r.status, host)
		} else {
			m := requireFailure(t, r, HostNotAllowed)
			assert.NotContains(t, m["detail"], host, "the host is not echoed")
		}
	}
	assert.False(t, e.server.hostAllowed(""), "an HTTP/1.0 request without Host is refused")
	assert.Equal(t, http.StatusOK, e.do(t, request{path: "/health", host: "10.1.2.3:8080"}).status, "probes answer any Host")
	requireFailure(t, e.do(t, request{path: "/openapi.json", host: "evil.example"}), HostNotAllowed)
}

func TestDeploymentToken(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{cfg: Config{AccessToken: []byte("s3cret"), MCP: callerEcho()}})
	for _, path := range []string{"/v1/catalog", "/mcp"} {
		r := e.do(t, request{method: http.MethodPost, path: path, body: "{}"})
		if path == "/v1/catalog" {
			r = e.do(t, request{path: path})
		}
		requireFailure(t, r, Unauthorized)
		assert.Equal(t, `Bearer realm="sutura"`, r.header.Get("WWW-Authenticate"))
	}
	r := e.do(t, request{path: "/v1/catalog", header: map[string]string{"Authorization": "Bearer wrong"}})
	requireFailure(t, r, Unauthorized)
	assert.Equal(t, `Bearer realm="sutura", error="invalid_token"`, r.header.Get("WWW-Authenticate"))
	r = e.do(t, request{path: "/v1/catalog", header: map[string]string{"Authorization": "bearer s3cret"}})
	assert.Equal(t, http.StatusOK, r.status)
	// Public routes need no token.
	for _, path := range []string{"/health", "/ready", "/openapi.json", "/docs"} {
		assert.Equal(t, http.StatusOK, e.do(t, request{path: path}).status, path)
	}
}

// TestLayerOrder: an outer gate answers before an inner one.
func TestLayerOrder(t *testing.T) {
	idp := newIdentityProvider(t)
	e := idp.env(t, envConfig{cfg: Config{AccessToken: []byte("s3cret"), MaxBodyBytes: 16, RateLimit: RateLimit{PerSecond: 0.01, Burst: 5}}})
	big := strings.Repeat(" ", 64) + qAnswer
	// Host before token.
	requireFailure(t, e.do(t, request{path: "/v1/query", body: big, host: "evil.example"}), HostNotAllowed)
	// Token before identity.
	requireFailure(t, e.do(t, request{path: "/v1/query", body: big}), Unauthorized)
	// Identity before the capability gate, which comes before the body.
	h := map[string]string{AccessTokenHeader: "s3cret"}
	r := e.do(t, request{path: "/v1/query", body: big, header: h})
	requireFailure(t, r, Unauthorized)
	assert.Contains(t, r.header.Get("WWW-Authenticate"), "resource_metadata")
	h["Authorization"] = idp.bearer(t, idp.claims("alice", scopeCatalog))["Authorization"]
	requireFailure(t, e.do(t, request{path: "/v1/query", body: big, header: h}), InsufficientScope)
	h["Authorization"] = idp.bearer(t, idp.claims("alice", scopeAsk))["Authorization"]
	requireFailure(t, e.do(t, request{path: "/v1/query", body: big, header: h}), TooLarge)
	// The rate limit is outside everything but metrics, trace and timeout:
	// the address bucket (5) paid for the three requests that were not
	// authenticated, and pays for these.
	requireFailure(t, e.do(t, request{path: "/v1/query", body: big, host: "evil.example"}), HostNotAllowed)
	requireFailure(t, e.do(t, request{path: "/v1/query", body: big, host: "evil.example"}), HostNotAllowed)
	requireFailure(t, e.do(t, request{path: "/v1/query", body: big, host: "evil.example"}), RateLimited)
	assert.Equal(t, http.StatusOK, e.do(t, request{path: "/health"}).status, "probes are not rate limited")
}

func TestRateLimitIsPerClientAndRefills(t *testing.T) {
	now := time.Unix(1000, 0)
	l := newLimiter(RateLimit{PerSecond: 2, Burst: 2}, func() time.Time { return now })
	for range 2 {
		ok, _ := l.allow("a")
		require.True(t, ok)
	}
	ok, wait := l.allow("a")
	require.False(t, ok)
	assert.Equal(t, 500*time.Millisecond, wait)
	ok, _ = l.allow("b")
	assert.True(t, ok, "another address has its own bucket")
	now = now.Add(500 * time.Millisecond)
	ok, _ = l.allow("a")
	assert.True(t, ok, "the bucket refills")
}

func TestBodyLimit(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{cfg: Config{MaxBodyBytes: 128, MCP: callerEcho()}})
	big := `{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"},"dimensions":["` + strings.Repeat("a", 200) + `"]}`
	requireFailure(t, e.ask(t, big, nil), TooLarge)
	requireFailure(t, e.do(t, request{path: "/mcp", body: big}), TooLarge)

	// A chunked body announces no length: it is cut at the limit.
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+"/v1/query", io.MultiReader(strings.NewReader(big)))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = -1
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	requireFailure(t, reply{status: resp.StatusCode, header: resp.Header, body: b}, TooLarge)

	m := e.do(t, request{path: "/mcp", body: `{"jsonrpc":"2.0"}`}).json(t)
	assert.EqualValues(t, len(`{"jsonrpc":"2.0"}`), m["body_bytes"], "the handler reads the body it was sent")
}

// TestSlowBodyTimesOut: a body that does not arrive within the request
// timeout is 408, and no work starts.
func TestSlowBodyTimesOut(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{requestTimeout: 300 * time.Millisecond})
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.srv.URL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /v1/query HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(qAnswer), qAnswer[:10])
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	requireFailure(t, reply{status: resp.StatusCode, header: resp.Header, body: b}, Timeout)
	assert.Empty(t, e.audit.Records())
}

// TestMCPIsMountedBehindTheGates: /mcp gets the caller the gates admitted,
// with its correlation id.
func TestMCPIsMountedBehindTheGates(t *testing.T) {
	idp := newIdentityProvider(t)
	e := idp.env(t, envConfig{cfg: Config{MCP: callerEcho()}})
	requireFailure(t, e.do(t, request{path: "/mcp", body: "{}"}), Unauthorized)
	claims := withClaim(idp.claims("alice", scopeAsk), "act", map[string]any{"sub": "agent-1"})
	h := idp.bearer(t, claims)
	h[CorrelationHeader] = "mcp-1"
	r := e.do(t, request{path: "/mcp", body: "{}", header: h})
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	var got struct {
		Subject       string   `json:"subject"`
		Scopes        []string `json:"scopes"`
		Actors        []string `json:"actors"`
		CorrelationID string   `json:"correlation_id"`
	}
	require.NoError(t, json.Unmarshal(r.body, &got))
	assert.Equal(t, "alice", got.Subject)
	assert.Equal(t, []string{scopeAsk}, got.Scopes)
	assert.Equal(t, []string{"agent-1"}, got.Actors)
	assert.Equal(t, "mcp-1", got.CorrelationID)

	single := newEnv(t, newFake(), envConfig{cfg: Config{MCP: callerEcho()}})
	m := single.do(t, request{path: "/mcp", body: "{}"}).json(t)
	assert.Equal(t, "local-operator", m["subject"])
	assert.Equal(t, "anonymous", CallerFrom(t.Context()).Principal.Subject, "outside a request the caller holds nothing")
	assert.Empty(t, CallerFrom(t.Context()).Principal.Scopes)
}

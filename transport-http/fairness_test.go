package httpapi

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUnauthenticatedFloodDoesNotStarveAuthenticatedCallers: behind one
// address (a proxy), requests without a valid JWT — none at all, or a
// forged one — spend only the address's bucket, so once it is empty they
// get 429 while every caller whose token holds is still answered, limited
// by its own subject's bucket only.
func TestUnauthenticatedFloodDoesNotStarveAuthenticatedCallers(t *testing.T) {
	idp := newIdentityProvider(t)
	e := idp.env(t, envConfig{cfg: Config{RateLimit: RateLimit{PerSecond: 0.001, Burst: 3}}})
	alice := idp.bearer(t, idp.claims("alice", scopeCatalog))
	forged := map[string]string{"Authorization": "Bearer not.a.token"}
	for range 3 {
		requireFailure(t, e.do(t, request{path: "/v1/catalog"}), Unauthorized)
	}
	for range 5 {
		requireFailure(t, e.do(t, request{path: "/v1/catalog"}), RateLimited)
		requireFailure(t, e.do(t, request{path: "/v1/catalog", header: forged}), RateLimited)
	}
	for range 3 {
		assert.Equal(t, http.StatusOK, e.do(t, request{path: "/v1/catalog", header: alice}).status,
			"a valid caller behind the flooded address is answered")
	}
	m := requireFailure(t, e.do(t, request{path: "/v1/catalog", header: alice}), RateLimited)
	assert.Contains(t, m["detail"], "caller", "and is limited by its own bucket")
}

// TestDeploymentTokenCallersKeepTheirOwnBucket: with the deployment token
// alone (no caller identity), requests whose token holds are limited per
// address apart from that address's requests without it.
func TestDeploymentTokenCallersKeepTheirOwnBucket(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{cfg: Config{AccessToken: []byte("s3cret-token"),
		RateLimit: RateLimit{PerSecond: 0.001, Burst: 2}}})
	good := map[string]string{"Authorization": "Bearer s3cret-token"}
	wrong := map[string]string{"Authorization": "Bearer wrong"}
	requireFailure(t, e.do(t, request{path: "/v1/catalog", header: wrong}), Unauthorized)
	requireFailure(t, e.do(t, request{path: "/v1/catalog"}), Unauthorized)
	requireFailure(t, e.do(t, request{path: "/v1/catalog", header: wrong}), RateLimited)
	requireFailure(t, e.do(t, request{path: "/v1/catalog"}), RateLimited)
	for range 2 {
		assert.Equal(t, http.StatusOK, e.do(t, request{path: "/v1/catalog", header: good}).status)
	}
	requireFailure(t, e.do(t, request{path: "/v1/catalog", header: good}), RateLimited)
}

// TestACredentialNobodyChecksBuysNothing: a server that checks no
// credential (single user, no token) charges every request to its address,
// with or without an Authorization header, and so do the public routes of
// a server that checks one.
func TestACredentialNobodyChecksBuysNothing(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{cfg: Config{RateLimit: RateLimit{PerSecond: 0.001, Burst: 2}}})
	h := map[string]string{"Authorization": "Bearer anything"}
	for range 2 {
		assert.Equal(t, http.StatusOK, e.do(t, request{path: "/v1/catalog", header: h}).status)
	}
	requireFailure(t, e.do(t, request{path: "/v1/catalog", header: h}), RateLimited)

	idp := newIdentityProvider(t)
	e = idp.env(t, envConfig{cfg: Config{RateLimit: RateLimit{PerSecond: 0.001, Burst: 2}}})
	alice := idp.bearer(t, idp.claims("alice", scopeCatalog))
	for range 2 {
		assert.Equal(t, http.StatusOK, e.do(t, request{path: "/openapi.json", header: alice}).status)
	}
	requireFailure(t, e.do(t, request{path: "/openapi.json", header: alice}), RateLimited)
}

// TestTrustedProxies: X-Forwarded-For names the client only when the peer
// is a trusted proxy; then two clients behind it have two buckets, and a
// client cannot pick its bucket by sending the header itself.
func TestTrustedProxies(t *testing.T) {
	limit := RateLimit{PerSecond: 0.001, Burst: 1}
	behind := func(client string) map[string]string { return map[string]string{"X-Forwarded-For": client} }

	e := newEnv(t, newFake(), envConfig{cfg: Config{RateLimit: limit}})
	assert.Equal(t, http.StatusOK, e.do(t, request{path: "/v1/catalog", header: behind("203.0.113.5")}).status)
	requireFailure(t, e.do(t, request{path: "/v1/catalog", header: behind("203.0.113.6")}), RateLimited)

	e = newEnv(t, newFake(), envConfig{cfg: Config{RateLimit: limit,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}}})
	assert.Equal(t, http.StatusOK, e.do(t, request{path: "/v1/catalog", header: behind("203.0.113.5")}).status)
	assert.Equal(t, http.StatusOK, e.do(t, request{path: "/v1/catalog", header: behind("203.0.113.6")}).status)
	requireFailure(t, e.do(t, request{path: "/v1/catalog", header: behind("203.0.113.5")}), RateLimited)
}

// TestClientAddress: the walk of X-Forwarded-For from the right, over the
// trusted proxies only.
func TestClientAddress(t *testing.T) {
	s := &Server{cfg: Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}}
	cases := []struct {
		peer string
		xff  []string
		want string
	}{
		{"192.0.2.1:5000", []string{"203.0.113.9"}, "192.0.2.1"},                          // an untrusted peer's header is ignored
		{"10.1.1.1:5000", nil, "10.1.1.1"},                                                // a trusted peer without a header
		{"10.1.1.1:5000", []string{"203.0.113.9"}, "203.0.113.9"},                         // one proxy
		{"10.1.1.1:5000", []string{"198.51.100.7, 203.0.113.9, 10.2.2.2"}, "203.0.113.9"}, // a chain: the nearest untrusted hop
		{"10.1.1.1:5000", []string{"198.51.100.7", "203.0.113.9"}, "203.0.113.9"},         // two header lines
		{"10.1.1.1:5000", []string{"garbage, 10.3.3.3"}, "10.3.3.3"},                      // a malformed hop ends the walk
		{"10.1.1.1:5000", []string{"10.2.2.2"}, "10.2.2.2"},                               // every hop trusted: the farthest
		{"10.1.1.1:5000", []string{"::ffff:203.0.113.9"}, "203.0.113.9"},                  // a mapped address
	}
	for _, c := range cases {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = c.peer
		for _, v := range c.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		assert.Equal(t, c.want, s.clientAddress(r), "peer %s, X-Forwarded-For %q", c.peer, c.xff)
	}
}

// TestLimitListener: at most MaxConnections connections are open at once;
// the next is accepted only when one closes, and Close wakes a waiting
// Accept.
func TestLimitListener(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ln := (&Server{cfg: Config{MaxConnections: 2}}).LimitListener(inner)
	accepted := make(chan net.Conn, 3)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	var clients []net.Conn
	for range 3 {
		c, err := net.Dial("tcp", inner.Addr().String())
		require.NoError(t, err)
		clients = append(clients, c)
		defer c.Close()
	}
	first, second := <-accepted, <-accepted
	select {
	case <-accepted:
		t.Fatal("a third connection was accepted while two are open")
	case <-time.After(200 * time.Millisecond):
	}
	require.NoError(t, first.Close())
	select {
	case third := <-accepted:
		require.NotNil(t, third)
		third.Close()
	case <-time.After(5 * time.Second):
		t.Fatal("the third connection was not accepted after one closed")
	}
	second.Close()
	require.NoError(t, ln.Close())
	_, open := <-accepted
	assert.False(t, open, "Close ends Accept")
}

// TestReadySaysTheAuditSinkCannotBeWritten: once an audit write has
// failed, /ready is 503 naming the audit log and questions are refused
// unavailable; when the sink writes again, both recover.
func TestReadySaysTheAuditSinkCannotBeWritten(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	const q = `{"metrics":["revenue"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`
	require.Equal(t, http.StatusOK, e.do(t, request{path: "/ready"}).status)
	e.audit.Fail(errors.New("no space left on device"))
	requireFailure(t, e.ask(t, q, nil), Internal)
	m := requireFailure(t, e.do(t, request{path: "/ready"}), Unavailable)
	assert.Contains(t, m["detail"], "the audit log cannot be written")
	m = requireFailure(t, e.ask(t, q, nil), Unavailable)
	assert.Contains(t, m["detail"], "the audit log cannot be written")
	e.audit.Fail(nil)
	require.Equal(t, http.StatusOK, e.do(t, request{path: "/ready"}).status)
	require.Equal(t, http.StatusOK, e.ask(t, q, nil).status)
}

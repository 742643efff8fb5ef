package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStaleKeysStopBeingTrusted: keys whose refresh keeps failing are
// trusted for JWKSMaxStale after they were last read, then every token is
// refused with identity_unavailable (fail closed) until a read succeeds.
func TestStaleKeysStopBeingTrusted(t *testing.T) {
	idp := newIdentityProvider(t)
	in := idp.inbound()
	in.JWKSMaxStale = 10 * time.Minute
	e := newEnv(t, newFake(), envConfig{cfg: Config{Inbound: in}})
	clock := e.withClock(t)
	catalog := func() reply {
		return e.do(t, request{path: "/v1/catalog", header: idp.bearer(t, idp.claims("alice", scopeCatalog))})
	}
	require.Equal(t, http.StatusOK, catalog().status)
	require.Equal(t, int64(1), idp.hits.Load())

	idp.failing.Store(true)
	clock.advance(4 * time.Minute)
	assert.Equal(t, http.StatusOK, catalog().status)
	assert.Equal(t, int64(1), idp.hits.Load(), "fresh keys are not read again")
	clock.advance(2 * time.Minute) // 6 min: half the maximum staleness is past
	assert.Equal(t, http.StatusOK, catalog().status, "a failed read keeps the keys while they may be trusted")
	assert.Equal(t, int64(2), idp.hits.Load(), "keys due for a read are read")
	clock.advance(3*time.Minute + 59*time.Second)
	assert.Equal(t, http.StatusOK, catalog().status)
	assert.Equal(t, int64(3), idp.hits.Load())

	clock.advance(time.Second) // 10 min since the last read
	r := catalog()
	requireFailure(t, r, IdentityUnavailable)
	assert.NotEmpty(t, r.header.Get("Retry-After"))
	assert.Contains(t, e.logs.String(), "jwks_max_stale_seconds")
	for range 3 {
		requireFailure(t, catalog(), IdentityUnavailable)
	}
	assert.Equal(t, int64(3), idp.hits.Load(), "still at most one read per interval")

	idp.failing.Store(false)
	clock.advance(RefetchInterval)
	assert.Equal(t, http.StatusOK, catalog().status, "a read that succeeds restores trust")
	assert.Equal(t, int64(4), idp.hits.Load())
}

// TestDefaultMaxStaleIsAnHour: without a setting, keys read an hour ago
// and not read since are not trusted.
func TestDefaultMaxStaleIsAnHour(t *testing.T) {
	idp := newIdentityProvider(t)
	e := idp.env(t, envConfig{})
	clock := e.withClock(t)
	token := idp.bearer(t, idp.claims("alice", scopeCatalog))
	require.Equal(t, http.StatusOK, e.do(t, request{path: "/v1/catalog", header: token}).status)
	idp.failing.Store(true)
	clock.advance(59 * time.Minute)
	assert.Equal(t, http.StatusOK, e.do(t, request{path: "/v1/catalog", header: token}).status)
	clock.advance(time.Minute)
	requireFailure(t, e.do(t, request{path: "/v1/catalog", header: token}), IdentityUnavailable)

	in := idp.inbound()
	in.JWKSMaxStale = time.Second
	_, err := New(Config{Surface: e.server.cfg.Surface, Inbound: in})
	assert.ErrorContains(t, err, "staleness")
}

// TestKeySetRedirectsAreNotFollowed: a JWKS URL that redirects (here from
// https to plain http) yields no keys, even with a client of the
// deployment's own that would follow it.
func TestKeySetRedirectsAreNotFollowed(t *testing.T) {
	idp := newIdentityProvider(t) // plain http
	redirect := httptest.NewTLSServer(http.RedirectHandler(idp.srv.URL, http.StatusFound))
	t.Cleanup(redirect.Close)
	in := idp.inbound()
	in.JWKSURL = redirect.URL + "/jwks.json"
	in.Client = redirect.Client()
	e := newEnv(t, newFake(), envConfig{cfg: Config{Inbound: in}})
	r := e.do(t, request{path: "/v1/catalog", header: idp.bearer(t, idp.claims("alice", scopeCatalog))})
	requireFailure(t, r, IdentityUnavailable)
	assert.Zero(t, idp.hits.Load(), "the redirect's target was never asked")
	assert.Contains(t, e.logs.String(), "redirects are not followed")
	assert.Nil(t, in.Client.CheckRedirect, "the deployment's client is not changed")
}

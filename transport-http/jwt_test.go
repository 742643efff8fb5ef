package httpapi

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	scopeCatalog = "sutura:catalog.read"
	scopeAsk     = "sutura:metrics.ask"
)

func TestValidTokensOfEveryAlgorithm(t *testing.T) {
	idp := newIdentityProvider(t)
	e := idp.env(t, envConfig{})
	for _, tc := range []struct{ alg, kid string }{{RS256, "rsa-1"}, {ES256, "ec-1"}, {EdDSA, "ed-1"}} {
		t.Run(tc.alg, func(t *testing.T) {
			token := mint(t, tc.alg, tc.kid, idp.claims("alice@example.com", scopeCatalog, scopeAsk))
			r := e.do(t, request{path: "/v1/catalog", header: auth(token)})
			require.Equal(t, http.StatusOK, r.status, string(r.body))
			r = e.ask(t, qAnswer, auth(token))
			require.Equal(t, http.StatusOK, r.status, string(r.body))
		})
	}
	recs := e.audit.Records()
	require.Len(t, recs, 3)
	assert.Equal(t, []string{"alice@example.com"}, recs[0].Principal)
	assert.Equal(t, int64(1), idp.hits.Load(), "the key set is read once and cached")
}

// TestRefusedTokens: every malformed, expired, misdirected or forged token
// is 401 unauthorized with a bearer challenge naming the resource metadata.
func TestRefusedTokens(t *testing.T) {
	idp := newIdentityProvider(t)
	e := idp.env(t, envConfig{})
	good := idp.claims("alice", scopeCatalog)
	now := time.Now().Unix()
	valid := mint(t, RS256, "rsa-1", good)
	parts := strings.Split(valid, ".")
	tampered, err := json.Marshal(withClaim(good, "sub", "mallory"))
	require.NoError(t, err)
	hsInput := b64u([]byte(`{"alg":"HS256","kid":"rsa-1"}`)) + "." + parts[1]
	mac := hmac.New(sha256.New, []byte(jwkOf(t, "rsa-1")["n"].(string)))
	mac.Write([]byte(hsInput))

	for name, token := range map[string]string{
		"expired":              mint(t, RS256, "rsa-1", withClaim(withClaim(good, "exp", now-120), "iat", now-600)),
		"no expiry":            mint(t, RS256, "rsa-1", withClaim(good, "exp", nil)),
		"not yet valid":        mint(t, RS256, "rsa-1", withClaim(good, "nbf", now+600)),
		"issued in the future": mint(t, RS256, "rsa-1", withClaim(good, "iat", now+600)),
		"iat not a date":       mint(t, RS256, "rsa-1", withClaim(good, "iat", "yesterday")),
		"wrong issuer":         mint(t, RS256, "rsa-1", withClaim(good, "iss", "https://evil.example/")),
		"wrong audience":       mint(t, RS256, "rsa-1", withClaim(good, "aud", "someone-else")),
		"audience list":        mint(t, RS256, "rsa-1", withClaim(good, "aud", []string{"a", "b"})),
		"no subject":           mint(t, RS256, "rsa-1", withClaim(good, "sub", nil)),
		"control in sub":       mint(t, RS256, "rsa-1", withClaim(good, "sub", "al\nice")),
		"alg none":             b64u([]byte(`{"alg":"none","kid":"rsa-1"}`)) + "." + parts[1] + ".",
		"alg HS256 with the public key as secret": hsInput + "." + b64u(mac.Sum(nil)),
		"alg mismatch":    mintHeader(t, map[string]any{"alg": ES256, "kid": "rsa-1"}, good, "rsa-1"),
		"kid of another":  mintHeader(t, map[string]any{"alg": RS256, "kid": "rsa-1"}, good, "rsa-2"),
		"tampered":        parts[0] + "." + b64u(tampered) + "." + parts[2],
		"crit header":     mintHeader(t, map[string]any{"alg": RS256, "kid": "rsa-1", "crit": []string{"exp"}}, good, "rsa-1"),
		"id token typ":    mintHeader(t, map[string]any{"alg": RS256, "kid": "rsa-1", "typ": "dpop+jwt"}, good, "rsa-1"),
		"two parts":       parts[0] + "." + parts[1],
		"not base64":      "!!!." + parts[1] + "." + parts[2],
		"garbage":         canary,
		"scope a number":  mint(t, RS256, "rsa-1", withClaim(good, "scope", 7)),
		"act without sub": mint(t, RS256, "rsa-1", withClaim(good, "act", map[string]any{"client": "x"})),
	} {
		t.Run(name, func(t *testing.T) {
			r := e.do(t, request{path: "/v1/catalog", header: auth(token)})
			requireFailure(t, r, Unauthorized)
			challenge := r.header.Get("WWW-Authenticate")
			assert.Contains(t, challenge, `error="invalid_token"`)
			assert.Contains(t, challenge, `resource_metadata="`+e.srv.URL+ResourceMetadataPath+`"`)
			assert.NotContains(t, string(r.body), "mallory")
		})
	}
	t.Run("an audience list that holds this server", func(t *testing.T) {
		token := mint(t, RS256, "rsa-1", withClaim(good, "aud", []string{"other", testAudience}))
		assert.Equal(t, http.StatusOK, e.do(t, request{path: "/v1/catalog", header: auth(token)}).status)
	})
	t.Run("within the leeway", func(t *testing.T) {
		token := mint(t, RS256, "rsa-1", withClaim(good, "exp", now-10))
		assert.Equal(t, http.StatusOK, e.do(t, request{path: "/v1/catalog", header: auth(token)}).status)
	})
	t.Run("a pinned-out algorithm", func(t *testing.T) {
		idp2 := newIdentityProvider(t)
		in := idp2.inbound()
		in.Algorithms = []string{RS256, ES256}
		e2 := newEnv(t, newFake(), envConfig{cfg: Config{Inbound: in}})
		token := mint(t, EdDSA, "ed-1", idp2.claims("alice", scopeCatalog))
		requireFailure(t, e2.do(t, request{path: "/v1/catalog", header: auth(token)}), Unauthorized)
	})
	assert.NotContains(t, e.logs.String(), parts[2], "no token in the log")
}

func TestMissingTokenPointsAtTheResourceMetadata(t *testing.T) {
	idp := newIdentityProvider(t)
	e := idp.env(t, envConfig{cfg: Config{MCP: callerEcho()}})
	r := e.do(t, request{path: "/v1/catalog"})
	requireFailure(t, r, Unauthorized)
	assert.Equal(t, `Bearer realm="sutura", resource_metadata="`+e.srv.URL+ResourceMetadataPath+`"`, r.header.Get("WWW-Authenticate"))

	meta := e.do(t, request{path: ResourceMetadataPath})
	require.Equal(t, http.StatusOK, meta.status)
	var m resourceMetadataWire
	require.NoError(t, json.Unmarshal(meta.body, &m))
	assert.Equal(t, resourceMetadataWire{Resource: e.srv.URL, AuthorizationServers: []string{testIssuer},
		ScopesSupported: []string{scopeCatalog, scopeAsk}, BearerMethodsSupported: []string{"header"},
		ResourceName: "sutura", ResourceDocumentation: e.srv.URL + "/docs"}, m)
	mcp := e.do(t, request{path: ResourceMetadataPath + "/mcp"}).json(t)
	assert.Equal(t, e.srv.URL+"/mcp", mcp["resource"])

	single := newEnv(t, newFake(), envConfig{})
	requireFailure(t, single.do(t, request{path: ResourceMetadataPath}), NotFound)
}

func TestUnknownKidRefetchesAtMostOncePerInterval(t *testing.T) {
	idp := newIdentityProvider(t)
	idp.publish("rsa-1")
	e := idp.env(t, envConfig{})
	clock := e.withClock(t)
	claims := idp.claims("alice", scopeCatalog)
	catalog := func(kid string) reply {
		return e.do(t, request{path: "/v1/catalog", header: auth(mint(t, RS256, kid, claims))})
	}
	require.Equal(t, http.StatusOK, catalog("rsa-1").status)
	require.Equal(t, int64(1), idp.hits.Load())

	clock.advance(time.Minute)
	requireFailure(t, catalog("rsa-2"), Unauthorized)
	assert.Equal(t, int64(2), idp.hits.Load(), "an unknown kid refetches once")
	for range 5 {
		requireFailure(t, catalog("rsa-2"), Unauthorized)
	}
	assert.Equal(t, int64(2), idp.hits.Load(), "and no more within the interval")

	idp.publish("rsa-1", "rsa-2") // the provider rotates
	requireFailure(t, catalog("rsa-2"), Unauthorized)
	clock.advance(RefetchInterval)
	assert.Equal(t, http.StatusOK, catalog("rsa-2").status, "after the interval the new key is read")
	assert.Equal(t, int64(3), idp.hits.Load())

	// A refetch that fails keeps the known keys, and says so in the log.
	idp.failing.Store(true)
	clock.advance(RefetchInterval)
	requireFailure(t, catalog("ec-1"), Unauthorized)
	assert.Equal(t, int64(4), idp.hits.Load())
	assert.Equal(t, http.StatusOK, catalog("rsa-1").status, "the known keys still serve")
	assert.Contains(t, e.logs.String(), "the key set could not be read; serving with the keys already known")

	// An hour after the last read (jwks_max_stale_seconds' default), with
	// every read failing, the keys are no longer trusted (jwks_test.go).
	clock.advance(KeysMaxAge)
	requireFailure(t, catalog("rsa-1"), IdentityUnavailable)
	assert.Equal(t, int64(5), idp.hits.Load())
}

func TestKeySetFromAFile(t *testing.T) {
	idp := newIdentityProvider(t)
	path := filepath.Join(t.TempDir(), "jwks.json")
	require.NoError(t, os.WriteFile(path, idp.jwks(t), 0o600))
	in := idp.inbound()
	in.JWKSURL, in.JWKSFile = "", path
	e := newEnv(t, newFake(), envConfig{cfg: Config{Inbound: in}})
	token := mint(t, ES256, "ec-1", idp.claims("alice", scopeCatalog))
	assert.Equal(t, http.StatusOK, e.do(t, request{path: "/v1/catalog", header: auth(token)}).status)
	assert.Zero(t, idp.hits.Load())

	require.NoError(t, os.WriteFile(path, []byte(`{"keys":[{"kty":"oct","k":"eA"}]}`), 0o600))
	_, err := New(Config{Surface: e.server.cfg.Surface, Inbound: in})
	assert.ErrorContains(t, err, "no usable signature key")
}

// TestScopesSelectCapabilities: each scope grants its route; a missing one
// is 403 insufficient_scope naming it.
func TestScopesSelectCapabilities(t *testing.T) {
	idp := newIdentityProvider(t)
	e := idp.env(t, envConfig{cfg: Config{MCP: callerEcho()}})
	catalogOnly := idp.bearer(t, idp.claims("alice", scopeCatalog))
	askOnly := idp.bearer(t, idp.claims("bob", scopeAsk))
	none := idp.bearer(t, idp.claims("carol"))

	assert.Equal(t, http.StatusOK, e.do(t, request{path: "/v1/catalog", header: catalogOnly}).status)
	m := requireFailure(t, e.ask(t, qAnswer, catalogOnly), InsufficientScope)
	assert.Contains(t, m["detail"], scopeAsk)
	assert.Equal(t, http.StatusOK, e.ask(t, qAnswer, askOnly).status)
	m = requireFailure(t, e.do(t, request{path: "/v1/catalog", header: askOnly}), InsufficientScope)
	assert.Contains(t, m["detail"], scopeCatalog)

	// /mcp needs the scope of at least one tool; the MCP handler checks
	// each tool itself.
	assert.Equal(t, http.StatusOK, e.do(t, request{path: "/mcp", body: "{}", header: askOnly}).status)
	r := e.do(t, request{path: "/mcp", body: "{}", header: none})
	requireFailure(t, r, InsufficientScope)
	assert.Contains(t, r.header.Get("WWW-Authenticate"), `scope="sutura:catalog.read sutura:metrics.ask"`)
}

// TestGroupsMapToAudiences: a restricted metric is visible to a group
// mapped to its audience, and to anyone else exactly as missing.
func TestGroupsMapToAudiences(t *testing.T) {
	idp := newIdentityProvider(t)
	e := idp.env(t, envConfig{})
	finance := idp.bearer(t, withClaim(idp.claims("fiona", scopeCatalog, scopeAsk), "groups", []string{"finance"}))
	staff := idp.bearer(t, withClaim(idp.claims("sam", scopeCatalog, scopeAsk), "groups", []string{"staff"}))

	assert.Equal(t, http.StatusOK, e.ask(t, qSecret, finance).status)
	hidden := e.ask(t, qSecret, staff)
	requireRefusal(t, hidden, "metric_unknown")

	names := func(h map[string]string) []string {
		var out []string
		for _, m := range e.do(t, request{path: "/v1/catalog", header: h}).json(t)["metrics"].([]any) {
			out = append(out, m.(map[string]any)["name"].(string))
		}
		return out
	}
	assert.Equal(t, []string{"revenue", "secret_revenue"}, names(finance))
	assert.Equal(t, []string{"revenue"}, names(staff))

	// The same question where the metric does not exist at all.
	idp2 := newIdentityProvider(t)
	absent := idp2.env(t, envConfig{withoutSecret: true})
	missing := absent.ask(t, qSecret, idp2.bearer(t, withClaim(idp2.claims("sam", scopeAsk), "groups", []string{"staff"})))
	assert.Equal(t, missing.status, hidden.status)
	assert.Equal(t, string(missing.body), string(hidden.body), "a metric not visible is indistinguishable from a missing one")
}

// TestActorChain: RFC 8693 act claims nest the actors, nearest first, into
// the principal chain of the audit record.
func TestActorChain(t *testing.T) {
	idp := newIdentityProvider(t)
	e := idp.env(t, envConfig{})
	claims := withClaim(idp.claims("alice@example.com", scopeAsk), "act",
		map[string]any{"sub": "agent-7", "act": map[string]any{"sub": "gateway"}})
	require.Equal(t, http.StatusOK, e.ask(t, qAnswer, idp.bearer(t, claims)).status)
	recs := e.audit.Records()
	require.Len(t, recs, 1)
	assert.Equal(t, []string{"alice@example.com", "agent-7", "gateway"}, recs[0].Principal)

	deep := map[string]any{"sub": "a0"}
	for i := 1; i <= maxActorDepth; i++ {
		deep = map[string]any{"sub": "a" + string(rune('0'+i)), "act": deep}
	}
	requireFailure(t, e.ask(t, qAnswer, idp.bearer(t, withClaim(claims, "act", deep))), Unauthorized)
}

// TestAccessTokenWithInboundIdentity: both are needed; the deployment token
// travels in its own header.
func TestAccessTokenWithInboundIdentity(t *testing.T) {
	idp := newIdentityProvider(t)
	e := idp.env(t, envConfig{cfg: Config{AccessToken: []byte("deploy-secret")}})
	h := idp.bearer(t, idp.claims("alice", scopeCatalog))
	m := requireFailure(t, e.do(t, request{path: "/v1/catalog", header: h}), Unauthorized)
	assert.Contains(t, m["detail"], AccessTokenHeader)
	h[AccessTokenHeader] = "wrong"
	requireFailure(t, e.do(t, request{path: "/v1/catalog", header: h}), Unauthorized)
	h[AccessTokenHeader] = "deploy-secret"
	assert.Equal(t, http.StatusOK, e.do(t, request{path: "/v1/catalog", header: h}).status)
	requireFailure(t, e.do(t, request{path: "/v1/catalog", header: map[string]string{AccessTokenHeader: "deploy-secret"}}), Unauthorized)
}

package httpapi

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The test identity provider mints its own keys and tokens and serves its
// JWK set over a real socket, counting reads.

const (
	testIssuer   = "https://id.example.test/"
	testAudience = "sutura"
)

// testKeys are generated once: RSA generation is slow.
var testKeys = sync.OnceValue(func() (k struct {
	rsa, rsa2 *rsa.PrivateKey
	ec        *ecdsa.PrivateKey
	ed        ed25519.PrivateKey
}) {
	var err error
	if k.rsa, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		panic(err)
	}
	if k.rsa2, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		panic(err)
	}
	if k.ec, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		panic(err)
	}
	if _, k.ed, err = ed25519.GenerateKey(rand.Reader); err != nil {
		panic(err)
	}
	return k
})

type identityProvider struct {
	srv     *httptest.Server
	hits    atomic.Int64
	failing atomic.Bool
	mu      sync.Mutex
	kids    []string // the published kids
}

func newIdentityProvider(t *testing.T) *identityProvider {
	t.Helper()
	p := &identityProvider{kids: []string{"rsa-1", "ec-1", "ed-1"}}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		p.hits.Add(1)
		if p.failing.Load() {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/jwk-set+json")
		_, _ = w.Write(p.jwks(t))
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// publish replaces the published kids.
func (p *identityProvider) publish(kids ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.kids = kids
}

func b64u(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// jwk is the public JWK of a test key by kid.
func jwkOf(t testing.TB, kid string) map[string]any {
	k := testKeys()
	switch kid {
	case "rsa-1", "rsa-2":
		key := k.rsa
		if kid == "rsa-2" {
			key = k.rsa2
		}
		return map[string]any{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
			"n": b64u(key.N.Bytes()), "e": b64u(big.NewInt(int64(key.E)).Bytes())}
	case "ec-1":
		b, err := k.ec.PublicKey.Bytes()
		require.NoError(t, err)
		return map[string]any{"kty": "EC", "kid": kid, "crv": "P-256", "x": b64u(b[1:33]), "y": b64u(b[33:])}
	case "ed-1":
		return map[string]any{"kty": "OKP", "kid": kid, "crv": "Ed25519", "x": b64u(k.ed.Public().(ed25519.PublicKey))}
	}
	t.Fatalf("no test key %s", kid)
	return nil
}

func (p *identityProvider) jwks(t *testing.T) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	keys := []map[string]any{{"kty": "oct", "kid": "symmetric", "k": "c2VjcmV0"}} // skipped
	for _, kid := range p.kids {
		keys = append(keys, jwkOf(t, kid))
	}
	b, err := json.Marshal(map[string]any{"keys": keys})
	require.NoError(t, err)
	return b
}

// inbound is the inbound configuration trusting this provider.
func (p *identityProvider) inbound() *InboundConfig {
	return &InboundConfig{Issuer: testIssuer, Audience: testAudience, JWKSURL: p.srv.URL,
		Algorithms: []string{RS256, ES256, EdDSA}, AudienceMapping: map[string][]string{"finance": {"finance"}, "staff": {"everyone"}}}
}

func (p *identityProvider) env(t *testing.T, ec envConfig) *env {
	t.Helper()
	ec.cfg.Inbound = p.inbound()
	return newEnv(t, newFake(), ec)
}

// claims are valid claims for sub with scopes.
func (p *identityProvider) claims(sub string, scopes ...string) map[string]any {
	now := time.Now().Unix()
	return map[string]any{"iss": testIssuer, "aud": testAudience, "sub": sub, "iat": now, "exp": now + 300,
		"scope": strings.Join(scopes, " ")}
}

// bearer is the Authorization header of an RS256 token with claims.
func (p *identityProvider) bearer(t *testing.T, claims map[string]any) map[string]string {
	return map[string]string{"Authorization": "Bearer " + mint(t, RS256, "rsa-1", claims)}
}

// mint signs claims with the test key kid under alg.
func mint(t testing.TB, alg, kid string, claims map[string]any) string {
	return mintHeader(t, map[string]any{"alg": alg, "kid": kid, "typ": "JWT"}, claims, kid)
}

// mintHeader signs claims under header with the key kid, by the key's own
// algorithm whatever the header says.
func mintHeader(t testing.TB, header, claims map[string]any, kid string) string {
	t.Helper()
	h, err := json.Marshal(header)
	require.NoError(t, err)
	c, err := json.Marshal(claims)
	require.NoError(t, err)
	input := b64u(h) + "." + b64u(c)
	return input + "." + b64u(sign(t, kid, []byte(input)))
}

func sign(t testing.TB, kid string, input []byte) []byte {
	t.Helper()
	k := testKeys()
	digest := sha256.Sum256(input)
	switch {
	case strings.HasPrefix(kid, "rsa"):
		key := k.rsa
		if kid == "rsa-2" {
			key = k.rsa2
		}
		sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest[:])
		require.NoError(t, err)
		return sig
	case strings.HasPrefix(kid, "ec"):
		r, s, err := ecdsa.Sign(rand.Reader, k.ec, digest[:])
		require.NoError(t, err)
		sig := make([]byte, 64)
		r.FillBytes(sig[:32])
		s.FillBytes(sig[32:])
		return sig
	case strings.HasPrefix(kid, "ed"):
		return ed25519.Sign(k.ed, input)
	}
	t.Fatalf("no test key %s", kid)
	return nil
}

// testClock is a clock tests move.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// withClock makes the server's key set read the test clock.
func (e *env) withClock(t *testing.T) *testClock {
	t.Helper()
	c := &testClock{t: time.Now()}
	require.NotNil(t, e.server.verifier)
	e.server.verifier.keys.now = c.now
	return c
}

func auth(token string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + token}
}

func withClaim(claims map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(claims)+1)
	for kk, vv := range claims {
		out[kk] = vv
	}
	if v == nil {
		delete(out, k)
	} else {
		out[k] = v
	}
	return out
}

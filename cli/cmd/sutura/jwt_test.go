package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// idp mints tokens for a made-up identity provider whose key set the test
// writes to a JWKS file.
type idp struct {
	priv ed25519.PrivateKey
}

func newIDP(t *testing.T, dir string) *idp {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	jwks, err := json.Marshal(map[string]any{"keys": []any{map[string]any{
		"kty": "OKP", "crv": "Ed25519", "kid": "k1", "alg": "EdDSA", "use": "sig",
		"x": base64.RawURLEncoding.EncodeToString(pub),
	}}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "jwks.json"), jwks, 0o600))
	return &idp{priv: priv}
}

func (p *idp) token(t *testing.T, sub, scope string, groups ...string) string {
	enc := func(v any) string {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	now := time.Now().Unix()
	signing := enc(map[string]any{"alg": "EdDSA", "kid": "k1", "typ": "JWT"}) + "." + enc(map[string]any{
		"iss": "https://idp.test", "aud": "sutura", "sub": sub, "iat": now, "nbf": now, "exp": now + 600,
		"scope": scope, "groups": groups,
	})
	return signing + "." + base64.RawURLEncoding.EncodeToString(ed25519.Sign(p.priv, []byte(signing)))
}

// jwtConfig writes a multi-user configuration with inbound JWT identity
// (issuer https://idp.test, audience sutura, the group finance-team seeing
// the audience finance) and returns its directory and the provider.
func jwtConfig(t *testing.T) (string, *idp) {
	dir := t.TempDir()
	p := newIDP(t, dir)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "base.yaml"), []byte(`security:
  identity: multi-user
  inbound: {mode: direct, issuer: "https://idp.test", audience: sutura, jwks_file: jwks.json, algorithms: [EdDSA]}
  audience_mapping: {finance-team: [finance]}
`), 0o600))
	return dir, p
}

// bearer adds a token to every request of an MCP client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestServeWithJWTIdentity serves with inbound JWT identity: callers with
// different scopes see different tools on /mcp, groups map to metric
// audiences, and a caller without a scope is refused naming it.
func TestServeWithJWTIdentity(t *testing.T) {
	dir, p := jwtConfig(t)
	s := serve(t, "SUTURA_CONFIG_DIR="+dir)
	cfo := p.token(t, "cfo@example.com", "sutura:catalog.read sutura:metrics.ask", "finance-team")
	reader := p.token(t, "reader@example.com", "sutura:catalog.read")

	code, hdr, _ := s.do(t, "GET", "/v1/catalog", "")
	assert.Equal(t, 401, code)
	assert.Contains(t, hdr.Get("WWW-Authenticate"), "resource_metadata")
	code, _, body := s.do(t, "GET", "/.well-known/oauth-protected-resource", "")
	assert.Equal(t, 200, code)
	assert.Contains(t, body, "https://idp.test")

	code, _, body = s.do(t, "POST", "/v1/query", year2025, "Authorization", "Bearer "+reader)
	assert.Equal(t, 403, code)
	assert.Contains(t, body, `"code":"insufficient_scope"`)
	assert.Contains(t, body, "sutura:metrics.ask")
	code, _, body = s.do(t, "POST", "/v1/query", year2025, "Authorization", "Bearer "+cfo)
	assert.Equal(t, 200, code, body)

	restricted := `{"metrics":["collected_payments"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`
	code, _, body = s.do(t, "POST", "/v1/query", restricted, "Authorization", "Bearer "+cfo)
	assert.Equal(t, 200, code, body)
	anon := p.token(t, "analyst@example.com", "sutura:catalog.read sutura:metrics.ask")
	code, _, hidden := s.do(t, "POST", "/v1/query", restricted, "Authorization", "Bearer "+anon)
	assert.Equal(t, 404, code)
	_, _, missing := s.do(t, "POST", "/v1/query", strings.Replace(restricted, "collected_payments", "collected_paymentz", 1), "Authorization", "Bearer "+anon)
	assert.Equal(t, strings.Replace(missing, "collected_paymentz", "collected_payments", 1), hidden, "a metric outside the caller's audiences is indistinguishable from a missing one")

	tools := func(token string) ([]string, []string) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		sess, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: s.base + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
		require.NoError(t, err)
		defer sess.Close()
		list, err := sess.ListTools(ctx, nil)
		require.NoError(t, err)
		var names []string
		for _, tl := range list.Tools {
			names = append(names, tl.Name)
		}
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "describe_catalog", Arguments: map[string]any{}})
		require.NoError(t, err)
		var view struct {
			Metrics []struct{ Name string } `json:"metrics"`
		}
		b, _ := json.Marshal(res.StructuredContent)
		require.NoError(t, json.Unmarshal(b, &view))
		var metrics []string
		for _, m := range view.Metrics {
			metrics = append(metrics, m.Name)
		}
		return names, metrics
	}
	cfoTools, cfoMetrics := tools(cfo)
	readerTools, readerMetrics := tools(reader)
	assert.ElementsMatch(t, []string{"describe_catalog", "ask_metric"}, cfoTools)
	assert.Equal(t, []string{"describe_catalog"}, readerTools, "a tool the caller's scopes do not grant is not listed")
	assert.Contains(t, cfoMetrics, "collected_payments")
	assert.NotContains(t, readerMetrics, "collected_payments")
	assert.NotContains(t, s.stderr.String(), cfo, "tokens are never logged")
}

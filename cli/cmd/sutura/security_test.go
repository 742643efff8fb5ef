package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServeMCPHostsAndFraming: on a loopback bind, server.allowed_hosts
// takes effect on /mcp as on /v1 (the Host allowlist is the one decision),
// a foreign Host is refused without being quoted, a batch is one JSON-RPC
// error, and a POST that is not JSON is 415 before its body is read.
func TestServeMCPHostsAndFraming(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "base.yaml"), []byte("server:\n  allowed_hosts: [metrics.example.com]\n"), 0o600))
	s := serve(t, "SUTURA_CONFIG_DIR="+dir)
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	accept := []string{"Accept", "application/json, text/event-stream"}

	code, _, body := s.do(t, "POST", "/mcp", ping, append(accept, "Host", "metrics.example.com")...)
	assert.Equal(t, 200, code, body)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{}}`, body)
	code, _, body = s.do(t, "GET", "/v1/catalog", "", "Host", "metrics.example.com:443")
	assert.Equal(t, 200, code, body)

	for _, path := range []string{"/mcp", "/v1/query"} {
		code, _, body = s.do(t, "POST", path, ping, append(accept, "Host", "zz-evil.example")...)
		assert.Equal(t, 403, code, body)
		assert.Contains(t, body, `"code":"host_not_allowed"`)
		assert.NotContains(t, body, "zz-evil")
	}

	code, _, body = s.do(t, "POST", "/mcp", `[`+ping+`,{"jsonrpc":"2.0","id":2,"method":"zz-canary"}]`, accept...)
	assert.Equal(t, 400, code, body)
	assert.Contains(t, body, `"code":-32600`)
	assert.NotContains(t, body, "zz-canary")

	code, _, body = s.do(t, "POST", "/mcp", ping, append(accept, "Content-Type", "text/plain")...)
	assert.Equal(t, 415, code, body)
	assert.Contains(t, body, `"code":"unsupported_media_type"`)
}

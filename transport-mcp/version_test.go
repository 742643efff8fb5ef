package mcpserver

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUnsupportedVersionCarriesTheSupportedOnes: a request of revision
// 2026-07-28 for a version this server does not speak gets error -32022
// with data.supported (revision 2026-07-28), and never a caller's text.
func TestUnsupportedVersionCarriesTheSupportedOnes(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	srv := httptest.NewServer(e.server.Handler())
	t.Cleanup(srv.Close)
	post := func(version string) map[string]any {
		body := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":` +
			strconvQuote(version) + `,"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"}}}}`
		req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", version)
		req.Header.Set("Mcp-Method", "server/discover")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m), string(b))
		return m["error"].(map[string]any)
	}
	got := post("2099-01-01")
	assert.EqualValues(t, mcp.CodeUnsupportedProtocolVersion, got["code"])
	data := got["data"].(map[string]any)
	assert.Contains(t, data["supported"], "2026-07-28")
	assert.Contains(t, data["supported"], "2025-11-25")
	assert.Equal(t, "2099-01-01", data["requested"], "a version-shaped request is named")
	assert.Equal(t, "v999.0.0", post("v999.0.0")["data"].(map[string]any)["requested"])
	for _, v := range []string{canary + "<b>x</b>", canary + " and more", canary + strings.Repeat("9", 40)} {
		got = post(v)
		b, _ := json.Marshal(got)
		assert.NotContains(t, string(b), canary, "text that is not a version token is never echoed")
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

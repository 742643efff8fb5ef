package httpapi

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app/apptest"
)

// postAs posts body to path with exactly the Content-Type values given
// (none when contentTypes is empty).
func (e *env) postAs(t *testing.T, path, body string, contentTypes ...string) reply {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	for _, ct := range contentTypes {
		req.Header.Add("Content-Type", ct)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

// TestSimpleRequestsAreUnsupportedMediaType: a browser posts cross-site
// without a preflight only with no Content-Type, text/plain, a URL-encoded
// form or multipart/form-data. Every POST route refuses each of them with
// 415 unsupported_media_type, and nothing reaches the surface.
func TestSimpleRequestsAreUnsupportedMediaType(t *testing.T) {
	sql := &apptest.SQL{}
	e := newEnv(t, newFake(), sqlEnabled(envConfig{sql: sql, cfg: Config{MCP: callerEcho()}}))
	bodies := map[string]string{
		"/v1/query":   qAnswer,
		"/v1/sql/run": sqlBody(sqlStatement),
		"/mcp":        `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
	}
	for path, body := range bodies {
		for _, ct := range [][]string{
			nil,
			{"text/plain"},
			{"text/plain; charset=utf-8"},
			{"application/x-www-form-urlencoded"},
			{"multipart/form-data; boundary=x"},
			{"application/json-patch+json"},
			{"application/jsonx"},
			{"application/json", "text/plain"}, // two values: which would a reader take?
			{"application/json; charset"},      // not a media type
		} {
			r := e.postAs(t, path, body, ct...)
			m := requireFailure(t, r, UnsupportedMediaType)
			assert.Contains(t, m["detail"], "application/json", "%s %q", path, ct)
		}
		for _, ct := range []string{"application/json", "Application/JSON; charset=utf-8"} {
			r := e.postAs(t, path, body, ct)
			assert.Equal(t, http.StatusOK, r.status, "%s %q: %s", path, ct, r.body)
		}
	}
	// Only the two JSON posts of each audited route reached the surface
	// (a run_sql statement also has its record before it runs).
	outcomes := 0
	for _, r := range e.audit.Records() {
		if r.Outcome != "started" {
			outcomes++
		}
	}
	assert.Equal(t, 4, outcomes)
	assert.Len(t, sql.Statements(), 2)
}

// TestUnsupportedMediaTypeBeforeTheBody: the refusal does not wait for a
// body: a form post whose body never comes is answered at once.
func TestUnsupportedMediaTypeBeforeTheBody(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{requestTimeout: 30 * time.Second})
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.srv.URL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /v1/query HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n{")
	require.NoError(t, err)
	// Far less than the request timeout: a server that read the body first
	// would still be waiting for the other 999 bytes.
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	requireFailure(t, reply{status: resp.StatusCode, header: resp.Header, body: b}, UnsupportedMediaType)
	assert.True(t, resp.Close, "the unread body is never parsed as a request: the connection closes")
	assert.Empty(t, e.audit.Records())
}

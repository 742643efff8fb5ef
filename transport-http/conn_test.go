package httpapi

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serveReal serves e's handler with the http.Server HTTPServer builds, on
// a loopback socket of its own, and returns its address.
func serveReal(t *testing.T, e *env) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := e.server.HTTPServer(ln.Addr().String())
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return ln.Addr().String()
}

// trickle writes head at once and then tail one byte a second, while
// reading whatever the server answers. It returns how many bytes of tail
// were sent before the server closed the connection (or len(tail) when it
// never did) and what the server wrote.
func trickle(t *testing.T, addr, head, tail string) (sent int, answer string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	closed := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(conn) // until the server closes
		closed <- string(b)
	}()
	_, err = io.WriteString(conn, head)
	require.NoError(t, err)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for sent < len(tail) {
		select {
		case answer = <-closed:
			return sent, answer
		case <-tick.C:
		}
		if _, err := conn.Write([]byte{tail[sent]}); err != nil {
			return sent, <-closed
		}
		sent++
	}
	// The client is done: close our side so the reader ends either way.
	_ = conn.(*net.TCPConn).CloseWrite()
	select {
	case answer = <-closed:
	case <-time.After(5 * time.Second):
	}
	return len(tail), answer
}

// TestSlowClientsAreCutOff: over a real socket, a client that sends one
// byte a second is cut off within the request timeout (2 s here), whether
// it trickles its headers, or the body of a request that is refused
// without reading it (the server would otherwise read that body before
// writing the refusal, for as long as it keeps coming). Each client would
// need 8 s to finish.
func TestSlowClientsAreCutOff(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{requestTimeout: 2 * time.Second, cfg: Config{AccessToken: []byte("s3cret")}})
	addr := serveReal(t, e)
	pad := strings.Repeat("a", 8)

	t.Run("headers", func(t *testing.T) {
		t.Parallel()
		sent, answer := trickle(t, addr, "GET /health HTTP/1.1\r\nHost: localhost\r\nX-Pad: ", pad)
		assert.Less(t, sent, len(pad), "the connection outlived the header bound")
		assert.Empty(t, answer, "an unfinished request gets no answer")
	})
	t.Run("body of a refused request", func(t *testing.T) {
		t.Parallel()
		sent, answer := trickle(t, addr, "POST /v1/query HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n", pad)
		assert.Less(t, sent, len(pad), "the connection outlived the request bound")
		resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(answer)), nil)
		require.NoError(t, err, "the refusal is written once the body read is given up: %q", answer)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		assert.True(t, resp.Close)
	})
	t.Run("body of a health probe", func(t *testing.T) {
		t.Parallel()
		sent, _ := trickle(t, addr, "GET /health HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n", pad)
		assert.Less(t, sent, len(pad), "the connection outlived the request bound")
	})
	t.Run("body of a question", func(t *testing.T) {
		t.Parallel()
		sent, answer := trickle(t, addr, "POST /v1/query HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer s3cret\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n", pad)
		assert.Less(t, sent, len(pad), "the connection outlived the request bound")
		assert.Contains(t, answer, `"code":"timeout"`)
	})
	t.Run("idle", func(t *testing.T) {
		t.Parallel()
		conn, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer conn.Close()
		_, err = io.WriteString(conn, "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
		require.NoError(t, err)
		r := bufio.NewReader(conn)
		resp, err := http.ReadResponse(r, nil)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		require.False(t, resp.Close, "a keep-alive connection")
		// Idle: the server closes it after twice the request timeout.
		require.NoError(t, conn.SetReadDeadline(time.Now().Add(12*time.Second)))
		_, err = r.ReadByte()
		var ne net.Error
		require.False(t, errors.As(err, &ne) && ne.Timeout(), "the idle connection was still open after 12 s")
		assert.ErrorIs(t, err, io.EOF)
	})
}

// TestHeadersAreBounded: more than MaxHeaderBytes of headers is 431.
func TestHeadersAreBounded(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	addr := serveReal(t, e)
	req, err := http.NewRequest(http.MethodGet, "http://"+addr+"/health", nil)
	require.NoError(t, err)
	req.Header.Set("X-Pad", strings.Repeat("a", MaxHeaderBytes+8<<10))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusRequestHeaderFieldsTooLarge, resp.StatusCode)

	hs := e.server.HTTPServer("127.0.0.1:0")
	assert.Equal(t, 10*time.Second, hs.ReadHeaderTimeout, "headers: at most 10 s")
	assert.Equal(t, 10*time.Second, hs.ReadTimeout, "the whole request: the request timeout")
	assert.Equal(t, 20*time.Second, hs.IdleTimeout)
}

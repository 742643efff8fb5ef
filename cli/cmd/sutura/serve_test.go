package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// served is a running `sutura serve`.
type served struct {
	base   string
	cmd    *exec.Cmd
	stderr *bytes.Buffer
}

// serve starts the built binary with env and waits for its first line.
func serve(t testing.TB, env ...string) *served {
	t.Helper()
	cmd := exec.Command(binary(t), "serve")
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "SUTURA__SERVER__PORT=0"}, env...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	s := &served{cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = s.stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, s.stderr.String())
	require.True(t, strings.HasPrefix(line, "listening on http://"), line)
	s.base = strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
	return s
}

func (s *served) do(t *testing.T, method, path, body string, header ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.base+path, strings.NewReader(body))
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, string(b)
}

const year2025 = `{"metrics":["net_sales"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`

func TestServeHTTPSurface(t *testing.T) {
	s := serve(t)
	code, _, body := s.do(t, "GET", "/health", "")
	assert.Equal(t, 200, code)
	assert.Equal(t, `{"status":"ok"}`, strings.TrimSpace(body))
	code, _, _ = s.do(t, "GET", "/ready", "")
	assert.Equal(t, 200, code)

	code, _, body = s.do(t, "POST", "/v1/query", year2025)
	require.Equal(t, 200, code, body)
	var ans map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &ans))
	assert.Equal(t, "answer", ans["outcome"])
	assert.Contains(t, body, "24032720")

	code, _, body = s.do(t, "POST", "/v1/query", `{"metrics":["net_sales"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"},"filters":[{"op":"eq","dimension":"area","value":"Atlantis"}]}`)
	assert.Equal(t, 403, code)
	assert.Contains(t, body, `"code":"dimension_value_not_allowed"`)
	assert.Contains(t, body, `"status":403`)
	assert.NotContains(t, body, "Atlantis")

	code, _, body = s.do(t, "POST", "/v1/query", `{"metrics":["net_sales"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"},"sql":"select zz_canary"}`)
	assert.Equal(t, 400, code)
	assert.Contains(t, body, `"code":"not_a_question"`)
	assert.Contains(t, body, "sql")
	assert.NotContains(t, body, "zz_canary")

	code, _, body = s.do(t, "GET", "/v1/catalog", "")
	assert.Equal(t, 200, code)
	assert.Contains(t, body, "net_sales")
	code, _, body = s.do(t, "GET", "/openapi.json", "")
	assert.Equal(t, 200, code)
	assert.Contains(t, body, `"openapi": "3.1`)
	code, _, _ = s.do(t, "POST", "/v1/sql/run", `{"statement":"select 1"}`)
	assert.Equal(t, 403, code)
	code, _, _ = s.do(t, "GET", "/v1/catalog", "", "Host", "evil.example")
	assert.Equal(t, 403, code, "DNS rebinding: a foreign Host is refused")
	assert.NotContains(t, s.stderr.String(), "Atlantis", "nor in a log or audit line")
}

func TestServeTokensAndMetrics(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "access"), []byte("zz-access-token-1\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "metrics"), []byte("zz-metrics-token-2\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "base.yaml"), []byte("security:\n  access_token_file: access\n  metrics_token_file: metrics\n"), 0o600))
	s := serve(t, "SUTURA_CONFIG_DIR="+dir)

	code, hdr, _ := s.do(t, "POST", "/v1/query", year2025)
	assert.Equal(t, 401, code)
	assert.NotEmpty(t, hdr.Get("WWW-Authenticate"))
	code, _, _ = s.do(t, "POST", "/v1/query", year2025, "Authorization", "Bearer wrong")
	assert.Equal(t, 401, code)
	code, _, body := s.do(t, "POST", "/v1/query", year2025, "Authorization", "Bearer zz-access-token-1")
	assert.Equal(t, 200, code, body)

	code, _, _ = s.do(t, "GET", "/metrics", "", "Authorization", "Bearer zz-access-token-1")
	assert.Equal(t, 401, code, "the metrics token is its own")
	code, _, body = s.do(t, "GET", "/metrics", "", "Authorization", "Bearer zz-metrics-token-2")
	require.Equal(t, 200, code)
	assert.Contains(t, body, "sutura_")
	assert.Contains(t, body, `sutura_engine_working_set_bytes{source="demo"}`)
	assert.Contains(t, body, "sutura_admission_waiting")
	assert.NotContains(t, s.stderr.String(), "zz-access-token-1", "secrets are never logged")
}

// TestServeShutsDownGracefully sends SIGTERM: the server stops accepting
// and exits 0 once in-flight work is done.
func TestServeShutsDownGracefully(t *testing.T) {
	s := serve(t, "SUTURA__RUNTIME__SHUTDOWN_GRACE_SECONDS=2")
	code, _, _ := s.do(t, "GET", "/health", "")
	require.Equal(t, 200, code)
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		assert.NoError(t, err, s.stderr.String())
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop after SIGTERM")
	}
	_, err := http.Get(s.base + "/health")
	assert.Error(t, err, "no longer accepting")
}

// execCommand runs name with args and returns what it printed on both
// streams.
func execCommand(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).CombinedOutput()
	return string(out), err
}

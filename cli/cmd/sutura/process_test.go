package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds the sutura binary once per test run.
func binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "sutura-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "sutura")
		cmd := exec.Command("go", "build", "-o", binPath, ".")
		cmd.Stderr = os.Stderr
		buildErr = cmd.Run()
	})
	require.NoError(t, buildErr)
	return binPath
}

func TestToolsPrintsTheCommittedManifest(t *testing.T) {
	code, out, errOut := runCLI(t, nil, "tools")
	require.Equal(t, exitOK, code, errOut)
	want, err := os.ReadFile("../../../app/wire/testdata/manifest.json")
	require.NoError(t, err)
	assert.Equal(t, string(want), out, "sutura tools prints exactly the committed manifest snapshot")
	assert.NotContains(t, errOut, "embedded demo", "tools reads no catalogue")
}

// TestMCPStdioSurvivesJunk drives `sutura mcp` as a process: a 2 MiB line
// of junk gets a parse error, and the process goes on serving.
func TestMCPStdioSurvivesJunk(t *testing.T) {
	cmd := exec.Command(binary(t), "mcp")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	defer cmd.Process.Kill()

	go func() {
		junk := bytes.Repeat([]byte("Zz-junk-"), 2<<20/8)
		_, _ = stdin.Write(append(junk, '\n'))
		for _, msg := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask_metric","arguments":{"metrics":["net_sales"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}}}`,
		} {
			_, _ = io.WriteString(stdin, msg+"\n")
		}
	}()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	byID := map[string]map[string]any{}
	deadline := time.After(30 * time.Second)
	lines := make(chan string)
	go func() {
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	for len(byID) < 4 {
		select {
		case l, ok := <-lines:
			require.True(t, ok, "stdout closed early; stderr: %s", stderr.String())
			assert.NotContains(t, l, "Zz-junk", "the junk is never echoed")
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(l), &m))
			byID[string(mustJSON(t, m["id"]))] = m
		case <-deadline:
			t.Fatalf("timed out; got %v; stderr: %s", byID, stderr.String())
		}
	}
	require.Contains(t, byID, "null")
	assert.EqualValues(t, -32700, byID["null"]["error"].(map[string]any)["code"])
	assert.NotNil(t, byID["1"]["result"])
	tools := byID["2"]["result"].(map[string]any)["tools"].([]any)
	assert.Len(t, tools, 2)
	res := byID["3"]["result"].(map[string]any)
	assert.Nil(t, res["isError"])
	assert.Equal(t, "answer", res["structuredContent"].(map[string]any)["outcome"])
	assert.Contains(t, mustJSON(t, res["content"]), "24032720")
	stdin.Close()
	require.NoError(t, cmd.Wait())
	assert.Contains(t, stderr.String(), "serving MCP on stdio")
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestServeAnswersOverStreamableHTTP starts `sutura serve` on a free port
// and asks through the MCP SDK's own client.
func TestServeAnswersOverStreamableHTTP(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), "serve")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "SUTURA__SERVER__PORT=0"}
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, stderr.String())
	require.True(t, strings.HasPrefix(line, "listening on http://127.0.0.1:"), line)
	base := strings.TrimSpace(strings.TrimPrefix(line, "listening on "))

	resp, err := http.Get(base + "/health")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, `{"status":"ok"}`, string(body))

	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	require.NoError(t, err)
	defer sess.Close()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "ask_metric", Arguments: map[string]any{
		"metrics": []string{"net_sales"}, "grain": "year", "range": map[string]any{"start": "2025-01-01", "end": "2026-01-01"},
	}})
	require.NoError(t, err)
	assert.False(t, res.IsError)
	assert.Contains(t, mustJSON(t, res.StructuredContent), "24032720")
	res, err = sess.CallTool(ctx, &mcp.CallToolParams{Name: "ask_metric", Arguments: map[string]any{
		"metrics": []string{"net_sales"}, "grain": "year", "range": map[string]any{"start": "2025-01-01", "end": "2026-01-01"},
		"filters": []any{map[string]any{"op": "eq", "dimension": "area", "value": "Atlantis"}},
	}})
	require.NoError(t, err)
	assert.Contains(t, mustJSON(t, res.StructuredContent), "dimension_value_not_allowed")
	assert.NotContains(t, mustJSON(t, res)+stderr.String(), "Atlantis")
}

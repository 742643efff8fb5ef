package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stdio runs RunStdio over pipes and returns the writer of its input, a
// reader of its output and the channel RunStdio's result arrives on.
func stdio(t *testing.T, ctx context.Context, e *env, max int) (*io.PipeWriter, *bufio.Reader, <-chan error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- e.server.RunStdio(ctx, inR, outW, max)
		_ = outW.Close()
	}()
	t.Cleanup(func() { _ = inW.Close(); _ = outR.Close() })
	return inW, bufio.NewReader(outR), done
}

type rpcError struct {
	ID    any `json:"id"`
	Error struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func readError(t *testing.T, out *bufio.Reader) rpcError {
	t.Helper()
	line, err := out.ReadBytes('\n')
	require.NoError(t, err)
	var e rpcError
	require.NoError(t, json.Unmarshal(line, &e), string(line))
	return e
}

// TestStdioSurvivesBadLines: a line over the bound (2 MiB against 64 KiB),
// a line that is not JSON, a batch and a malformed envelope each get one
// JSON-RPC error that quotes nothing, and the session goes on serving.
func TestStdioSurvivesBadLines(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	in, out, done := stdio(t, context.Background(), e, 64<<10)
	for _, tc := range []struct {
		name string
		line []byte
		code int
	}{
		{"over-long line", append(bytes.Repeat([]byte(canary), (2<<20)/len(canary)), '\n'), -32700},
		{"not JSON", []byte("{not json " + canary + "\n"), -32700},
		{"batch", []byte(`[{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + canary + `"}}]` + "\n"), -32600},
		{"bad envelope", []byte(`{"jsonrpc":"` + canary + `","id":1,"method":"ping"}` + "\n"), -32700},
	} {
		t.Run(tc.name, func(t *testing.T) {
			go func() { _, _ = in.Write(tc.line) }()
			got := readError(t, out)
			assert.Equal(t, tc.code, got.Error.Code)
			assert.Nil(t, got.ID)
			assert.NotContains(t, got.Error.Message, canary)
		})
	}

	// The SDK's client takes over the same pipes: the server still serves.
	cs, err := newClient().Connect(context.Background(), &mcp.IOTransport{Reader: io.NopCloser(out), Writer: in}, nil)
	require.NoError(t, err)
	tools, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	assert.Len(t, tools.Tools, 2)
	res := call(t, cs, "ask_metric", qAnswer)
	assert.Equal(t, "answer", structured(t, res)["outcome"])
	res = call(t, cs, "ask_metric", json.RawMessage(`{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"},"sql":"`+canary+`"}`))
	assert.True(t, res.IsError)
	assert.Contains(t, text(res), "sql")
	assert.NotContains(t, text(res), canary)

	require.NoError(t, cs.Close(), "closing the client ends the input")
	select {
	case err := <-done:
		assert.NoError(t, err, "the end of the input ends the session cleanly")
	case <-time.After(5 * time.Second):
		t.Fatal("RunStdio did not return at the end of its input")
	}
}

// TestStdioShutdownCancelsTheWork: when RunStdio's context ends, a question
// in flight is cancelled and its slot comes back.
func TestStdioShutdownCancelsTheWork(t *testing.T) {
	sys := newFake()
	sys.Block = true
	e := newEnv(t, sys, envConfig{max: 1})
	ctx, cancel := context.WithCancel(context.Background())
	in, out, done := stdio(t, ctx, e, 0)
	cs, err := newClient().Connect(context.Background(), &mcp.IOTransport{Reader: io.NopCloser(out), Writer: in}, nil)
	require.NoError(t, err)
	defer cs.Close()
	go func() {
		_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask_metric", Arguments: qSlow})
	}()
	select {
	case <-sys.Started():
	case <-time.After(5 * time.Second):
		t.Fatal("the question did not start")
	}
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("RunStdio did not return when its context ended")
	}
	eventually(t, func() bool { return e.adm.InUse() == 0 }, "the slot is back within 1 s")
}

func TestReadLine(t *testing.T) {
	r := bufio.NewReaderSize(bytes.NewReader([]byte("abc\n"+string(bytes.Repeat([]byte("x"), 100))+"\nde\r\nlast")), 16)
	for _, want := range []struct {
		line    string
		tooLong bool
		eof     bool
	}{{"abc", false, false}, {"", true, false}, {"de\r", false, false}, {"last", false, true}} {
		line, tooLong, err := readLine(r, 10)
		assert.Equal(t, want.line, string(line))
		assert.Equal(t, want.tooLong, tooLong)
		assert.Equal(t, want.eof, err == io.EOF)
	}
}

// TestStdioAnswersEveryRequestReadBeforeTheEnd: a client that writes its
// requests and closes its end at once gets an answer to each of them, even
// one still running when the input ended, before RunStdio returns.
func TestStdioAnswersEveryRequestReadBeforeTheEnd(t *testing.T) {
	sys := newFake()
	sys.Block = true
	e := newEnv(t, sys, envConfig{})
	script := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask_metric","arguments":` + string(qSlow) + `}}`,
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
	}, "\n") + "\n"
	var out lockedBuffer
	done := make(chan error, 1)
	go func() { done <- e.server.RunStdio(context.Background(), strings.NewReader(script), &out, 0) }()
	select {
	case <-sys.Started():
	case <-time.After(5 * time.Second):
		t.Fatal("the question did not start")
	}
	select {
	case err := <-done:
		t.Fatalf("RunStdio returned (%v) with a question unanswered", err)
	case <-time.After(100 * time.Millisecond):
	}
	sys.Release()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("RunStdio did not return once every request was answered")
	}
	var ids []float64
	for _, line := range strings.Split(strings.TrimSpace(string(out.Bytes())), "\n") {
		var msg struct {
			ID     float64         `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &msg), line)
		require.NotEmpty(t, msg.Result, line)
		ids = append(ids, msg.ID)
	}
	assert.ElementsMatch(t, []float64{1, 2, 3, 4}, ids)
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/cli/compose"
	"sutura.dev/domain"
)

// TestRefreshRepinsAndEmitsEvent changes the configured catalogue on disk:
// a refresh that validates swaps it in and the in-process connection
// reports the re-pin; one whose anchor fails keeps the old bundle.
func TestRefreshRepinsAndEmitsEvent(t *testing.T) {
	cat := copyTree(t, "testdata/shop")
	env := map[string]string{"SUTURA_CONFIG_DIR": configDir(t, cat, "v1")}
	p, err := compose.Open(context.Background(), env, &bytes.Buffer{}, compose.Options{})
	require.NoError(t, err)
	defer p.Close()
	conn, err := p.InProcess(compose.InProcessOptions{})
	require.NoError(t, err)
	defer conn.Close()
	before := p.Catalog.Bundle().Digest()

	edit := func(from, to string) {
		path := filepath.Join(cat, "metrics/revenue.md")
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(b), from, to, 1)), 0o600))
	}
	edit("Money taken, in cents.", "Money taken, in cents, VAT included.")
	require.NoError(t, p.Refresh(context.Background()))
	after := p.Catalog.Bundle().Digest()
	assert.NotEqual(t, before, after)
	events, err := conn.DrainEvents(context.Background())
	require.NoError(t, err)
	require.Len(t, events, 1)
	js, _ := json.Marshal(events[0])
	assert.Contains(t, string(js), before)
	assert.Contains(t, string(js), after)

	edit(`value: "890"`, `value: "891"`)
	err = p.Refresh(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "anchor of metric revenue")
	assert.Equal(t, after, p.Catalog.Bundle().Digest(), "a failing refresh keeps the bundle in force")
}

// TestInProcessAndMCPGiveTheSameOutcomeAndAudit runs one question through
// the in-process connection and through MCP of one process and compares
// the structured content and the audit records.
func TestInProcessAndMCPGiveTheSameOutcomeAndAudit(t *testing.T) {
	var logs bytes.Buffer
	p, err := compose.Open(context.Background(), nil, &logs, compose.Options{})
	require.NoError(t, err)
	defer p.Close()
	conn, err := p.InProcess(compose.InProcessOptions{})
	require.NoError(t, err)
	defer conn.Close()
	srv, err := newMCPServer(p, domain.LocalOperator, nil)
	require.NoError(t, err)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(context.Background(), st, nil)
	require.NoError(t, err)
	defer ss.Close()
	sess, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	require.NoError(t, err)
	defer sess.Close()

	for _, args := range []string{
		`{"metrics":["net_sales"],"grain":"quarter","dimensions":["area"],"range":{"start":"2025-01-01","end":"2026-01-01"}}`,
		`{"metrics":["net_sales"],"grain":"month","range":{"start":"2025-01-01","end":"2025-02-01"},"filters":[{"op":"eq","dimension":"area","value":"Atlantis"}]}`,
	} {
		logs.Reset()
		direct, err := conn.Invoke(context.Background(), "ask_metric", json.RawMessage(args))
		require.NoError(t, err)
		res, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask_metric", Arguments: json.RawMessage(args)})
		require.NoError(t, err)
		viaMCP, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		assert.JSONEq(t, string(direct), string(viaMCP))

		lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
		require.Len(t, lines, 2, "one audit record per call")
		norm := func(l string) map[string]any {
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(l), &m))
			// bytes_scanned is what each execution read: the first from the
			// files, the next from the columns it cached.
			for _, k := range []string{"time", "correlation_id", "duration_ms", "bytes_scanned"} {
				delete(m, k)
			}
			return m
		}
		assert.Equal(t, norm(lines[0]), norm(lines[1]), "the same audit record, but for time, correlation id, duration and realized bytes")
	}
}

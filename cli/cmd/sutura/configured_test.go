package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// demoConfig writes a configuration directory serving the demo catalogue
// (as version) from the source demo, a YAML flow mapping, with extra YAML
// appended (indented lines declare further sources); files maps further file names in the directory (a password
// file) to their content. It returns the directory.
func demoConfig(t *testing.T, version, source, extra string, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), content, 0o600))
	}
	catalog, err := filepath.Abs("../../../examples/demo/catalog")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "base.yaml"), fmt.Appendf(nil, `catalogs:
  - {name: demo, kind: markdown, dir: %s, version: %s}
security: {identity: single-user}
sources:
  demo: %s
%s`, catalog, version, source, extra), 0o600))
	return dir
}

// servesTheDemo checks, with nothing but the configuration in dir and the
// built binary, that the demo is served from its source demo of kind:
// doctor reaches the source, validate re-runs the demo's 13 anchors on
// it, serve answers over HTTP and `sutura mcp` over stdio to the MCP SDK's
// own client, each question with the embedded demo's answer, and secret
// (a password) is never logged. It returns the running server.
func servesTheDemo(t *testing.T, dir, kind string, secret []byte, questions ...string) *served {
	t.Helper()
	env := map[string]string{"SUTURA_CONFIG_DIR": dir}
	code, out, errOut := runCLI(t, env, "doctor")
	require.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, "ok         source demo ("+kind+") reachable")
	code, out, errOut = runCLI(t, env, "validate")
	require.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, "13 checked, all reproduce")

	s := serve(t, "SUTURA_CONFIG_DIR="+dir)
	for _, q := range append([]string{year2025}, questions...) {
		status, _, body := s.do(t, "POST", "/v1/query", q)
		require.Equal(t, 200, status, body)
		assert.Equal(t, demoRows(t, q), rowsOf(t, body), "the embedded demo's answer to %s", q)
		assert.Contains(t, body, `"executed_as":[{"source":"demo","posture":"shared-service-user"}]`)
	}
	if secret != nil {
		assert.NotContains(t, s.stderr.String(), string(secret), "the password is never logged")
	}

	cmd := exec.Command(binary(t), "mcp")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "SUTURA_CONFIG_DIR=" + dir}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sess, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	defer sess.Close()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "ask_metric", Arguments: json.RawMessage(year2025)})
	require.NoError(t, err)
	require.False(t, res.IsError)
	assert.Contains(t, mustJSON(t, res.StructuredContent), "24032720")
	return s
}

// Questions of the demo that read through none, one and two joins.
const (
	byChannel  = `{"metrics":["net_sales","order_count"],"grain":"quarter","range":{"start":"2025-01-01","end":"2026-01-01"},"dimensions":["channel"],"filters":[{"op":"eq","dimension":"channel","value":"online"}]}`
	byCategory = `{"metrics":["net_sales"],"grain":"month","range":{"start":"2025-01-01","end":"2025-07-01"},"dimensions":["product_category"],"top":{"n":3,"by":"metric","direction":"desc"}}`
	byArea     = `{"metrics":["net_sales"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"},"dimensions":["area"]}`
)

// answerRows is the columns and rows of an answer body, without its
// provenance (whose version label differs from the demo's).
type answerRows struct {
	Outcome string              `json:"outcome"`
	Columns []map[string]string `json:"columns"`
	Rows    [][]*string         `json:"rows"`
}

func rowsOf(t *testing.T, body string) answerRows {
	t.Helper()
	var a answerRows
	require.NoError(t, json.Unmarshal([]byte(body), &a), body)
	return a
}

// demoRows is the embedded demo's answer to question, from `sutura query
// --json` with no configuration.
func demoRows(t *testing.T, question string) answerRows {
	t.Helper()
	path := filepath.Join(t.TempDir(), "q.json")
	require.NoError(t, os.WriteFile(path, []byte(question), 0o600))
	code, out, errOut := runCLI(t, nil, "query", "--json", path)
	require.Equal(t, exitOK, code, errOut)
	a := rowsOf(t, out)
	require.Equal(t, "answer", a.Outcome, out)
	return a
}

package main

import (
	"bufio"
	"bytes"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startServe starts the built binary's serve with args and env, and
// returns its stdout lines as they come, its stderr and the process.
func startServe(t *testing.T, env []string, args ...string) (*bufio.Reader, *bytes.Buffer, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"serve"}, args...)...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return bufio.NewReader(stdout), &stderr, cmd
}

// Item 8: serve says where everything is, takes --host and --port above
// every other layer, redirects / to the browser page, and a busy port
// names the key, the variable and the flag that change it.
func TestServeSaysWhereEverythingIs(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	port := strconv.Itoa(busy.Addr().(*net.TCPAddr).Port)

	// The variable names the busy port; the flag, the highest layer, wins.
	out, stderr, _ := startServe(t, []string{"SUTURA__SERVER__PORT=" + port}, "--port", "0", "--host", "127.0.0.1")
	var lines []string
	for range 5 {
		line, err := out.ReadString('\n')
		require.NoError(t, err, stderr.String())
		lines = append(lines, strings.TrimSuffix(line, "\n"))
	}
	require.Regexp(t, `^listening on http://127\.0\.0\.1:\d+$`, lines[0], "the first line is exactly the address")
	base := strings.TrimPrefix(lines[0], "listening on ")
	assert.NotEqual(t, base, "http://127.0.0.1:"+port)
	assert.Equal(t, []string{
		"catalogue browser on " + base + "/ui/",
		"API reference on " + base + "/docs (OpenAPI 3.1 at " + base + "/openapi.json)",
		"HTTP API on " + base + "/v1 (GET /v1/catalog, POST /v1/query)",
		"MCP on " + base + "/mcp (Streamable HTTP)",
	}, lines[1:])

	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(base + "/")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusFound, resp.StatusCode)
	assert.Equal(t, "/ui/", resp.Header.Get("Location"))
	for _, path := range []string{"/ui/", "/docs", "/v1/catalog"} {
		resp, err := http.Get(base + path)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, path)
	}

	_, errOut, code := runBin(t, nil, "", "serve", "--port", port)
	assert.Equal(t, exitFail, code)
	for _, want := range []string{"server.port: 127.0.0.1:" + port + " is already in use", "server.port", "SUTURA__SERVER__PORT=", "sutura serve --port "} {
		assert.Contains(t, errOut, want)
	}
	_, errOut, code = runBin(t, nil, "", "serve", "--port", "70000")
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "sutura: --port: server.port: must be between 0 and 65535")

	out2, _, _ := runBin(t, nil, "", "help", "serve")
	assert.Contains(t, out2, "-port")
	assert.Contains(t, out2, "-host")
}

// Item 9: refusals say what is allowed, never what was sent; the command
// line speaks in its flags.
func TestRefusalsSayWhatIsAllowed(t *testing.T) {
	_, errOut, code := runBin(t, nil, "", "ask", "net_sales", "--grain", "month", "--from", "2025-01-01", "--to", "2025-02-01", "--where", "area=Atlantis")
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "sutura: refused (dimension_value_not_allowed): a value in the filter on dimension area is not on its allowlist; metric net_sales allows East, North, South, West\n")
	assert.NotContains(t, errOut, "Atlantis")

	_, errOut, _ = runBin(t, nil, "", "ask", "net_sales", "--grain", "month", "--from", "2025-01-01", "--to", "2025-02-01", "--by", "payment_method")
	assert.Contains(t, errOut, "metric net_sales has no dimension payment_method; its dimensions are area, channel, customer_segment, product, product_category")

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a date that is not one", []string{"--grain", "month", "--from", "2026-1-1", "--to", "2026-04-01"}, "sutura: ask: --from 2026-1-1: not a date (YYYY-MM-DD)\n"},
		{"an end that is not one", []string{"--grain", "month", "--from", "2026-01-01", "--to", "April"}, "sutura: ask: --to April: not a date (YYYY-MM-DD)\n"},
		{"no range", []string{"--grain", "month"}, "sutura: ask: a range is required: --from YYYY-MM-DD --to YYYY-MM-DD"},
		{"half a range", []string{"--grain", "month", "--from", "2026-01-01"}, "sutura: ask: --from needs --to"},
		{"both kinds of range", []string{"--grain", "month", "--from", "2026-01-01", "--to", "2026-02-01", "--last", "2"}, "--last replaces --from and --to"},
		{"no grain", []string{"--last", "2"}, "sutura: ask: --grain is required: day, week, month, quarter or year\n"},
		{"a bad count", []string{"--grain", "month", "--last", "-3"}, "sutura: ask: --last -3: must be between 1 and 100000\n"},
		{"an invisible character is not written back", []string{"--grain", "month", "--from", "2026-01-01\u202e", "--to", "2026-02-01"}, "sutura: ask: --from: not a date (YYYY-MM-DD)\n"},
		{"a filter value never is", []string{"--grain", "month", "--last", "2", "--where-not", "area=Zz\tCanary"}, "sutura: ask: --where-not: a value is not a valid dimension value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runBin(t, nil, "", append([]string{"ask", "net_sales"}, tc.args...)...)
			assert.Equal(t, exitUsage, code, errOut)
			assert.Contains(t, errOut, tc.want)
			assert.NotContains(t, errOut, "range.start", "the command line speaks in its flags")
			assert.NotContains(t, errOut, "Canary")
			assert.NotContains(t, errOut, "\u202e")
		})
	}

	// The server's refusal of the same mistake names the field and never
	// the value: it is not the caller's own terminal.
	s := serve(t)
	code, _, body := s.do(t, "POST", "/v1/query", `{"metrics":["net_sales"],"grain":"month","range":{"start":"2026-1-1","end":"2026-04-01"}}`)
	assert.Equal(t, 400, code)
	assert.Contains(t, body, `"code":"not_a_question"`)
	assert.Contains(t, body, "range.start")
	assert.NotContains(t, body, "2026-1-1")
}

// Item 11: the small things.
func TestTheSmallThings(t *testing.T) {
	t.Run("validate without anchors says so", func(t *testing.T) {
		dir := shop(t, map[string][2]string{"catalog/revenue.md": {"anchor: {range: {start: 2026-01-01, end: 2026-04-01}, value: \"11950\"}\n", ""}})
		out, errOut, code := runBin(t, []string{"SUTURA_CONFIG_DIR=" + dir}, "", "validate")
		require.Equal(t, exitOK, code, errOut)
		assert.Contains(t, out, "anchors    none declared: nothing was re-checked against the data")
		assert.NotContains(t, out, "()")
	})
	t.Run("a misspelled key gets a suggestion", func(t *testing.T) {
		dir := shop(t, map[string][2]string{"catalog/revenue.md": {"audience: open", "audiance: open"}})
		_, errOut, code := runBin(t, []string{"SUTURA_CONFIG_DIR=" + dir}, "", "validate")
		assert.Equal(t, exitFail, code)
		assert.Contains(t, errOut, "audiance: is not a known key here (did you mean audience? allowed:")
	})
	t.Run("describe shows required filters in words", func(t *testing.T) {
		dir := shop(t, map[string][2]string{"catalog/revenue.md": {"value: paid}", "value: zz_settled}"}})
		out, errOut, code := runBin(t, []string{"SUTURA_CONFIG_DIR=" + dir}, "", "describe", "revenue")
		require.Equal(t, exitOK, code, errOut)
		assert.Contains(t, out, "  filters     applied to every question:\n    only rows where status has one fixed value\n")
		assert.NotContains(t, out, "zz_settled", "never the value")
		assert.NotContains(t, out, "required filter(s)")
	})
	t.Run("a question can come from stdin", func(t *testing.T) {
		out, errOut, code := runBin(t, nil, `{"metrics":["net_sales"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`, "query", "-")
		require.Equal(t, exitOK, code, errOut)
		assert.Contains(t, out, "24032720")
		out, errOut, code = runBin(t, nil, "metrics: [net_sales]\ngrain: year\nrange: {start: 2025-01-01, end: 2026-01-01}\n", "compile", "-", "duckdb")
		require.Equal(t, exitOK, code, errOut)
		assert.Contains(t, out, "-- dialect duckdb")
	})
	t.Run("doctor prints its checks first and modules only when asked", func(t *testing.T) {
		out, errOut, code := runBin(t, nil, "", "doctor")
		require.Equal(t, exitOK, code, errOut)
		assert.True(t, strings.HasPrefix(out, "ok         configuration\nok         catalogue\n"), out)
		assert.NotContains(t, out, "module ")
		assert.Contains(t, out, "audit      ")
		out, _, _ = runBin(t, nil, "", "doctor", "--verbose")
		assert.Contains(t, out, "module     github.com/apache/arrow-go/v18 ")
	})
	t.Run("docs ask for no token where none is configured", func(t *testing.T) {
		s := serve(t)
		code, _, body := s.do(t, "GET", "/docs", "")
		require.Equal(t, 200, code)
		assert.Contains(t, body, "No token needed on this deployment")
	})
	t.Run("version names what it was built from", func(t *testing.T) {
		out, errOut, code := runBin(t, nil, "", "version")
		require.Equal(t, exitOK, code, errOut)
		assert.Regexp(t, `^sutura \S+, (commit [0-9a-f]{40} of \S+(, with uncommitted changes)?|built without version control information \(.+\))\n$`, out)
	})
}

// TestBuildText: the commit, its time and a modified tree, or a sentence
// saying the build recorded none.
func TestBuildText(t *testing.T) {
	bi := &debug.BuildInfo{Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0694245569ab6bccbd936c8aff82d5742ffc73b6"},
		{Key: "vcs.time", Value: "2026-12-01T14:37:08Z"}, {Key: "vcs.modified", Value: "true"},
	}}
	assert.Equal(t, "commit 0694245569ab6bccbd936c8aff82d5742ffc73b6 of 2026-12-01T14:37:08Z, with uncommitted changes", buildText(bi, true))
	bi.Settings[3].Value = "false"
	assert.Equal(t, "commit 0694245569ab6bccbd936c8aff82d5742ffc73b6 of 2026-12-01T14:37:08Z", buildText(bi, true))
	assert.Contains(t, buildText(&debug.BuildInfo{}, true), "built without version control information")
	assert.Contains(t, buildText(nil, false), "built without version control information")
}

package main

// The first hour with sutura (issue 15): one test per thing a new user
// tripped over, on the built binary where the thing is about the binary.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/cli/compose"
	"sutura.dev/domain"
)

// runBin runs the built binary with exactly env (PATH added), stdin as
// given, and returns its streams and exit status.
func runBin(t *testing.T, env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode()
	}
	require.NoError(t, err, errb.String())
	return out.String(), errb.String(), 0
}

// shopFiles is the README's own-data example: a CSV table, a model, a
// metric (anchored at 11950 over 2026 Q1) and the configuration.
func shopFiles() map[string]string {
	return map[string]string{
		"data/sales.csv": "sold_on,store,amount_cents,status\n2026-01-05,Lyon,1250,paid\n2026-01-17,Paris,3400,paid\n" +
			"2026-02-02,Lyon,990,refunded\n2026-02-11,Paris,2100,paid\n2026-03-03,Lyon,4500,paid\n2026-03-28,Paris,700,paid\n",
		"catalog/sales.md": "---\nkind: model\nname: sales\nsource: shop\ntable: sales\ncolumns:\n  - {name: sold_on, type: date}\n" +
			"  - {name: store, type: text}\n  - {name: amount_cents, type: integer}\n  - {name: status, type: text}\n---\nOne row per sale.\n",
		"catalog/revenue.md": "---\nkind: metric\nname: revenue\nmodel: sales\ntime_column: sold_on\ngrains: [month, quarter]\n" +
			"measure: {simple: {aggregate: sum, column: amount_cents}}\nrequired_filters:\n  - {equals: {column: status, value: paid}}\n" +
			"dimensions:\n  - {name: store, column: store, values: [Lyon, Paris]}\n" +
			"anchor: {range: {start: 2026-01-01, end: 2026-04-01}, value: \"11950\"}\naudience: open\n---\nMoney taken from paid sales, in cents.\n",
		"base.yaml": "catalogs:\n  - {name: shop, kind: markdown, dir: catalog, version: \"1\"}\n" +
			"sources:\n  shop: {kind: files, posture: shared-service-user, data_dir: data}\nsecurity:\n  identity: single-user\n",
	}
}

// shop writes shopFiles, each changed by the edits (file → {from, to}),
// and returns the configuration directory.
func shop(t *testing.T, edits map[string][2]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range shopFiles() {
		if e, ok := edits[name]; ok {
			require.Contains(t, content, e[0])
			content = strings.Replace(content, e[0], e[1], 1)
		}
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return dir
}

// Item 2: an answer without rows over a range outside the metric's data
// says where the data is; describe and describe_catalog show the span.
func TestEmptyAnswersSayWhereTheDataIs(t *testing.T) {
	out, errOut, code := runBin(t, nil, "", "ask", "net_sales", "--grain", "month", "--from", "2027-01-01", "--to", "2027-04-01")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "\n0 rows: net_sales has data from 2024-01-01 to 2026-06-30; the range asked runs from 2027-01-01 to 2027-03-31\n")

	out, errOut, code = runBin(t, nil, "", "ask", "net_sales", "--grain", "month", "--last", "2", "--json")
	require.Equal(t, exitOK, code, errOut)
	var body map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &body), "stdout stays exactly the HTTP body")
	if rows, _ := body["rows"].([]any); len(rows) == 0 {
		assert.Contains(t, errOut, "sutura: 0 rows: net_sales has data from 2024-01-01 to 2026-06-30", "the note goes to stderr with --json")
	}

	out, errOut, code = runBin(t, nil, "", "ask", "net_sales", "--grain", "year", "--from", "2025-01-01", "--to", "2026-01-01")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "\n1 row(s)\n")
	assert.NotContains(t, out+errOut, "has data from", "an answer with rows says nothing about the span")

	out, errOut, code = runBin(t, nil, "", "describe", "net_sales", "--json")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, `"data_span": {
    "first": "2024-01-01",
    "last": "2026-06-30"
  }`)
	// describe_catalog: see TestMCPAnswersEveryRequestBeforeItsInputEnds.
}

// Item 3: a files source's mistakes are named before any table is looked
// for.
func TestFilesSourceMistakesAreNamed(t *testing.T) {
	dir := shop(t, map[string][2]string{"base.yaml": {"data_dir: data", "data_dir: dta"}})
	_, errOut, code := runBin(t, []string{"SUTURA_CONFIG_DIR=" + dir}, "", "validate")
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "sutura: sources.shop.data_dir: "+filepath.Join(dir, "dta")+" does not exist\n")
	assert.NotContains(t, errOut, "no file", "the data directory is named before any table is looked for")

	dir = shop(t, map[string][2]string{"catalog/sales.md": {"table: sales\n", "table: sales.csv\n"}})
	_, errOut, code = runBin(t, []string{"SUTURA_CONFIG_DIR=" + dir}, "", "ask", "revenue", "--grain", "month", "--last", "1")
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "model sales: table: sales.csv is a file name, but table: names a table")
	assert.Contains(t, errOut, "write table: sales")

	dir = shop(t, nil)
	out, errOut, code := runBin(t, []string{"SUTURA_CONFIG_DIR=" + dir}, "", "ask", "revenue", "--by", "store", "--grain", "quarter", "--from", "2026-01-01", "--to", "2026-04-01")
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `(?m)^Lyon +2026-01-01 +5750$`, out)
	assert.Regexp(t, `(?m)^Paris +2026-01-01 +6200$`, out)
}

// Item 5: a person at a terminal sees answers, not audit records; the
// records still go where the configuration (or the rule for terminals)
// says, and serve and mcp log in one format.
func TestTerminalSeesAnswersNotRecords(t *testing.T) {
	requireTerminal(t)
	home := t.TempDir()
	auditFile := filepath.Join(home, ".local", "state", "sutura", auditFileName)
	askOn := func(env []string, args ...string) (stdout, stderr string, code int) {
		t.Helper()
		cmd := exec.Command(binary(t), args...)
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}, env...)
		var out bytes.Buffer
		cmd.Stdout = &out
		stderr, err := runOnTerminal(t, cmd)
		if ee, ok := err.(*exec.ExitError); ok {
			return out.String(), stderr, ee.ExitCode()
		}
		require.NoError(t, err, stderr)
		return out.String(), stderr, 0
	}
	records := func(path string) int {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		return strings.Count(string(b), "\n")
	}
	year := []string{"ask", "net_sales", "--grain", "year", "--from", "2025-01-01", "--to", "2026-01-01"}

	out, errOut, code := askOn(nil, year...)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "24032720")
	assert.False(t, auditLine.MatchString(errOut), "no audit record on the terminal:\n%s", errOut)
	assert.Equal(t, 1, strings.Count(errOut, "audit records go to a file, not to this terminal"), errOut)
	assert.Contains(t, errOut, auditFile)
	assert.Equal(t, 1, records(auditFile), "the audit still happened")

	_, errOut, code = askOn(nil, year...)
	require.Equal(t, exitOK, code)
	assert.NotContains(t, errOut, "audit records go", "said once, when the file was created")
	assert.Equal(t, []string{compose.DemoNotice}, strings.Split(strings.TrimSpace(errOut), "\n"), "nothing but the demo notice")
	assert.Equal(t, 2, records(auditFile))

	out, errOut, code = askOn(nil, "ask", "net_sales", "--grain", "month", "--from", "2025-01-01", "--to", "2025-02-01", "--where", "area=Atlantis")
	assert.Equal(t, exitFail, code)
	assert.Empty(t, out, "a refusal is printed once, on stderr")
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	require.Len(t, lines, 2, errOut)
	assert.True(t, strings.HasPrefix(lines[1], "sutura: refused (dimension_value_not_allowed): "), lines[1])
	assert.Equal(t, 3, records(auditFile), "a refusal is audited too")

	xdg := t.TempDir()
	_, errOut, _ = askOn([]string{"XDG_STATE_HOME=" + xdg}, year...)
	assert.Contains(t, errOut, filepath.Join(xdg, "sutura", auditFileName))
	assert.Equal(t, 1, records(filepath.Join(xdg, "sutura", auditFileName)))

	_, errOut, _ = askOn([]string{"SUTURA__AUDIT__SINK=stderr"}, year...)
	assert.True(t, auditLine.MatchString(errOut), "a sink the configuration chose is used as it is, terminal or not:\n%s", errOut)
	assert.Equal(t, 3, records(auditFile))

	_, errOut, code = runBin(t, nil, "", year...)
	require.Equal(t, exitOK, code)
	assert.True(t, auditLine.MatchString(errOut), "standard error that is not a terminal keeps the records:\n%s", errOut)
}

// Item 5: serve logs in one format, the one log.format names.
func TestServeLogsInOneFormat(t *testing.T) {
	for _, format := range []string{"json", "text"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			s := serve(t, "SUTURA__LOG__FORMAT="+format, "SUTURA__AUDIT__SINK=file", "SUTURA__AUDIT__FILE="+filepath.Join(dir, "audit.jsonl"))
			code, _, body := s.do(t, "POST", "/v1/query", year2025)
			require.Equal(t, 200, code, body)
			require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
			require.NoError(t, s.cmd.Wait())
			lines := strings.Split(strings.TrimSpace(s.stderr.String()), "\n")
			require.GreaterOrEqual(t, len(lines), 2, "the demo notice and the shutdown")
			for _, line := range lines {
				if format == "json" {
					var v map[string]any
					assert.NoError(t, json.Unmarshal([]byte(line), &v), "not a JSON log line: %s", line)
					assert.Contains(t, v, "level", line)
					continue
				}
				assert.Regexp(t, `^time=\S+ level=[A-Z]+ msg=`, line)
			}
			assert.Contains(t, s.stderr.String(), "no catalogue configured", "the demo notice is a log line too")
		})
	}
}

// mcpScript is a fixed script of requests, written at once with the input
// closed after it.
var mcpScript = strings.Join([]string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"describe_catalog","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ask_metric","arguments":{"metrics":["net_sales"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}}}`,
	`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ask_metric","arguments":{"metrics":["net_sales"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"},"filters":[{"op":"eq","dimension":"area","value":"Atlantis"}]}}}`,
	`{"jsonrpc":"2.0","id":6,"method":"ping"}`,
}, "\n") + "\n"

// mcpResponses runs `sutura mcp` over script and returns its responses by
// id, and its stderr.
func mcpResponses(t *testing.T, script string) (map[float64]map[string]any, string) {
	t.Helper()
	out, errOut, code := runBin(t, nil, script, "mcp")
	require.Equal(t, exitOK, code, errOut)
	byID := map[float64]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 4<<20)
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), sc.Text())
		id, ok := m["id"].(float64)
		require.True(t, ok, sc.Text())
		byID[id] = m
	}
	return byID, errOut
}

// Item 6: sutura mcp answers every request read before its input ended.
func TestMCPAnswersEveryRequestBeforeItsInputEnds(t *testing.T) {
	start := time.Now()
	byID, errOut := mcpResponses(t, mcpScript)
	for id := 1.0; id <= 6; id++ {
		require.Contains(t, byID, id, "no response to request %v; stderr:\n%s", id, errOut)
		assert.NotNil(t, byID[id]["result"], "request %v", id)
	}
	catalog := mustJSON(t, byID[3]["result"].(map[string]any)["structuredContent"])
	assert.Contains(t, catalog, `"data_span":{"first":"2024-01-01","last":"2026-06-30"}`, "describe_catalog shows the span of the data")
	assert.Contains(t, mustJSON(t, byID[4]["result"]), "24032720")
	assert.Contains(t, mustJSON(t, byID[5]["result"]), "dimension_value_not_allowed")
	assert.NotContains(t, mustJSON(t, byID[5]["result"]), "Atlantis")
	t.Logf("six answers in %s", time.Since(start))
}

// instructionsOf returns the instructions of an initialize result.
func instructionsOf(t *testing.T, resp map[string]any) string {
	t.Helper()
	res, ok := resp["result"].(map[string]any)
	require.True(t, ok, "%v", resp)
	s, ok := res["instructions"].(string)
	require.True(t, ok, "%v", res)
	return s
}

// Item 7: the MCP instructions (stdio and HTTP) and sutura prompt are one
// text.
func TestPromptIsTheMCPInstructions(t *testing.T) {
	prompt, errOut, code := runBin(t, nil, "", "prompt")
	require.Equal(t, exitOK, code, errOut)
	byID, _ := mcpResponses(t, mcpScript)
	assert.Equal(t, prompt, instructionsOf(t, byID[1]), "sutura mcp sends what sutura prompt prints")

	s := serve(t)
	code, _, body := s.do(t, "POST", "/mcp", strings.SplitN(mcpScript, "\n", 2)[0], "Accept", "application/json, text/event-stream")
	require.Equal(t, 200, code, body)
	var resp map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &resp))
	assert.Equal(t, prompt, instructionsOf(t, resp), "so does sutura serve at /mcp")

	b, err := compose.Load(nil, nil)
	require.NoError(t, err)
	for _, m := range b.Bundle.Definitions().Metrics {
		assert.Contains(t, prompt, "\n- "+m.Name+" (grains: ", "the local operator may ask every metric, so every one is listed")
	}
	assert.NotContains(t, prompt, "restricted to audiences and not listed")
}

// Item 7: instructions rendered for every caller of a multi-user
// deployment leave out the restricted metrics and say so, without naming
// them.
func TestPromptForEveryCallerSaysWhatIsLeftOut(t *testing.T) {
	s, err := compose.Load(nil, nil)
	require.NoError(t, err)
	all, err := agentPrompt(s, domain.LocalOperator)
	require.NoError(t, err)
	some, err := agentPrompt(s, everyCaller)
	require.NoError(t, err)
	var restricted []string
	for _, m := range s.Bundle.Definitions().Metrics {
		if !m.Audience.Open() {
			restricted = append(restricted, m.Name)
		}
	}
	require.NotEmpty(t, restricted, "the demo restricts some metrics")
	assert.Contains(t, some, "\n("+strconv.Itoa(len(restricted))+" more metric(s) are restricted to audiences and not listed here; describe_catalog lists every metric you may ask.)\n")
	for _, name := range restricted {
		assert.Contains(t, all, "\n- "+name+" (")
		assert.NotRegexp(t, regexp.MustCompile(`\b`+name+`\b`), some, "a restricted metric is not named")
	}
	s.Config.Security.Identity = "multi-user"
	assert.Equal(t, everyCaller, promptViewer(s.Config))
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runCLI runs one command in process with the given environment only.
func runCLI(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, streams{in: strings.NewReader(""), out: &out, err: &errb}, env)
	return code, out.String(), errb.String()
}

// configDir writes base.yaml pointing at a catalogue directory and returns
// the configuration directory.
func configDir(t *testing.T, catalogue, version string) string {
	t.Helper()
	dir := t.TempDir()
	abs, err := filepath.Abs(catalogue)
	require.NoError(t, err)
	data, err := filepath.Abs("testdata/shop-data")
	require.NoError(t, err)
	base := "catalogs:\n  - {name: shop, kind: markdown, dir: " + abs + ", version: \"" + version + "\"}\n" +
		"sources:\n  files: {kind: files, posture: shared-service-user, data_dir: " + data + "}\n" +
		"security: {identity: single-user}\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "base.yaml"), []byte(base), 0o600))
	return dir
}

var hex64 = regexp.MustCompile(`\b[0-9a-f]{64}\b`)

func TestUsageAndExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		inStdout string
		inStderr string
	}{
		{"no command", nil, exitUsage, "", "usage: sutura"},
		{"unknown command", []string{"frobnicate"}, exitUsage, "", "sutura: no such command"},
		{"help", []string{"help"}, exitOK, "validate", ""},
		{"help one command", []string{"help", "describe"}, exitOK, "usage: sutura describe", ""},
		{"help unknown command", []string{"help", "nope"}, exitUsage, "", "sutura: no such command"},
		{"-h on a command", []string{"catalog", "-h"}, exitOK, "usage: sutura catalog", ""},
		{"describe needs a metric", []string{"describe"}, exitUsage, "", "sutura: describe takes exactly 1"},
		{"unknown flag", []string{"catalog", "--nope"}, exitUsage, "", "sutura: catalog:"},
		{"extra argument", []string{"version", "x"}, exitUsage, "", "sutura: version takes no arguments"},
		{"describe a non-identifier", []string{"describe", "net sales;"}, exitUsage, "", "not an identifier"},
		{"version", []string{"version"}, exitOK, "sutura ", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, nil, tc.args...)
			assert.Equal(t, tc.code, code, "stdout=%q stderr=%q", out, errOut)
			assert.Contains(t, out, tc.inStdout)
			assert.Contains(t, errOut, tc.inStderr)
		})
	}
}

func TestCatalogOnEmbeddedDemo(t *testing.T) {
	code, out, errOut := runCLI(t, nil, "catalog")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "embedded demo", "the demo says so on stderr")
	assert.Equal(t, 1, strings.Count(errOut, "embedded demo"), "and says so once")
	assert.Regexp(t, `(?m)^digest +[0-9a-f]{64}$`, out)
	assert.Regexp(t, `(?m)^version +\S+`, out)
	assert.Contains(t, out, "net_sales")
}

func catalogJSON(t *testing.T, env map[string]string) catalogView {
	t.Helper()
	code, out, errOut := runCLI(t, env, "catalog", "--json")
	require.Equal(t, exitOK, code, errOut)
	var v catalogView
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	return v
}

func TestCatalogDigestFollowsMeaningNotFormat(t *testing.T) {
	orig := catalogJSON(t, map[string]string{"SUTURA_CONFIG_DIR": configDir(t, "testdata/shop", "v1")})
	require.Regexp(t, `^[0-9a-f]{64}$`, orig.Digest)
	assert.Equal(t, "v1", orig.Version)
	require.Len(t, orig.Metrics, 1)
	assert.Equal(t, "revenue", orig.Metrics[0].Name)

	t.Run("reformatted documents keep the digest", func(t *testing.T) {
		re := catalogJSON(t, map[string]string{"SUTURA_CONFIG_DIR": configDir(t, "testdata/shop-reformatted", "v1")})
		assert.Equal(t, orig.Digest, re.Digest)
		assert.Equal(t, orig.Metrics[0].Digest, re.Metrics[0].Digest)
	})
	t.Run("the version label is not digested", func(t *testing.T) {
		re := catalogJSON(t, map[string]string{"SUTURA_CONFIG_DIR": configDir(t, "testdata/shop", "v2")})
		assert.Equal(t, "v2", re.Version)
		assert.Equal(t, orig.Digest, re.Digest)
	})
	for _, change := range []struct{ name, file, from, to string }{
		{"a description", "metrics/revenue.md", "Money taken, in cents.", "Money taken, in euros."},
		{"a required-filter value", "metrics/revenue.md", "value: paid", "value: settled"},
		{"an allowlist", "metrics/revenue.md", "values: [Lyon, Paris]", "values: [Lyon, Paris, Nice]"},
		{"a model's table", "models/stores.md", "table: stores", "table: shops"},
	} {
		t.Run("changing "+change.name+" moves the digest", func(t *testing.T) {
			dir := copyTree(t, "testdata/shop")
			p := filepath.Join(dir, change.file)
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			require.Contains(t, string(b), change.from)
			require.NoError(t, os.WriteFile(p, []byte(strings.Replace(string(b), change.from, change.to, 1)), 0o600))
			moved := catalogJSON(t, map[string]string{"SUTURA_CONFIG_DIR": configDir(t, dir, "v1")})
			assert.NotEqual(t, orig.Digest, moved.Digest)
		})
	}
}

func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	require.NoError(t, os.CopyFS(dst, os.DirFS(src)))
	return dst
}

func TestDescribe(t *testing.T) {
	env := map[string]string{"SUTURA_CONFIG_DIR": configDir(t, "testdata/shop", "v1")}
	code, out, errOut := runCLI(t, env, "describe", "revenue")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "sum(amount)")
	assert.Contains(t, out, "city (filterable: Lyon, Paris) via sale_store")
	assert.Contains(t, out, "only rows where status has one fixed value", "required filters are shown in words")
	assert.NotContains(t, out, "paid", "required filter values are never shown")
	assert.Contains(t, out, "data        from 2024-12-31 to 2025-03-01 (both included)", "the span of the data")
	assert.Regexp(t, hex64, out)

	code, _, errOut = runCLI(t, env, "describe", "no_such_metric")
	assert.Equal(t, exitFail, code)
	assert.True(t, strings.HasPrefix(errOut, "sutura: "), errOut)
}

func TestValidateRerunsAnchors(t *testing.T) {
	code, out, errOut := runCLI(t, nil, "validate")
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `anchors +\d+ checked, all reproduce`, out)

	code, out, errOut = runCLI(t, map[string]string{"SUTURA_CONFIG_DIR": configDir(t, "testdata/shop", "v1")}, "validate")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "anchors    1 checked")

	dir := copyTree(t, "testdata/shop")
	p := filepath.Join(dir, "metrics/revenue.md")
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, []byte(strings.Replace(string(b), `value: "890"`, `value: "891"`, 1)), 0o600))
	code, _, errOut = runCLI(t, map[string]string{"SUTURA_CONFIG_DIR": configDir(t, dir, "v1")}, "validate")
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "anchor of metric revenue: expected 891, produced 890")
}

func TestValidateNamesAMissingTableFile(t *testing.T) {
	data := t.TempDir()
	src, err := os.ReadFile("testdata/shop-data/sales.csv")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(data, "sales.csv"), src, 0o600))
	cat, err := filepath.Abs("testdata/shop")
	require.NoError(t, err)
	dir := t.TempDir()
	base := "catalogs:\n  - {name: shop, kind: markdown, dir: " + cat + ", version: v1}\n" +
		"sources:\n  files: {kind: files, posture: shared-service-user, data_dir: " + data + "}\n" +
		"security: {identity: single-user}\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "base.yaml"), []byte(base), 0o600))
	code, _, errOut := runCLI(t, map[string]string{"SUTURA_CONFIG_DIR": dir}, "validate")
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "stores")
}

func TestAskQueryCompileOnDemo(t *testing.T) {
	code, out, errOut := runCLI(t, nil, "ask", "net_sales", "--grain", "year", "--from", "2025-01-01", "--to", "2026-01-01")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "24032720", "the demo's anchor value for net_sales in 2025")
	assert.Contains(t, out, "definition_digest")

	q := filepath.Join(t.TempDir(), "q.yaml")
	require.NoError(t, os.WriteFile(q, []byte("metrics: [net_sales]\ngrain: month\nrange: {start: 2025-01-01, end: 2025-04-01}\ndimensions: [area]\nfilters:\n  - {op: eq, dimension: area, value: East}\n"), 0o600))
	code, out, errOut = runCLI(t, nil, "query", "--json", q)
	require.Equal(t, exitOK, code, errOut)
	var body map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &body))
	assert.Equal(t, "answer", body["outcome"])
	assert.Len(t, body["rows"], 3)

	code, out, errOut = runCLI(t, nil, "compile", q, "postgres")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "LEFT JOIN")
	assert.Contains(t, out, `"East"`, "the bound value is listed under the statement")
	stmt, _, _ := strings.Cut(out, "-- parameters")
	assert.NotContains(t, stmt, "East", "values are bound, never in the statement")
}

func TestRefusalsAndCanaryValues(t *testing.T) {
	const canary = "Zz\u200bCanary"
	code, out, errOut := runCLI(t, nil, "ask", "net_sales", "--grain", "month", "--from", "2025-01-01", "--to", "2025-02-01", "--where", "area=Atlantis")
	assert.Equal(t, exitFail, code, "a refusal exits 1 without --json")
	assert.Contains(t, out+errOut, "dimension_value_not_allowed")
	assert.NotContains(t, out+errOut, "Atlantis", "a rejected value is never echoed, not even in the audit record on stderr")

	code, out, errOut = runCLI(t, nil, "ask", "net_sales", "--json", "--grain", "month", "--from", "2025-01-01", "--to", "2025-02-01", "--where", "area=Atlantis")
	assert.Equal(t, exitOK, code, "a refusal is an answer with --json")
	assert.Contains(t, out, `"status": 403`)

	code, out, errOut = runCLI(t, nil, "ask", "net_sales", "--grain", "month", "--from", "2025-01-01", "--to", "2025-02-01", "--where", "area="+canary)
	assert.Equal(t, exitUsage, code, "a flag that does not make a question is a usage error")
	assert.Contains(t, errOut, "--where: a value is not a valid dimension value")
	assert.NotContains(t, out+errOut, "Canary")
}

func TestConfigurationErrorsNameKeyAndLayerNotValue(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "base.yaml"), []byte("server:\n  bogus_key: zz-planted-value\n"), 0o600))
	code, _, errOut := runCLI(t, map[string]string{"SUTURA_CONFIG_DIR": dir}, "catalog")
	assert.Equal(t, exitFail, code)
	assert.True(t, strings.HasPrefix(errOut, "sutura: "), errOut)
	assert.Contains(t, errOut, "server.bogus_key")
	assert.Contains(t, errOut, "base.yaml")
	assert.NotContains(t, errOut, "zz-planted-value")

	code, _, errOut = runCLI(t, map[string]string{"SUTURA__RUNTIME__MAX_CONCURRENT_QUERIES": "9999"}, "catalog")
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "SUTURA__RUNTIME__MAX_CONCURRENT_QUERIES")
	assert.NotContains(t, errOut, "9999")
}

func TestCatalogueLoadErrorsExitOne(t *testing.T) {
	dir := copyTree(t, "testdata/shop")
	p := filepath.Join(dir, "metrics/revenue.md")
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, []byte(strings.Replace(string(b), "values: [Lyon, Paris]", "values: [Lyon, \"zz planted\\tvalue\"]", 1)), 0o600))
	code, _, errOut := runCLI(t, map[string]string{"SUTURA_CONFIG_DIR": configDir(t, dir, "v1")}, "catalog")
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "revenue.md")
	assert.Contains(t, errOut, "values[1]")
	assert.NotContains(t, errOut, "zz planted")
}

// TestBinary runs the built binary as a process: the exit status and the
// stderr prefix are what scripts see.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("NOT RUN: -short skips building the binary")
	}
	bin := binary(t)

	cmd := exec.Command(bin, "catalog")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), errb.String())
	assert.Regexp(t, hex64, out.String())

	cmd = exec.Command(bin, "describe", "no_such_metric")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	errb.Reset()
	cmd.Stderr = &errb
	err := cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, exitFail, ee.ExitCode())
	assert.True(t, strings.HasPrefix(errb.String(), "sutura: "))

	cmd = exec.Command(bin)
	err = cmd.Run()
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, exitUsage, ee.ExitCode())
}

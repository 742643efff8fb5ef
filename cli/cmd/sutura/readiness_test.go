package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServeWithdrawsReadinessOnABadLinePastTheSample (issue 30): a CSV
// file whose one bad value lies past the records start-up samples does not
// stop `sutura serve` (the built binary): it listens and /ready says 200;
// then the background read of the rest of the file finds the line, /ready
// turns 503 naming file, column and line (never the value), questions on
// that model fail as unavailable (audited), and the other model answers.
// `sutura validate` reads the whole file and fails naming the line.
func TestServeWithdrawsReadinessOnABadLinePastTheSample(t *testing.T) {
	data, catalog, dir := t.TempDir(), t.TempDir(), t.TempDir()
	const rows, bad = 200_000, 150_000 // past the 65,536-record sample
	var b strings.Builder
	b.WriteString("day,amount\n")
	for i := range rows {
		v := fmt.Sprint(i % 100)
		if i == bad {
			v = "secret-value"
		}
		fmt.Fprintf(&b, "2025-01-%02d,%s\n", 1+i%28, v)
	}
	require.NoError(t, os.WriteFile(filepath.Join(data, "big.csv"), []byte(b.String()), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(data, "small.csv"), []byte("day,amount\n2025-01-02,5\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(catalog, "models"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(catalog, "metrics"), 0o755))
	for _, name := range []string{"big", "small"} {
		require.NoError(t, os.WriteFile(filepath.Join(catalog, "models", name+".md"), fmt.Appendf(nil, `---
kind: model
name: %[1]s
source: files
table: %[1]s
columns:
  - {name: day, type: date}
  - {name: amount, type: integer}
---
Rows of %[1]s.
`, name), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(catalog, "metrics", name+"_total.md"), fmt.Appendf(nil, `---
kind: metric
name: %[1]s_total
model: %[1]s
measure:
  simple: {aggregate: sum, column: amount}
time_column: day
grains: [month]
dimensions: []
audience: open
---
The sum of amount in %[1]s.
`, name), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "base.yaml"), fmt.Appendf(nil, `catalogs:
  - {name: sampled, kind: markdown, dir: %s, version: s-1}
security: {identity: single-user}
sources:
  files: {kind: files, posture: shared-service-user, data_dir: %s}
`, catalog, data), 0o600))
	const where = "file big.csv, column amount, line 150002"
	ask := func(metric string) string {
		return `{"metrics":["` + metric + `"],"grain":"month","range":{"start":"2025-01-01","end":"2025-02-01"}}`
	}

	s := serve(t, "SUTURA_CONFIG_DIR="+dir)
	code, _, body := s.do(t, "GET", "/ready", "")
	require.Equal(t, 200, code, "ready once listening: only the sample was read; %s", body)
	deadline := time.Now().Add(60 * time.Second)
	for code == 200 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		code, _, body = s.do(t, "GET", "/ready", "")
	}
	require.Equal(t, 503, code, body)
	assert.Contains(t, body, where)
	assert.Contains(t, body, `"code":"unavailable"`)
	assert.NotContains(t, body, "secret-value")

	code, _, body = s.do(t, "POST", "/v1/query", ask("big_total"))
	assert.Equal(t, 503, code, body)
	assert.Contains(t, body, `"code":"unavailable"`)
	assert.NotContains(t, body, "secret-value")
	code, _, body = s.do(t, "POST", "/v1/query", ask("small_total"))
	assert.Equal(t, 200, code, body)
	assert.Contains(t, body, `"5"`)
	logs := s.stderr.String()
	assert.Contains(t, logs, where, "the failure is logged")
	assert.Contains(t, logs, `"outcome":"failure"`, "the refused question is audited")
	assert.NotContains(t, logs, "secret-value")

	code, out, errOut := runCLI(t, map[string]string{"SUTURA_CONFIG_DIR": dir}, "validate")
	assert.Equal(t, exitFail, code, out+errOut)
	assert.Contains(t, errOut, where)
}

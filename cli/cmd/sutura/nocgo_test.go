package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWithoutCgoADuckDBSourceIsRefusedByName builds sutura without cgo
// (CGO_ENABLED=0), which links no DuckDB, and configures a duckdb source:
// validate refuses it naming the source and saying why, doctor reports the
// same, and the binary still serves every other kind (the demo).
func TestWithoutCgoADuckDBSourceIsRefusedByName(t *testing.T) {
	if testing.Short() {
		t.Skip("NOT RUN: the build without cgo (-short)")
	}
	bin := filepath.Join(t.TempDir(), "sutura-nocgo")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	dir := demoConfig(t, "nocgo", "{kind: duckdb, posture: shared-service-user, path: demo.duckdb}", "", map[string][]byte{"demo.duckdb": nil})
	run := func(args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "SUTURA_CONFIG_DIR=" + dir}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	const why = "sources.demo: duckdb source demo: this binary was built without cgo (CGO_ENABLED=0), so it has no DuckDB: build it with cgo to read duckdb sources"
	text, err := run("validate")
	require.Error(t, err, text)
	assert.Contains(t, text, why)
	text, err = run("doctor")
	require.Error(t, err, text)
	assert.Contains(t, text, "build      CGO_ENABLED=0")
	assert.Contains(t, text, "FAIL       source demo (duckdb) reachable: "+why)

	cmd := exec.Command(bin, "ask", "net_sales", "--grain", "year", "--from", "2025-01-01", "--to", "2026-01-01")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	demo, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", demo)
	assert.Contains(t, string(demo), "24032720", "the embedded demo needs no cgo")
}

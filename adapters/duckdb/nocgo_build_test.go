//go:build cgo

package duckdb_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBuildsWithoutCgo runs this package's tests again in a build without
// cgo, where the package keeps its API and refuses every source
// (nocgo.go), so that a program opening sources from configuration still
// builds with CGO_ENABLED=0.
func TestBuildsWithoutCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("NOT RUN: the build without cgo (-short)")
	}
	cmd := exec.Command("go", "test", "-count=1", "-run", "^TestWithoutCgo$", "-v", ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "SUTURA_REQUIRE_TIERS=")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.True(t, strings.Contains(string(out), "NOT RUN: duckdb (built without cgo"), "%s", out)
}

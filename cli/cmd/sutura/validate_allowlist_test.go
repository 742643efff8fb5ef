package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestValidateFindsAllowlistValuesTheDataNeverHolds: validate reads every
// filterable dimension against the data and names an allowlisted value
// that never occurs — a typo that would otherwise answer 0 rows forever —
// as a warning (exit 0), and with --strict as a failure (exit 1); the
// demo as shipped has none.
func TestValidateFindsAllowlistValuesTheDataNeverHolds(t *testing.T) {
	code, out, errOut := runCLI(t, nil, "validate", "--strict")
	require.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, "filterable dimensions read against the data, every allowed value occurs")

	src, err := filepath.Abs("../../../examples/demo/catalog")
	require.NoError(t, err)
	catalog := filepath.Join(t.TempDir(), "catalog")
	require.NoError(t, os.CopyFS(catalog, os.DirFS(src)))
	metric := filepath.Join(catalog, "metrics", "net_sales.md")
	text, err := os.ReadFile(metric)
	require.NoError(t, err)
	typo := strings.Replace(string(text), "values: [online, store]", "values: [online, store, stores]", 1)
	require.NotEqual(t, string(text), typo)
	require.NoError(t, os.WriteFile(metric, []byte(typo), 0o644))
	data, err := filepath.Abs("../../../examples/demo/data")
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "base.yaml"), fmt.Appendf(nil, `catalogs:
  - {name: demo, kind: markdown, dir: %s, version: typo-1}
security: {identity: single-user}
sources:
  demo: {kind: files, posture: shared-service-user, data_dir: %s}
`, catalog, data), 0o600))
	env := map[string]string{"SUTURA_CONFIG_DIR": dir}

	code, out, errOut = runCLI(t, env, "validate")
	require.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, `warning    metric net_sales: dimension channel allows "stores", which its data never holds`)
	assert.NotContains(t, out, `allows "store",`)

	code, out, errOut = runCLI(t, env, "validate", "--strict")
	assert.Equal(t, exitFail, code, out+errOut)
	assert.Contains(t, errOut, `sutura: validate: metric net_sales: dimension channel allows "stores", which its data never holds`)
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/adapters/postgres/pgtest"
	"sutura.dev/domain"
	"sutura.dev/examples/demo"
)

// storeModels are the demo models a federated deployment of the demo
// keeps in its warehouse; orders stay in files.
var storeModels = []string{"customers", "products", "regions"}

// federatedDemoConfig writes the federated demo's configuration (the
// example of docs/operations.md): a copy of the demo catalogue whose
// orders live in the files source files (the demo's own CSV files) and
// whose store tables live in the source warehouse, declared by warehouse
// (a YAML flow mapping); files maps further file names of the directory
// to their content. It returns the configuration directory.
func federatedDemoConfig(t *testing.T, warehouse string, files map[string][]byte) string {
	t.Helper()
	catalog := copyTree(t, "../../../examples/demo/catalog")
	for _, m := range storeModels {
		p := filepath.Join(catalog, "models", m+".md")
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.Contains(t, string(b), "\nsource: demo\n")
		require.NoError(t, os.WriteFile(p, []byte(strings.Replace(string(b), "\nsource: demo\n", "\nsource: warehouse\n", 1)), 0o600))
	}
	p := filepath.Join(catalog, "models", "orders.md")
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, []byte(strings.Replace(string(b), "\nsource: demo\n", "\nsource: files\n", 1)), 0o600))
	data, err := filepath.Abs("../../../examples/demo/data")
	require.NoError(t, err)
	dir := t.TempDir()
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), content, 0o600))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "base.yaml"), fmt.Appendf(nil, `catalogs:
  - {name: demo-federated, kind: markdown, dir: %s, version: fed-1}
security: {identity: single-user}
sources:
  files: {kind: files, posture: shared-service-user, data_dir: %s}
  warehouse: %s
governance: {lookup_leg_ceiling: 3, source_ceiling: 2, max_leg_rows: 100000}
`, catalog, data, warehouse), 0o600))
	return dir
}

// storeModelsOf returns the demo's store models, as the warehouse loads
// them.
func storeModelsOf(t *testing.T) []domain.Model {
	t.Helper()
	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	var out []domain.Model
	for _, m := range b.Definitions().Models {
		for _, s := range storeModels {
			if m.Name == s {
				out = append(out, m)
			}
		}
	}
	return out
}

// Questions of the federated demo: through the warehouse (two lookup
// legs, a filter bound there), local only, and one that must be refused.
const (
	fedAreaCategory = `{"metrics":["net_sales","order_count"],"grain":"quarter","range":{"start":"2025-01-01","end":"2026-01-01"},"dimensions":["area","product_category"],"filters":[{"op":"in","dimension":"area","values":["East","North"]}]}`
	fedTopProducts  = `{"metrics":["gross_sales"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"},"dimensions":["product"],"top":{"n":5,"by":"metric","direction":"desc"}}`
	fedDistinct     = `{"metrics":["active_customers"],"grain":"month","range":{"start":"2025-01-01","end":"2025-04-01"},"dimensions":["customer_segment"]}`
)

// servesTheFederatedDemo checks the federated demo configured in dir with
// the built binary alone: doctor reaches both sources, validate re-runs
// the 13 anchors (each on its own source), serve answers over HTTP every
// question with the embedded demo's answer, reading both data systems,
// refuses count_distinct across them, and sutura mcp answers over stdio.
func servesTheFederatedDemo(t *testing.T, dir, kind string) {
	t.Helper()
	env := map[string]string{"SUTURA_CONFIG_DIR": dir}
	code, out, errOut := runCLI(t, env, "doctor")
	require.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, "source files (files) reachable")
	assert.Contains(t, out, "source warehouse ("+kind+") reachable")
	code, out, errOut = runCLI(t, env, "validate")
	require.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, "13 checked, all reproduce")

	qf := filepath.Join(t.TempDir(), "q.json")
	require.NoError(t, os.WriteFile(qf, []byte(fedAreaCategory), 0o600))
	code, out, errOut = runCLI(t, env, "compile", qf, kind)
	require.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, "-- 3 legs across data systems")
	assert.Contains(t, out, "-- leg 0 (base) on source files")
	assert.Contains(t, out, "-- leg 1 (lookup) on source warehouse")
	assert.Contains(t, out, "-- leg 2 (lookup) on source warehouse")
	assert.Contains(t, out, `"North"`)
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "North") {
			assert.True(t, strings.HasPrefix(line, "-- "), "a value is a bound parameter, never in the SQL: %s", line)
		}
	}

	s := serve(t, "SUTURA_CONFIG_DIR="+dir)
	for _, q := range []string{fedAreaCategory, fedTopProducts, year2025} {
		status, _, body := s.do(t, "POST", "/v1/query", q)
		require.Equal(t, 200, status, body)
		assert.Equal(t, demoRows(t, q), rowsOf(t, body), "the embedded demo's answer to %s", q)
		if q != year2025 {
			assert.Contains(t, body, `"executed_as":[{"source":"files","posture":"shared-service-user"},{"source":"warehouse","posture":"shared-service-user"}]`)
		} else {
			assert.Contains(t, body, `"executed_as":[{"source":"files","posture":"shared-service-user"}]`, "a question of the orders alone reads one system")
		}
	}
	status, _, body := s.do(t, "POST", "/v1/query", fedDistinct)
	assert.Equal(t, 409, status, body)
	assert.Contains(t, body, `"code":"measure_does_not_federate"`)

	cmd := exec.Command(binary(t), "mcp")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "SUTURA_CONFIG_DIR=" + dir}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sess, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	defer sess.Close()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "ask_metric", Arguments: json.RawMessage(fedAreaCategory)})
	require.NoError(t, err)
	require.False(t, res.IsError)
	assert.Contains(t, mustJSON(t, res.StructuredContent), `"source":"warehouse"`)
}

// TestServeTheFederatedDemoOnPostgres serves the demo with its orders in
// files and its store tables in Postgres, from configuration alone.
func TestServeTheFederatedDemoOnPostgres(t *testing.T) {
	d := pgtest.New(t)
	d.Load(t, demo.Data(), storeModelsOf(t))
	pc := d.Config("warehouse", nil)
	dir := federatedDemoConfig(t, fmt.Sprintf("{kind: postgres, posture: shared-service-user, host: %s, port: %d, database: %s, user: %s, password_file: pgpass, transport_mode: plaintext}",
		pc.Host, pc.Port, pc.Database, pc.User), map[string][]byte{"pgpass": pc.Password})
	servesTheFederatedDemo(t, dir, "postgres")
}

// TestFederatedDemoStartRefusals: a deployment of several sources refuses
// to start in multi-user mode while a shared source does not say why
// every caller may see it, naming the key; and a governance key out of
// range is refused naming the key.
func TestFederatedDemoStartRefusals(t *testing.T) {
	d := pgtest.New(t)
	pc := d.Config("warehouse", nil)
	warehouse := fmt.Sprintf("{kind: postgres, posture: shared-service-user, host: %s, port: %d, database: %s, user: %s, password_file: pgpass, transport_mode: plaintext}",
		pc.Host, pc.Port, pc.Database, pc.User)
	dir := federatedDemoConfig(t, warehouse, map[string][]byte{"pgpass": pc.Password})
	code, _, errOut := runCLI(t, map[string]string{"SUTURA_CONFIG_DIR": dir, "SUTURA__SECURITY__IDENTITY": "multi-user",
		"SUTURA__SERVER__AGENT_SURFACE__ENABLED": "false", "SUTURA__SOURCES__FILES__ACKNOWLEDGED_BECAUSE": "the order book is public"}, "validate")
	require.NotEqual(t, exitOK, code)
	assert.Contains(t, errOut, "sources.warehouse.acknowledged_because")
	assert.Contains(t, errOut, "combined in one answer")
	assert.NotContains(t, errOut, "sources.files.acknowledged_because")

	code, _, errOut = runCLI(t, map[string]string{"SUTURA_CONFIG_DIR": dir, "SUTURA__GOVERNANCE__MAX_LEG_ROWS": "0"}, "validate")
	require.NotEqual(t, exitOK, code)
	assert.Contains(t, errOut, "governance.max_leg_rows")
}

package compose

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/cli/internal/config"
	"sutura.dev/domain"
)

// shop is the small catalogue and data the command line's tests use.
const (
	shopCatalog = "../cmd/sutura/testdata/shop"
	shopData    = "../cmd/sutura/testdata/shop-data"
)

// copyTree copies a directory into a fresh temporary one.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	require.NoError(t, os.CopyFS(dst, os.DirFS(src)))
	return dst
}

// configEnv writes a base.yaml serving catalogue over the shop data, with
// extra YAML appended, and returns the environment that names it.
func configEnv(t *testing.T, catalogue, extra string) map[string]string {
	t.Helper()
	return configEnvData(t, catalogue, shopData, extra)
}

// configEnvData is configEnv over the data directory data.
func configEnvData(t *testing.T, catalogue, data, extra string) map[string]string {
	t.Helper()
	cat, err := filepath.Abs(catalogue)
	require.NoError(t, err)
	data, err = filepath.Abs(data)
	require.NoError(t, err)
	dir := t.TempDir()
	base := "catalogs:\n  - {name: shop, kind: markdown, dir: " + cat + ", version: v1}\n" +
		"security: {identity: single-user}\n" +
		"sources:\n  files: {kind: files, posture: shared-service-user, data_dir: " + data + "}\n" + extra
	require.NoError(t, os.WriteFile(filepath.Join(dir, "base.yaml"), []byte(base), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pgpass"), []byte("secret\n"), 0o600))
	return map[string]string{"SUTURA_CONFIG_DIR": dir}
}

// edit replaces from with to in one file of a catalogue copy.
func edit(t *testing.T, file, from, to string) {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Contains(t, string(b), from)
	require.NoError(t, os.WriteFile(file, []byte(strings.Replace(string(b), from, to, 1)), 0o600))
}

// TestOpenValidatesBeforeItHandsOutAProcess: a Go program embedding sutura
// (and `sutura mcp`, `serve`, `ask`) gets no process whose anchors do not
// reproduce or whose tables cannot be read.
func TestOpenValidatesBeforeItHandsOutAProcess(t *testing.T) {
	p, err := Open(t.Context(), configEnv(t, shopCatalog, ""), &bytes.Buffer{}, Options{})
	require.NoError(t, err)
	p.Close()

	cat := copyTree(t, shopCatalog)
	edit(t, filepath.Join(cat, "metrics/revenue.md"), `value: "890"`, `value: "891"`)
	p, err = Open(t.Context(), configEnv(t, cat, ""), &bytes.Buffer{}, Options{})
	require.Nil(t, p)
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.ErrorContains(t, err, "anchor of metric revenue: expected 891, produced 890")

	cat = copyTree(t, shopCatalog)
	edit(t, filepath.Join(cat, "models/stores.md"), "columns: [store_id, city]", "columns: [store_id, city, manager]")
	_, err = Open(t.Context(), configEnv(t, cat, ""), &bytes.Buffer{}, Options{})
	require.ErrorAs(t, err, &ve)
	assert.ErrorContains(t, err, "manager")
}

// countingKind stands in for the postgres row of the table: a source
// opens unless its alias starts with "fail", and every close is counted.
func countingKind(t *testing.T) (opened, closed *atomic.Int64) {
	t.Helper()
	opened, closed = &atomic.Int64{}, &atomic.Int64{}
	saved := sourceKinds[config.KindPostgres]
	t.Cleanup(func() { sourceKinds[config.KindPostgres] = saved })
	sourceKinds[config.KindPostgres] = sourceKind{
		open: func(_ context.Context, spec sourceSpec) (openedSource, error) {
			if strings.HasPrefix(spec.alias, "fail") {
				return openedSource{}, errors.New("cannot connect")
			}
			opened.Add(1)
			return openedSource{source: app.Source{System: &apptest.System{}, Posture: domain.SharedServiceUser},
				close: func() { closed.Add(1) }}, nil
		},
		ping: func(context.Context, sourceSpec) error { return nil },
	}
	return opened, closed
}

const fakePostgres = "{kind: postgres, posture: shared-service-user, host: 127.0.0.1, database: d, user: u, password_file: pgpass, transport_mode: plaintext}"

// TestOpenClosesWhatItOpenedWhenALaterStepFails: a source that fails to
// open, an audit file that cannot be opened and a validation that fails
// each leave no source open behind them.
func TestOpenClosesWhatItOpenedWhenALaterStepFails(t *testing.T) {
	badAnchor := copyTree(t, shopCatalog)
	edit(t, filepath.Join(badAnchor, "metrics/revenue.md"), `value: "890"`, `value: "891"`)
	for _, tc := range []struct {
		name, catalogue, extra, err string
	}{
		{"a later source fails to open", shopCatalog, "  aa: " + fakePostgres + "\n  fail: " + fakePostgres + "\n", "sources.fail: cannot connect"},
		{"the audit file cannot be opened", shopCatalog, "  aa: " + fakePostgres + "\naudit: {sink: file, file: " + filepath.Join(t.TempDir(), "missing", "audit.jsonl") + "}\n", "audit.file"},
		{"the validation fails", badAnchor, "  aa: " + fakePostgres + "\n", "anchor of metric revenue"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opened, closed := countingKind(t)
			p, err := Open(t.Context(), configEnv(t, tc.catalogue, tc.extra), &bytes.Buffer{}, Options{})
			require.Nil(t, p)
			require.ErrorContains(t, err, tc.err)
			require.Equal(t, int64(1), opened.Load())
			assert.Equal(t, opened.Load(), closed.Load(), "every source opened is closed again")
		})
	}

	opened, closed := countingKind(t)
	p, err := Open(t.Context(), configEnv(t, shopCatalog, "  aa: "+fakePostgres+"\n"), &bytes.Buffer{}, Options{})
	require.NoError(t, err)
	assert.Equal(t, int64(0), closed.Load())
	p.Close()
	assert.Equal(t, opened.Load(), closed.Load(), "Close closes the sources")
}

// TestRefreshValidatesTheNewBundlesOwnModels: a refresh that adds a model
// whose table does not exist, read by a metric with no anchor, is refused:
// the sources are checked for the new bundle's models, not for the models
// the process opened with.
func TestRefreshValidatesTheNewBundlesOwnModels(t *testing.T) {
	cat, data := copyTree(t, shopCatalog), copyTree(t, shopData)
	p, err := Open(t.Context(), configEnvData(t, cat, data, ""), &bytes.Buffer{}, Options{})
	require.NoError(t, err)
	defer p.Close()
	before := p.Catalog.Bundle().Digest()
	addRefunds(t, cat)
	err = p.Refresh(t.Context())
	require.Error(t, err)
	assert.ErrorContains(t, err, "model refunds")
	assert.Equal(t, before, p.Catalog.Bundle().Digest(), "the bundle in force keeps serving")

	require.NoError(t, os.WriteFile(filepath.Join(data, "refunds.csv"), []byte("refunded_on,amount\n2025-02-01,5\n"), 0o600))
	require.NoError(t, p.Refresh(t.Context()), "once the table exists the refresh passes")
	assert.NotEqual(t, before, p.Catalog.Bundle().Digest())
}

// TestOpenRefusesAPrivilegedRunSQLRole: with run_sql enabled, a source
// whose login role may do more than read is refused at start, naming the
// key and the source.
func TestOpenRefusesAPrivilegedRunSQLRole(t *testing.T) {
	saved := sourceKinds[config.KindPostgres]
	t.Cleanup(func() { sourceKinds[config.KindPostgres] = saved })
	role := &apptest.SQL{Privileged: errors.New("the login role is a superuser")}
	sourceKinds[config.KindPostgres] = sourceKind{open: func(context.Context, sourceSpec) (openedSource, error) {
		return openedSource{source: app.Source{System: role, Posture: domain.SharedServiceUser}, close: func() {}}, nil
	}}
	env := configEnv(t, shopCatalog, "  pg: "+fakePostgres+"\ntools: {run_sql: {enabled: true}}\n")
	_, err := Open(t.Context(), env, &bytes.Buffer{}, Options{})
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.ErrorContains(t, err, "tools.run_sql.enabled: source pg: its login role may not serve run_sql: the login role is a superuser")

	role.Privileged = nil
	p, err := Open(t.Context(), env, &bytes.Buffer{}, Options{})
	require.NoError(t, err)
	p.Close()
}

// addRefunds writes a refunds model (refunds.csv of the files source:
// refunded_on, amount) and a metric over it into the catalogue at cat.
func addRefunds(t *testing.T, cat string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(cat, "models/refunds.md"), []byte(`---
kind: model
name: refunds
source: files
table: refunds
columns: [{name: refunded_on, type: date}, {name: amount, type: integer}]
---
Refunds.
`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(cat, "metrics/refunded.md"), []byte(`---
kind: metric
name: refunded
model: refunds
measure: {simple: {aggregate: sum, column: amount}}
time_column: refunded_on
grains: [month]
dimensions: []
required_filters: []
audience: open
---
Money given back.
`), 0o600))
}

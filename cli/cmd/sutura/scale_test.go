package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app/apptest"
)

// writeScaleCatalogue writes the generated catalogue of docs/contract.md
// §14 (apptest.ScaleDefinitions: metrics over models) as markdown
// documents, with one CSV file per model holding every allowlisted value,
// and the configuration that serves it; it returns the configuration
// directory.
func writeScaleCatalogue(t testing.TB, metrics, models int) string {
	t.Helper()
	root := t.TempDir()
	catalogue, data := filepath.Join(root, "catalogue"), filepath.Join(root, "data")
	for _, d := range []string{filepath.Join(catalogue, "models"), filepath.Join(catalogue, "metrics"), data} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	defs, _ := apptest.ScaleDefinitions(metrics, models)
	for _, m := range defs.Models {
		var cols, header []string
		for _, c := range m.Columns {
			cols = append(cols, fmt.Sprintf("{name: %s, type: %s}", c.Name, c.Type))
			header = append(header, c.Name)
		}
		doc := fmt.Sprintf("---\nkind: model\nname: %s\nsource: files\ntable: %s\ncolumns: [%s]\n---\nThe rows of %s.\n",
			m.Name, m.Table, strings.Join(cols, ", "), m.Name)
		require.NoError(t, os.WriteFile(filepath.Join(catalogue, "models", m.Name+".md"), []byte(doc), 0o644))
		csv := strings.Join(header, ",") + "\n"
		for v := range 8 {
			row := []string{fmt.Sprintf("2025-%02d-01", v+1), fmt.Sprint(v + 1)}
			for _, c := range m.Columns[2:] {
				row = append(row, fmt.Sprintf("%s_%d", c.Name, v))
			}
			csv += strings.Join(row, ",") + "\n"
		}
		require.NoError(t, os.WriteFile(filepath.Join(data, m.Table+".csv"), []byte(csv), 0o644))
	}
	for _, m := range defs.Metrics {
		var dims []string
		for _, d := range m.Dimensions {
			if d.Filterable {
				dims = append(dims, fmt.Sprintf("  - {name: %s, column: %s, values: [%s]}", d.Name, d.Column, strings.Join(d.Values, ", ")))
			} else {
				dims = append(dims, fmt.Sprintf("  - {name: %s, column: %s}", d.Name, d.Column))
			}
		}
		audience := "open"
		if !m.Audience.Open() {
			audience = "{restricted: [" + strings.Join(m.Audience.Restricted, ", ") + "]}"
		}
		doc := fmt.Sprintf("---\nkind: metric\nname: %s\nmodel: %s\nmeasure:\n  simple: {aggregate: sum, column: value}\ntime_column: happened_on\n"+
			"grains: [month, year]\ndimensions:\n%s\naudience: %s\n---\n%s\n", m.Name, m.Model, strings.Join(dims, "\n"), audience, m.Description)
		require.NoError(t, os.WriteFile(filepath.Join(catalogue, "metrics", m.Name+".md"), []byte(doc), 0o644))
	}
	dir := filepath.Join(root, "config")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	base := "catalogs:\n  - {name: scale, kind: markdown, dir: " + catalogue + ", version: \"v1\"}\n" +
		"sources:\n  files: {kind: files, posture: shared-service-user, data_dir: " + data + "}\n" +
		"security: {identity: single-user}\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "base.yaml"), []byte(base), 0o600))
	return dir
}

// TestScaleCatalogueLoadsPinsAndValidates: the generated catalogue of
// 1,000 metrics over 40 models loads, pins and validates with the real
// binary's commands, and its search answers (docs/contract.md §14).
func TestScaleCatalogueLoadsPinsAndValidates(t *testing.T) {
	env := map[string]string{"SUTURA_CONFIG_DIR": writeScaleCatalogue(t, 1000, 40)}
	code, out, errOut := runCLI(t, env, "validate")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "loaded     40 models, 0 relationships, 1000 metrics")
	assert.NotContains(t, out, "warning")

	code, out, errOut = runCLI(t, env, "catalog", "--search", "refunds margin")
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `(?m)^found +[1-9][0-9]* of 1000 metrics, best first$`, out)
	defs, _ := apptest.ScaleDefinitions(1000, 40)
	code, out, _ = runCLI(t, env, "catalog", "--search", defs.Metrics[82].Name)
	require.Equal(t, exitOK, code)
	first := strings.SplitN(strings.SplitN(out, "\n\n", 2)[1], "\n", 2)[0]
	assert.Equal(t, defs.Metrics[82].Name, first)
}

// BenchmarkScaleCatalogueValidate: `sutura validate` of the generated
// 1,000-metric catalogue (load, pin, open the sources, read every
// allowlist against the data) per iteration (docs/performance.md).
func BenchmarkScaleCatalogueValidate(b *testing.B) {
	env := map[string]string{"SUTURA_CONFIG_DIR": writeScaleCatalogue(b, 1000, 40)}
	for b.Loop() {
		var out, errb strings.Builder
		if code := run(b.Context(), []string{"validate"}, streams{in: strings.NewReader(""), out: &out, err: &errb}, env); code != exitOK {
			b.Fatalf("validate: %d %s", code, errb.String())
		}
	}
}

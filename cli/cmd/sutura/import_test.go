package main

import (
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
)

var updateImports = flag.Bool("update", false, "rewrite the import goldens under testdata/import")

// The importers' fixtures, relative to this package.
const (
	dbtFixture  = "../../../adapters/import-dbt/testdata/simple_semantic_manifest"
	dbtManifest = "../../../adapters/import-dbt/testdata/semantic_manifest.json"
	cubeFixture = "../../../adapters/import-cube/testdata/schema-compiler"
	osiTPCDS    = "../../../adapters/import-osi/testdata/tpcds_semantic_model.yaml"
	osiShop     = "../../../adapters/import-osi/testdata/shop/shop.yaml"
)

// copyFixture copies a fixture directory to dir/<its base name>, replacing
// old with new in every file, and returns the copy's path.
func copyFixture(t *testing.T, src, dir string, replace ...string) string {
	t.Helper()
	dst := filepath.Join(dir, filepath.Base(src))
	r := strings.NewReplacer(replace...)
	require.NoError(t, filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if e.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), []byte(r.Replace(string(data))), 0o644)
	}))
	return dst
}

// tree reads every file under dir by slash path.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	if _, err := os.Stat(dir); err != nil {
		return out
	}
	require.NoError(t, filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	}))
	return out
}

// Each fixture imports to the committed golden documents and report, the
// same bytes on every run; what was written loads and pins with the
// catalogue loader, as it is.
func TestImportGoldens(t *testing.T) {
	for _, tc := range []struct {
		name, format string
		input        func(t *testing.T) string
		code         int
		summary      []string
		metrics      int
	}{
		{"dbt-simple-semantic-manifest", "dbt", func(t *testing.T) string {
			return copyFixture(t, dbtFixture, t.TempDir(), "$source_schema", "analytics")
		}, exitOK, []string{"metric: 16 imported, 43 refused", "semantic_model: 13 imported, 0 refused"}, 16},
		{"dbt-semantic-manifest-json", "dbt", func(*testing.T) string { return dbtManifest }, exitOK, []string{"metric: 16 imported, 43 refused"}, 16},
		{"dbt-schema-placeholder", "dbt", func(*testing.T) string { return dbtFixture }, exitFail,
			[]string{"metric: 0 imported, 59 refused", "semantic_model: 0 imported, 13 refused"}, 0},
		{"cube-schema-compiler", "cube", func(*testing.T) string { return cubeFixture }, exitOK,
			[]string{"measure: 2 imported, 10 refused", "file: 0 imported, 1 refused", "view: 0 imported, 0 refused, 2 ignored"}, 2},
		{"osi-tpcds", "osi", func(*testing.T) string { return osiTPCDS }, exitFail, []string{"metric: 0 imported, 5 refused", "dataset: 5 imported, 0 refused"}, 0},
		{"osi-shop", "ossie", func(*testing.T) string { return osiShop }, exitOK, []string{"metric: 8 imported, 6 refused", "synonyms: 2 imported, 0 refused"}, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.input(t)
			var outs [2]map[string]string
			var digests [2]string
			for i := range outs {
				out := filepath.Join(t.TempDir(), "out")
				code, stdout, stderr := runCLI(t, nil, "import", tc.format, in, out)
				require.Equal(t, tc.code, code, "stdout=%s stderr=%s", stdout, stderr)
				for _, line := range tc.summary {
					assert.Contains(t, stdout, line+"\n")
				}
				assert.Contains(t, stdout, "IMPORT-REPORT.md")
				if tc.code == exitFail {
					assert.Contains(t, stderr, "sutura: no metric could be imported")
					written := tree(t, out)
					assert.Len(t, written, 1, "without a metric only the report is written")
					assert.Contains(t, written, "IMPORT-REPORT.md")
					assert.Contains(t, stdout, "wrote 0 documents and ")
				}
				outs[i] = tree(t, out)
				if len(outs[i]) > 1 {
					b, err := mdcatalog.LoadDir(out, "import")
					require.NoError(t, err, "the output loads and pins as it is")
					assert.Len(t, b.Definitions().Metrics, tc.metrics)
					for _, m := range b.Definitions().Metrics {
						assert.Equal(t, []string{"review"}, m.Audience.Restricted, "nothing imported is visible before review")
					}
					for _, m := range b.Definitions().Models {
						assert.Equal(t, "warehouse", m.Source)
					}
					digests[i] = b.Digest()
				}
			}
			assert.Equal(t, outs[0], outs[1], "the same input gives the same bytes")
			assert.Equal(t, digests[0], digests[1], "and the same digest")

			golden := filepath.Join("testdata", "import", tc.name)
			if *updateImports {
				require.NoError(t, os.RemoveAll(golden))
				for p, text := range outs[0] {
					require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(golden, p)), 0o755))
					require.NoError(t, os.WriteFile(filepath.Join(golden, p), []byte(text), 0o644))
				}
			}
			want := tree(t, golden)
			require.NotEmpty(t, want, "no golden: run go test -run TestImportGoldens -update")
			assert.Equal(t, want, outs[0], "the output differs from %s; review the change and run go test -run TestImportGoldens -update", golden)
		})
	}
}

// Every metric of the dbt fixture appears in the report exactly once.
func TestImportReportListsEveryMetricOnce(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCLI(t, nil, "import", "dbt", dbtManifest, out)
	require.Equal(t, exitOK, code, stderr)
	report, err := os.ReadFile(filepath.Join(out, mdcatalog.ImportReportName))
	require.NoError(t, err)
	fixture, err := os.ReadFile(filepath.Join(dbtFixture, "metrics.yaml"))
	require.NoError(t, err)
	names := regexp.MustCompile(`(?m)^  name: "?([a-z0-9_]+)"?`).FindAllStringSubmatch(string(fixture), -1)
	require.Len(t, names, 59)
	metricSection := string(report)[strings.Index(string(report), "\n## metric\n"):]
	metricSection = metricSection[:strings.Index(metricSection[1:], "\n## ")+1]
	for _, n := range names {
		assert.Equal(t, 1, strings.Count(metricSection, "- `"+n[1]+"` ("), n[1])
	}
}

func TestImportOptions(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCLI(t, nil, "import", "osi", osiShop, out, "--source", "dwh", "--audience", "analysts")
	require.Equal(t, exitOK, code, stderr)
	b, err := mdcatalog.LoadDir(out, "v")
	require.NoError(t, err)
	for _, m := range b.Definitions().Models {
		assert.Equal(t, "dwh", m.Source)
	}
	for _, m := range b.Definitions().Metrics {
		assert.Equal(t, []string{"analysts"}, m.Audience.Restricted)
	}
}

func TestImportUsageAndRefusals(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	require.NoError(t, os.MkdirAll(full, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(full, "mine.txt"), []byte("mine"), 0o644))
	broken := filepath.Join(dir, "broken")
	require.NoError(t, os.MkdirAll(broken, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(broken, "models.yml"), []byte("semantic_models:\n  - name: m\n    node_relation: {schema_name: s"), 0o644))
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		inStderr string
	}{
		{"unknown format", []string{"import", "looker", osiShop, filepath.Join(dir, "a")}, exitUsage, "the format must be dbt, cube, osi or ossie"},
		{"missing output", []string{"import", "osi", osiShop}, exitUsage, "import takes exactly 3"},
		{"bad source alias", []string{"import", "osi", osiShop, filepath.Join(dir, "b"), "--source", "a-b"}, exitUsage, "--source is not an identifier"},
		{"bad audience", []string{"import", "osi", osiShop, filepath.Join(dir, "c"), "--audience", "x y"}, exitUsage, "--audience"},
		{"non-empty output", []string{"import", "osi", osiShop, full}, exitFail, "already holds files"},
		{"missing input", []string{"import", "osi", filepath.Join(dir, "nope.yaml"), filepath.Join(dir, "d")}, exitFail, "the input cannot be read"},
		{"malformed input", []string{"import", "dbt", broken, filepath.Join(dir, "e")}, exitFail, "models.yml:2: is not valid YAML or JSON"},
		{"a format's input given another format", []string{"import", "cube", osiShop, filepath.Join(dir, "f")}, exitFail, "no YAML file holds cubes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, tc.args...)
			assert.Equal(t, tc.code, code, "stdout=%s stderr=%s", stdout, stderr)
			assert.Contains(t, stderr, tc.inStderr)
			assert.True(t, strings.HasPrefix(stderr, "sutura: "), stderr)
		})
	}
	data, err := os.ReadFile(filepath.Join(full, "mine.txt"))
	require.NoError(t, err)
	assert.Equal(t, "mine", string(data), "a non-empty output is left as it was")
	for _, d := range []string{"d", "e", "f"} {
		_, err := os.Stat(filepath.Join(dir, d))
		assert.ErrorIs(t, err, fs.ErrNotExist, "nothing is written when the input cannot be read")
	}
}

// Symbolic links are never followed out of the input; a loop fails the
// import by name; a link inside the input is skipped (its target is read
// where it is).
func TestImportSymlinks(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside.yaml")
	shop, err := os.ReadFile(osiShop)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(outside, shop, 0o644))
	mk := func(name string, links map[string]string) string {
		in := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(in, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(in, "shop.yaml"), shop, 0o644))
		for l, target := range links {
			require.NoError(t, os.Symlink(target, filepath.Join(in, l)))
		}
		return in
	}
	for _, tc := range []struct {
		name     string
		in       string
		code     int
		inStderr string
	}{
		{"link out of the input", mk("out", map[string]string{"more.yaml": outside}), exitFail, "more.yaml: the input cannot be read: it is a symbolic link that leads out of the input"},
		{"relative link out", mk("rel", map[string]string{"up": ".."}), exitFail, "leads out of the input"},
		{"loop", mk("loop", map[string]string{"a.yaml": "b.yaml", "b.yaml": "a.yaml"}), exitFail, "cannot be resolved (a loop"},
		{"link inside", mk("inside", map[string]string{"again.yaml": "shop.yaml", "here": "."}), exitOK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, "import", "osi", tc.in, filepath.Join(t.TempDir(), "out"))
			assert.Equal(t, tc.code, code, "stdout=%s stderr=%s", stdout, stderr)
			assert.Contains(t, stderr, tc.inStderr)
		})
	}
}

// The reads are bounded: a file over the per-file cap and an input over
// the total cap are refused by name before they are held in memory.
func TestImportBounds(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	require.NoError(t, os.MkdirAll(big, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(big, "a.yml"), bigYAML(10<<20), 0o644))
	code, _, stderr := runCLI(t, nil, "import", "dbt", big, filepath.Join(dir, "o1"))
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr, "a.yml: the input cannot be read: it is larger than 4 MiB, the most one input file may be")

	defer func(total int64) { importTotalMax = total }(importTotalMax)
	importTotalMax = 1 << 20
	many := filepath.Join(dir, "many")
	require.NoError(t, os.MkdirAll(many, 0o755))
	for _, n := range []string{"a.yml", "b.yml", "c.yml"} {
		require.NoError(t, os.WriteFile(filepath.Join(many, n), bigYAML(400<<10), 0o644))
	}
	code, _, stderr = runCLI(t, nil, "import", "dbt", many, filepath.Join(dir, "o2"))
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr, "c.yml: the input cannot be read: the input is larger than 1 MiB in all")
}

// bigYAML is a well-formed dbt project file of about n bytes: many
// semantic models with a metric each.
func bigYAML(n int) []byte {
	var b strings.Builder
	b.WriteString("semantic_models:\n")
	var metrics strings.Builder
	metrics.WriteString("metrics:\n")
	for i := 0; b.Len()+metrics.Len() < n; i++ {
		id := "m" + strings.Repeat("x", 4) + strconv.Itoa(i)
		b.WriteString("  - name: " + id + "\n    node_relation: {schema_name: s, alias: " + id + "}\n" +
			"    defaults: {agg_time_dimension: ds}\n    entities: [{name: e" + strconv.Itoa(i) + ", type: primary, expr: id}]\n" +
			"    dimensions: [{name: ds, type: time, type_params: {time_granularity: day}}, {name: status, type: categorical}]\n" +
			"    measures: [{name: total" + strconv.Itoa(i) + ", agg: sum, expr: amount}]\n")
		metrics.WriteString("  - {name: total" + strconv.Itoa(i) + ", type: simple, type_params: {measure: total" + strconv.Itoa(i) + "}}\n")
	}
	return []byte(b.String() + metrics.String())
}

// A file just under the per-file cap is imported by the built binary with
// its peak memory far below a gigabyte, and a 10 MB file fails by name.
func TestImportLargeFileMemory(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	require.NoError(t, os.MkdirAll(in, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(in, "big.yml"), bigYAML(4<<20-64<<10), 0o644))
	cmd := exec.Command(binary(t), "import", "dbt", in, filepath.Join(dir, "out"))
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	outb, err := cmd.CombinedOutput()
	require.NoError(t, err, string(outb))
	assert.Contains(t, string(outb), "metric: ")
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		peak := ru.Maxrss * 1024 // kilobytes on Linux
		t.Logf("peak resident memory importing a 4 MiB YAML file: %d MiB", peak>>20)
		assert.Less(t, peak, int64(1<<30), "a 4 MiB file must not take a gigabyte")
	}

	require.NoError(t, os.WriteFile(filepath.Join(in, "big.yml"), bigYAML(10<<20), 0o644))
	cmd = exec.Command(binary(t), "import", "dbt", in, filepath.Join(dir, "out2"))
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	outb, err = cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, exitFail, exit.ExitCode())
	assert.Contains(t, string(outb), "larger than 4 MiB")
	assert.NotContains(t, string(outb), "panic")
}

package config

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/runtime"
)

// referencePath is docs/configuration.md, from this package's directory.
const referencePath = "../../../docs/configuration.md"

// docRow is one row of a key table in the reference.
type docRow struct {
	key, kinds, def string
}

// docTables reads the reference's key tables (a header whose first
// column is "Key") and its unsafe-combination table (first column "Key
// named").
func docTables(t *testing.T) (rows []docRow, unsafeKeys []string) {
	t.Helper()
	f, err := os.Open(referencePath)
	require.NoError(t, err)
	defer f.Close()

	code := regexp.MustCompile("^`([^`]+)`$")
	var header []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "|") {
			header = nil
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		switch {
		case header == nil:
			header = cells
			continue
		case strings.HasPrefix(cells[0], "---"):
			continue
		}
		m := code.FindStringSubmatch(cells[0])
		col := func(name string) string {
			if i := slices.Index(header, name); i >= 0 && i < len(cells) {
				return cells[i]
			}
			return ""
		}
		switch header[0] {
		case "Key":
			require.NotNil(t, m, "a key table row whose first cell is not one `key`: %s", line)
			rows = append(rows, docRow{key: m[1], kinds: col("Kinds"), def: col("Default")})
		case "Key named":
			require.NotNil(t, m, "an unsafe-combination row whose first cell is not one `key`: %s", line)
			unsafeKeys = append(unsafeKeys, m[1])
		}
	}
	require.NoError(t, sc.Err())
	return rows, unsafeKeys
}

// TestReferenceDocumentsEveryKey keeps docs/configuration.md equal to the
// keys the loader accepts: Keys walks the same yaml tags the loader does.
func TestReferenceDocumentsEveryKey(t *testing.T) {
	rows, unsafeKeys := docTables(t)
	var documented []string
	for _, r := range rows {
		documented = append(documented, r.key)
	}
	code := Keys()
	assert.ElementsMatch(t, code, documented, "docs/configuration.md and the loader disagree on the keys")

	counts := map[string]int{}
	for _, k := range documented {
		counts[k]++
		assert.Equal(t, 1, counts[k], "%s is documented twice", k)
	}

	// Every key the unsafe-combination table names is a key or a parent of keys.
	for _, k := range unsafeKeys {
		assert.True(t, slices.ContainsFunc(code, func(c string) bool { return c == k || strings.HasPrefix(c, k+".") }),
			"the unsafe-combination table names %s, which is not a key", k)
	}
}

// TestReferenceSourceKinds keeps the Kinds column equal to the table the
// loader checks.
func TestReferenceSourceKinds(t *testing.T) {
	rows, _ := docTables(t)
	seen := 0
	for _, r := range rows {
		leaf, ok := strings.CutPrefix(r.key, "sources.<alias>.")
		if !ok {
			continue
		}
		seen++
		leaf, _, _ = strings.Cut(leaf, ".")
		var kinds []SourceKind
		if r.kinds == "all" {
			kinds = allKinds
		} else {
			for _, k := range strings.Split(r.kinds, ",") {
				kinds = append(kinds, SourceKind(strings.TrimSpace(k)))
			}
		}
		assert.ElementsMatch(t, sourceKeyKinds[leaf], kinds, "kinds of %s", r.key)
	}
	assert.Equal(t, len(sourceKeyKinds), seen)
}

// TestSourceKeyTableCoversSource keeps the kind table and the Source
// struct in step, so no key escapes the per-kind check.
func TestSourceKeyTableCoversSource(t *testing.T) {
	_, names := fieldsOf(reflect.TypeFor[Source]())
	var table []string
	for k := range sourceKeyKinds {
		table = append(table, k)
	}
	assert.ElementsMatch(t, names, table)
}

// TestReferenceDefaults keeps the Default column equal to the defaults
// layer: a key with a default shows it as `value`, one without shows "—".
func TestReferenceDefaults(t *testing.T) {
	rows, _ := docTables(t)
	defs := map[string]string{}
	flattenDefaults(reflect.ValueOf(*defaults()), "", defs)
	// A default computed from the machine is described in words; the
	// defaults layer must hold exactly what the computation gives here.
	computed := map[string]struct {
		words string
		value int
	}{
		"server.max_connections": {"three quarters of the open-file limit (at least 64, at most 65536)", runtime.DefaultMaxConnections()},
	}
	for _, r := range rows {
		if c, ok := computed[r.key]; ok {
			assert.Equal(t, c.words, r.def, "default of %s", r.key)
			assert.Equal(t, strconv.Itoa(c.value), defs[r.key], "the defaults layer holds the computed default of %s", r.key)
			continue
		}
		if want, ok := defs[r.key]; ok {
			assert.Equal(t, "`"+want+"`", r.def, "default of %s", r.key)
		} else {
			assert.Equal(t, "—", r.def, "%s has no default in the code", r.key)
		}
	}
}

// flattenDefaults records the non-empty defaults of v under their keys.
func flattenDefaults(v reflect.Value, prefix string, out map[string]string) {
	t := v.Type()
	for i := range t.NumField() {
		name := yamlName(t.Field(i))
		if name == "" {
			continue
		}
		key, f := childKey(prefix, name), v.Field(i)
		switch f.Kind() {
		case reflect.Struct:
			if t.Field(i).Tag.Get("default") == "none" {
				continue // an optional section: absent means off
			}
			flattenDefaults(f, key, out)
		case reflect.String:
			if f.String() != "" {
				out[key] = f.String()
			}
		case reflect.Int, reflect.Int64:
			out[key] = strconv.FormatInt(f.Int(), 10)
		case reflect.Bool:
			out[key] = strconv.FormatBool(f.Bool())
		case reflect.Slice:
			if !f.IsNil() && f.Len() == 0 && f.Type().Elem().Kind() != reflect.Struct {
				out[key] = "[]"
			}
		}
	}
}

// TestReferenceExample loads the example at the end of the reference.
func TestReferenceExample(t *testing.T) {
	doc, err := os.ReadFile(referencePath)
	require.NoError(t, err)
	block := regexp.MustCompile("(?s)`/etc/sutura/([a-z]+\\.yaml)`:\n\n```yaml\n(.*?)```")
	files := map[string]string{
		"secrets/access-token":       "example-access-token\n",
		"secrets/warehouse-password": "example-password\n",
	}
	for _, m := range block.FindAllStringSubmatch(string(doc), -1) {
		files[m[1]] = m[2]
	}
	require.Contains(t, files, "base.yaml")
	require.Contains(t, files, "production.yaml")

	cfg, dir := mustLoad(t, files, Env{EnvEnvironment: "production", "SUTURA__RUNTIME__MAX_CONCURRENT_QUERIES": "16"})
	assert.Equal(t, Production, cfg.Environment)
	assert.Equal(t, 16, cfg.Runtime.MaxConcurrentQueries)
	assert.Equal(t, MultiUser, cfg.Security.Identity)
	assert.Equal(t, "0.0.0.0:8080", cfg.Server.Addr())
	assert.False(t, cfg.Demo())
	assert.Equal(t, filepath.Join(dir, "catalog"), cfg.Catalogs[0].Dir)
	assert.Equal(t, "2026.05", cfg.Catalogs[0].Version)
	assert.Equal(t, int64(300), int64(cfg.Catalogs[0].Refresh().Seconds()))
	wh := cfg.Sources["warehouse"]
	assert.Zero(t, wh.Port, "the port is the adapter's default")
	assert.Equal(t, map[string]string{"alice@example.com": "analyst_alice"}, wh.Impersonate)
	assert.Equal(t, []byte("example-password"), wh.Password.Reveal())
	assert.Equal(t, SinkFile, cfg.Audit.Sink)

	// Redacted is in the shape of a configuration file: loading it again
	// gives the same configuration.
	out, err := cfg.Redacted()
	require.NoError(t, err)
	again, _ := mustLoad(t, map[string]string{"base.yaml": string(out)}, Env{EnvEnvironment: "production"})
	out2, err := again.Redacted()
	require.NoError(t, err)
	body := func(b []byte) string { // the header comment names the directory, which differs
		_, rest, _ := strings.Cut(string(b), "\nserver:")
		return rest
	}
	assert.Equal(t, body(out), body(out2))
	assert.Contains(t, string(out), "# environment: production\n# configuration directory: "+dir+"\n")
	assert.True(t, again.Security.AccessToken.Equal(cfg.Security.AccessToken))
	assert.NotContains(t, string(out), "example-access-token")
	assert.NotContains(t, string(out), "example-password")
}

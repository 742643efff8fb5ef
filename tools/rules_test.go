package tools_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/tools"
)

// realRoot is the real workspace, seen from the tools folder.
const realRoot = ".."

// loaded keeps one Workspace per root, so the modules of a root are listed
// once for all the rules that read them.
var loaded sync.Map

func load(t *testing.T, root string) *tools.Workspace {
	t.Helper()
	if w, ok := loaded.Load(root); ok {
		return w.(*tools.Workspace)
	}
	w, err := tools.Load(root)
	require.NoError(t, err)
	got, _ := loaded.LoadOrStore(root, w)
	return got.(*tools.Workspace)
}

// want matches one violation: each string occurs in its text.
type want []string

// ruleCase is one workspace a rule is checked on, and the violations the
// rule must report there: none, or exactly those planted.
type ruleCase struct {
	name string
	root func(t *testing.T) string
	want []want
}

func realWorkspace(*testing.T) string { return realRoot }

func fixture(name string) func(*testing.T) string {
	return func(*testing.T) string { return filepath.Join("testdata", name) }
}

// realAndClean are the cases where every rule holds: the real workspace
// and the clean fixture, which uses every allowed kind of edge.
var realAndClean = []ruleCase{
	{name: "real workspace", root: realWorkspace},
	{name: "clean fixture", root: fixture("clean")},
}

// checkRule runs rule on each case and matches the violations one to one.
func checkRule(t *testing.T, id tools.RuleID, cases []ruleCase) {
	rule, ok := tools.RuleByID(id)
	require.True(t, ok)
	for _, tc := range slices.Concat(realAndClean, cases) {
		t.Run(tc.name, func(t *testing.T) {
			got := load(t, tc.root(t)).Check(id)
			for _, v := range got {
				assert.Equal(t, id, v.Rule)
				assert.Contains(t, v.String(), fmt.Sprintf("rule %d %s violated", id, rule.Name))
				assert.Contains(t, v.String(), "why: "+rule.Reason)
			}
			require.Equal(t, len(tc.want), len(got), "violations of rule %d:\n%s", id, tools.Report(got))
			rest := slices.Clone(got)
			for _, w := range tc.want {
				i := slices.IndexFunc(rest, func(v tools.Violation) bool {
					return !slices.ContainsFunc(w, func(s string) bool { return !strings.Contains(v.String(), s) })
				})
				if assert.GreaterOrEqual(t, i, 0, "no violation has all of %q in\n%s", w, tools.Report(got)) {
					rest = slices.Delete(rest, i, i+1)
				}
			}
		})
	}
}

func TestAllowedImports(t *testing.T) {
	checkRule(t, tools.RuleAllowedImports, []ruleCase{{
		name: "planted",
		root: fixture("imports"),
		want: []want{
			{"module semantic, package sutura.dev/semantic, file semantic/semantic.go:6",
				"imports sutura.dev/runtime (module runtime); from the workspace semantic may import only domain"},
			{"module semantic, package sutura.dev/semantic_test (tests), file semantic/semantic_test.go:6",
				"its tests import github.com/apache/arrow-go/v18/arrow"},
			{"module runtime, package sutura.dev/runtime, file runtime/runtime.go:4",
				"imports github.com/stretchr/testify/assert; third-party code allowed in runtime: golang.org/x/sync"},
			{"module exec-arrow, file exec-arrow/go.mod", "module path is sutura.dev/execarrow, want sutura.dev/exec-arrow"},
			{"module widgets", "has no rule (go.work lists it): add a rule"},
			{"module adapters/mystery", "has no rule (it has a go.mod under adapters/): add a rule"},
			{"module adapters/import-osi, package sutura.dev/adapters/import-osi, file adapters/import-osi/osi.go:8",
				"imports sutura.dev/semantic (module semantic); from the workspace adapters/import-osi may import only domain, adapters/importread"},
			{"module adapters/import-osi, package sutura.dev/adapters/import-osi, file adapters/import-osi/osi.go:5",
				"imports github.com/apache/arrow-go/v18/arrow; third-party code allowed in adapters/import-osi: go.yaml.in/yaml/v3"},
			{"module adapters/importread, package sutura.dev/adapters/importread, file adapters/importread/importread.go:8",
				"imports sutura.dev/semantic (module semantic); from the workspace adapters/importread may import only domain"},
			{"module adapters/importread, package sutura.dev/adapters/importread, file adapters/importread/importread.go:6",
				"imports github.com/apache/arrow-go/v18/arrow; third-party code allowed in adapters/importread: go.yaml.in/yaml/v3"},
			{"module adapters/postgres, package sutura.dev/adapters/postgres, file adapters/postgres/postgres.go:6",
				"imports sutura.dev/app/conformance (module app); from the workspace adapters/postgres may import only domain, semantic"},
			{"module adapters/postgres, package sutura.dev/adapters/postgres_test (tests), file adapters/postgres/postgres_test.go:7",
				"imports sutura.dev/app (module app); from the workspace adapters/postgres may import only domain, semantic"},
		},
	}})
}

func TestAdapterClasses(t *testing.T) {
	checkRule(t, tools.RuleAdapterClasses, []ruleCase{{
		name: "planted",
		root: fixture("classes"),
		want: []want{
			{"module adapters/import-dbt, package sutura.dev/adapters/import-dbt, file adapters/import-dbt/dbt.go:5",
				"adapters/import-dbt and adapters/catalog-markdown are both catalogues"},
			{"module adapters/import-cube, package sutura.dev/adapters/import-cube, file adapters/import-cube/cube.go:5",
				"adapters/import-cube and adapters/import-dbt are both catalogues"},
			{"module adapters/sqlsource, package sutura.dev/adapters/sqlsource, file adapters/sqlsource/sqlsource.go:6",
				"adapters/sqlsource is a shared library of the data systems, which import it, so it imports none of them"},
			{"module transport-mcp, package sutura.dev/transport-mcp_test (tests), file transport-mcp/mcp_test.go:6",
				"transport-mcp and transport-http are both transports"},
		},
	}})
}

func TestAppIsolation(t *testing.T) {
	checkRule(t, tools.RuleAppIsolation, []ruleCase{{
		name: "planted",
		root: fixture("app"),
		want: []want{
			{"module app, package sutura.dev/app, file app/app.go:5",
				"imports sutura.dev/adapters/catalog-markdown (module adapters/catalog-markdown), an adapter or transport"},
			{"module app, package sutura.dev/app_test (tests), file app/app_test.go:8",
				"imports sutura.dev/transport-http (module transport-http), an adapter or transport"},
		},
	}})
}

func TestDomainIsolation(t *testing.T) {
	checkRule(t, tools.RuleDomainIsolation, []ruleCase{{
		name: "planted",
		root: fixture("domain"),
		want: []want{
			{"module domain, file domain/go.mod", "requires sutura.dev/runtime, github.com/stretchr/testify; it must require nothing"},
			{"module domain, package sutura.dev/domain, file domain/domain.go:4", "imports sutura.dev/runtime (module runtime)"},
			{"module domain, package sutura.dev/domain (tests), file domain/domain_test.go:6",
				"imports github.com/stretchr/testify/assert; domain imports only the standard library"},
		},
	}})
}

func TestFileLength(t *testing.T) {
	checkRule(t, tools.RuleFileLength, []ruleCase{{
		name: "planted",
		root: bigFiles,
		want: []want{
			{"module big, file big/big.go", "1001 lines; the limit is 1000"},
			{"module big, file big/internal/testdata/huge.go", "1200 lines"},
		},
	}})
}

// bigFiles writes a workspace with files on both sides of the limit, and
// over it in the places the walk skips.
func bigFiles(t *testing.T) string {
	root := t.TempDir()
	files := map[string]string{
		"go.work":                       "go 1.26\n",
		"big/go.mod":                    "module sutura.dev/big\n\ngo 1.26\n",
		"big/big.go":                    goLines(1001, true),
		"big/exact.go":                  goLines(1000, false), // 1000 lines, the last without a newline
		"big/notes.txt":                 goLines(5000, true),  // not Go
		"big/internal/testdata/huge.go": goLines(1200, true),  // only tools/testdata is skipped
		".git/objects/huge.go":          goLines(5000, true),
		"tools/testdata/huge.go":        goLines(5000, true),
	}
	for name, text := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	return root
}

// goLines returns a Go file of n lines.
func goLines(n int, finalNewline bool) string {
	text := "package big\n" + strings.Repeat("// filler\n", n-1)
	if !finalNewline {
		text = strings.TrimSuffix(text, "\n")
	}
	return text
}

func TestPackageLength(t *testing.T) {
	checkRule(t, tools.RulePackageLength, append(slices.Clone(realAndClean), ruleCase{
		name: "planted",
		root: func(t *testing.T) string {
			root := t.TempDir()
			files := map[string]string{
				"go.work":                  "go 1.26\n",
				"big/go.mod":               "module sutura.dev/big\n\ngo 1.26\n",
				"big/a.go":                 goLines(900, true),
				"big/b.go":                 goLines(900, true),
				"big/c.go":                 goLines(900, true),
				"big/d.go":                 goLines(900, true),
				"big/e.go":                 goLines(401, true), // 4,001 lines in the package
				"big/big_test.go":          goLines(999, true), // tests do not count
				"big/fine/a.go":            goLines(999, true), // another package
				"big/fine/b.go":            goLines(999, true),
				"big/fine/c.go":            goLines(999, true),
				"big/fine/d.go":            goLines(999, true),
				"big/fine/e.go":            goLines(4, true), // exactly 4,000
				"tools/testdata/huge/a.go": goLines(999, true),
				"tools/testdata/huge/b.go": goLines(999, true),
				"tools/testdata/huge/c.go": goLines(999, true),
				"tools/testdata/huge/d.go": goLines(999, true),
				"tools/testdata/huge/e.go": goLines(999, true),
			}
			for name, text := range files {
				path := filepath.Join(root, filepath.FromSlash(name))
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
			}
			return root
		},
		want: []want{{"module big, file big", "4001 lines of non-test Go; the limit is 4000"}},
	}))
}

func TestNoInit(t *testing.T) {
	checkRule(t, tools.RuleNoInit, []ruleCase{{
		name: "planted",
		root: fixture("init"),
		want: []want{
			{"module adapters/catalog-markdown, file adapters/catalog-markdown/reader.go:7", "declares func init"},
			{"module adapters/postgres, file adapters/postgres/postgres.go:7", "declares func init"},
			{"module exec-arrow, file exec-arrow/engine_test.go:7", "declares func init"},
		},
	}})
}

func TestOneAdmissionBound(t *testing.T) {
	checkRule(t, tools.RuleOneAdmissionBound, []ruleCase{
		{
			name: "constructor renamed",
			root: fixture("admission-missing"),
			want: []want{{"module runtime, package sutura.dev/runtime", "declares no exported func NewAdmission"}},
		},
		{
			name: "never built",
			root: fixture("admission-none"),
			want: []want{{"module cli, package sutura.dev/runtime", "no non-test file refers to runtime.NewAdmission"}},
		},
		{
			name: "built twice in cli",
			root: fixture("admission-twice"),
			want: []want{{"package sutura.dev/runtime, file cli/main.go:6, cli/serve.go:6",
				"2 non-test references to runtime.NewAdmission, want exactly 1"}},
		},
		{
			name: "built outside cli",
			root: fixture("admission-outside"),
			want: []want{
				{"file app/app.go:7, runtime/default.go:4, transport-http/server.go:7", "3 non-test references"},
				{"module app, package sutura.dev/runtime, file app/app.go:7", "refers to runtime.NewAdmission outside module cli"},
				{"module runtime, package sutura.dev/runtime, file runtime/default.go:4", "outside module cli"},
				{"module transport-http, package sutura.dev/runtime, file transport-http/server.go:7", "outside module cli"},
			},
		},
	})
}

package tools_test

import (
	"flag"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/tools"
)

var update = flag.Bool("update", false, "rewrite the generated section of ../docs/architecture.md")

func TestRulesTables(t *testing.T) {
	for i, r := range tools.Rules {
		assert.Equal(t, tools.RuleID(i+1), r.ID, "rules are numbered in order")
		assert.NotEmpty(t, r.Name)
		assert.NotEmpty(t, r.Reason, "rule %s has no reason", r.Name)
		got, ok := tools.RuleByID(r.ID)
		assert.True(t, ok)
		assert.Equal(t, r, got)
	}

	folders := map[string]bool{}
	for _, r := range tools.ModuleRules {
		assert.False(t, folders[r.Folder], "two rows for module %s", r.Folder)
		folders[r.Folder] = true
		assert.NotEmpty(t, r.Reason, "module %s has no reason", r.Folder)
	}
	for _, r := range tools.ModuleRules {
		for _, m := range r.Modules {
			assert.True(t, folders[m], "module %s may import %s, which has no row", r.Folder, m)
		}
		assert.False(t, r.AnyModule && len(r.Modules) > 0, "module %s: AnyModule with a list", r.Folder)
		assert.False(t, r.AnyThirdParty && len(r.ThirdParty) > 0, "module %s: AnyThirdParty with a list", r.Folder)
	}
	domain, ok := tools.ModuleRuleFor(tools.DomainFolder)
	require.True(t, ok)
	assert.Empty(t, domain.Modules, "domain imports nothing")
	assert.Empty(t, domain.ThirdParty, "domain imports nothing")
	assert.Empty(t, domain.TestThirdParty, "domain's tests import nothing either")

	member := map[string]string{}
	for _, c := range tools.AdapterClasses {
		assert.NotEmpty(t, c.Reason, "class %s has no reason", c.Name)
		for _, m := range c.Members {
			assert.Empty(t, member[m], "%s is in two classes", m)
			member[m] = c.Name
		}
	}
	for _, p := range append(append([]string{}, tools.AppForbidden...), tools.InitFree...) {
		_, err := path.Match(p, "x")
		assert.NoError(t, err, "bad pattern %q", p)
	}
}

func TestCheckAll(t *testing.T) {
	w := load(t, filepath.Join("testdata", "clean"))
	vs := w.CheckAll()
	assert.Empty(t, vs, tools.Report(vs))

	unknown := w.Check(tools.RuleID(len(tools.Rules) + 1))
	require.Len(t, unknown, 1)
	assert.Contains(t, unknown[0].Problem, "no checker")
}

func TestLoadNeedsGoWork(t *testing.T) {
	_, err := tools.Load(t.TempDir())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "go.work")
}

// TestUnbuildableModules checks that a module the import rules cannot read
// fails them, naming the module, instead of passing for want of imports.
func TestUnbuildableModules(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		rule  tools.RuleID
		want  []string
	}{
		{
			name: "go.mod unreadable",
			files: map[string]string{
				"app/go.mod": "module sutura.dev/app\n\ngo 1.26\n\nrequire (\n",
				"app/app.go": "package app\n",
			},
			rule: tools.RuleAppIsolation,
			want: []string{"rule 3 app-isolation violated: module app, file app/go.mod: cannot read go.mod"},
		},
		{
			name: "builds only in workspace mode",
			files: map[string]string{
				"domain/go.mod":    "module sutura.dev/domain\n\ngo 1.26\n",
				"domain/domain.go": "package domain\n\n// Name names it.\nconst Name = \"domain\"\n",
				"app/go.mod":       "module sutura.dev/app\n\ngo 1.26\n", // requires nothing
				"app/app.go":       "package app\n\nimport \"sutura.dev/domain\"\n\n// Name names it.\nconst Name = domain.Name\n",
			},
			rule: tools.RuleAllowedImports,
			want: []string{
				"rule 1 allowed-imports violated: module app, file app/go.mod: does not build on its own (GOWORK=off)",
				"sutura.dev/domain: no required module provides package sutura.dev/domain",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			var use []string
			for name, text := range tc.files {
				if strings.HasSuffix(name, "/go.mod") {
					use = append(use, "./"+path.Dir(name))
				}
				p := filepath.Join(root, filepath.FromSlash(name))
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
				require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
			}
			work := "go 1.26\n\nuse (\n\t" + strings.Join(use, "\n\t") + "\n)\n"
			require.NoError(t, os.WriteFile(filepath.Join(root, "go.work"), []byte(work), 0o644))

			w, err := tools.Load(root)
			require.NoError(t, err)
			got := tools.Report(w.Check(tc.rule))
			for _, s := range tc.want {
				assert.Contains(t, got, s)
			}
		})
	}
}

// TestDocsAgreeWithRules compares the generated section of
// docs/architecture.md with the tables of rules.go; -update rewrites it.
func TestDocsAgreeWithRules(t *testing.T) {
	file := filepath.Join(realRoot, "docs", "architecture.md")
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	doc := string(data)
	before, rest, ok := strings.Cut(doc, tools.DocsBegin+"\n")
	require.True(t, ok, "%s lacks the line %s", file, tools.DocsBegin)
	section, after, ok := strings.Cut(rest, tools.DocsEnd)
	require.True(t, ok, "%s lacks the line %s", file, tools.DocsEnd)

	want := tools.RulesMarkdown()
	if *update && section != want {
		doc = before + tools.DocsBegin + "\n" + want + tools.DocsEnd + after
		require.NoError(t, os.WriteFile(file, []byte(doc), 0o644))
		return
	}
	assert.Equal(t, want, section, "docs/architecture.md is stale: run go test -update in tools")
}

package tools_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/tools"
)

// TestCitations: every comment of the real workspace that sends a reader to
// a document sends them to one the repository holds, at a section it has;
// none cites the team's private specification. A new citation of a file
// outside the repository fails here, in CI.
func TestCitations(t *testing.T) {
	got, err := tools.CheckCitations(realRoot)
	require.NoError(t, err)
	for _, c := range got {
		t.Errorf("%s", c)
	}
}

// TestCitationsPlanted: the checker finds each planted bad citation, once,
// and none of the good ones (a citation broken over two comment lines, a
// section number ending a sentence, a forbidden name inside a string).
// The planted workspace is written at test time, so that the repository
// itself holds no bad citation, not even in a fixture.
func TestCitationsPlanted(t *testing.T) {
	root := t.TempDir()
	private := "product" + ".md" // spelled apart, so no file here holds the name
	files := map[string]string{
		"docs/contract.md": "# A contract\n\n## 1. One\n\n### 1.2 One point two\n\n## 4. Four\n",
		"pkg/pkg.go": `// Package pkg plants citations: good ones (docs/contract.md §1, §1.2 as
// docs/contract.md §1.2, and docs/contract.md
// §4. at the end of a sentence), and bad ones below.
package pkg

// Bad: the private specification (` + private + ` §4.2).
var A = 1

// Bad: a section the document lacks (docs/contract.md §7).
var B = 2

// Bad: a document that does not exist (docs/missing.md).
var C = 3

/* Bad: the house style of another document (architecture.md §3.8). */
var D = 4

// Fine: the private specification's name stands in the string below,
// which is not a comment.
var E = "` + private + `"
`,
	}
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	got, err := tools.CheckCitations(root)
	require.NoError(t, err)
	var lines []string
	for _, c := range got {
		lines = append(lines, c.String())
	}
	assert.ElementsMatch(t, []string{
		"pkg/pkg.go:6: cites the team's private product specification, which is not in the repository; cite docs/ instead",
		"pkg/pkg.go:9: cites docs/contract.md §7, which has no such section",
		"pkg/pkg.go:12: cites docs/missing.md, which does not exist",
		"pkg/pkg.go:15: cites an architecture section outside docs/, which is not in the repository; cite docs/ instead",
	}, lines)
}

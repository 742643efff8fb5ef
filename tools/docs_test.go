package tools_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mdLink is the target of a Markdown link or image: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsStandOnTheirOwn: the README and everything under docs/ carry
// the contract themselves. They cite no specification outside the
// repository, and every relative link resolves to a file or directory
// inside it (web links to other projects are fine).
func TestDocsStandOnTheirOwn(t *testing.T) {
	files := []string{filepath.Join(realRoot, "README.md")}
	require.NoError(t, filepath.WalkDir(filepath.Join(realRoot, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".json")) {
			files = append(files, p)
		}
		return err
	}))
	for _, file := range files {
		rel, err := filepath.Rel(realRoot, file)
		require.NoError(t, err)
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		text := string(data)
		for _, never := range []string{"product" + ".md", "shared" + "/spec", ".." + "/shared"} { // spelled apart: no Go file here names them
			assert.NotContains(t, text, never, "%s cites a document outside the repository", rel)
		}
		// A section of an architecture document is this repository's only
		// when it is named docs/architecture.md.
		assert.NotRegexp(t, `(^|[^/A-Za-z])architecture\.md\s+§`, text, "%s cites a document outside the repository", rel)
		if !strings.HasSuffix(file, ".md") {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			resolved := filepath.Clean(filepath.Join(filepath.Dir(file), target))
			inside, err := filepath.Rel(realRoot, resolved)
			require.NoError(t, err)
			if !assert.False(t, strings.HasPrefix(inside, ".."), "%s links outside the repository: %s", rel, m[1]) {
				continue
			}
			_, err = os.Stat(resolved)
			assert.NoError(t, err, "%s links to %s, which does not exist", rel, m[1])
		}
	}
}

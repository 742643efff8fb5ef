package tools_test

import (
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
func TestCitationsPlanted(t *testing.T) {
	got, err := tools.CheckCitations(filepath.Join("testdata", "citations"))
	require.NoError(t, err)
	var lines []string
	for _, c := range got {
		lines = append(lines, c.String())
	}
	assert.ElementsMatch(t, []string{
		"pkg/pkg.go:6: cites product.md, a document outside the repository; cite docs/ instead",
		"pkg/pkg.go:9: cites docs/contract.md §7, which has no such section",
		"pkg/pkg.go:12: cites docs/missing.md, which does not exist",
		"pkg/pkg.go:15: cites architecture.md §, a document outside the repository; cite docs/ instead",
	}, lines)
}

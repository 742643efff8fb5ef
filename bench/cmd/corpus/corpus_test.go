package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// committed is the conformance corpus in the repository.
const committed = "../../../app/conformance/testdata/corpus"

// TestCorpusIsWhatTheGeneratorWrites regenerates the conformance corpus
// with DuckDB from the committed demo files and compares it, file for
// file and byte for byte, with the committed corpus: a hand edit, a case
// added without regenerating, or demo data changed without regenerating
// fails here.
func TestCorpusIsWhatTheGeneratorWrites(t *testing.T) {
	cases := allCases()
	require.NoError(t, checkNames(cases))
	files, err := generate(cases, "../../../examples/demo/data")
	require.NoError(t, err)

	paths, err := filepath.Glob(filepath.Join(committed, "*.json"))
	require.NoError(t, err)
	var have []string
	for _, p := range paths {
		have = append(have, filepath.Base(p))
	}
	var want []string
	for name := range files {
		want = append(want, name)
	}
	slices.Sort(want)
	require.Equal(t, want, have, "the committed corpus has the generator's files, no more, no fewer")
	for name, body := range files {
		got, err := os.ReadFile(filepath.Join(committed, name))
		require.NoError(t, err)
		assert.Equal(t, string(body), string(got), "%s differs from what the generator writes; regenerate it (see bench/README.md)", name)
	}
}

// TestReplaceWritesExactlyTheFiles: the corpus directory ends up holding
// the generated files and nothing else of its kind.
func TestReplaceWritesExactlyTheFiles(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "99-stale.json"), []byte("{}"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("kept"), 0o644))
	require.NoError(t, replace(dir, map[string][]byte{"01-a.json": []byte("a\n")}))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"01-a.json", "README.md"}, names)
}

package mdcatalog

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

// filesFS serves written files as a file system.
func filesFS(files []File) fstest.MapFS {
	out := fstest.MapFS{}
	for _, f := range files {
		out[f.Path] = &fstest.MapFile{Data: f.Data}
	}
	return out
}

// Every catalogue written by Documents loads back to the same content and
// digest: the minimal fixture (every kind, both referent forms), its
// reformatted twin and the demo catalogue.
func TestDocumentsRoundTrip(t *testing.T) {
	for _, dir := range []string{"testdata/minimal", "testdata/reformatted", "../../examples/demo/catalog"} {
		t.Run(dir, func(t *testing.T) {
			want, err := LoadDir(dir, "v1")
			require.NoError(t, err)
			k := *want.Knowledge()
			files, err := Documents(*want.Definitions(), k)
			require.NoError(t, err)
			got, err := Load(filesFS(files), "v1")
			require.NoError(t, err, "the written catalogue loads")
			wc, _ := want.Canonical()
			gc, _ := got.Canonical()
			assert.Equal(t, string(wc), string(gc))
			assert.Equal(t, want.Digest(), got.Digest())

			again, err := Documents(*got.Definitions(), *got.Knowledge())
			require.NoError(t, err)
			assert.Equal(t, files, again, "the same values give the same bytes")
		})
	}
}

// Text that YAML would read as something else, and prose with markup,
// survives a round trip as the exact text.
func TestDocumentsKeepAwkwardText(t *testing.T) {
	awkward := []string{"yes", "null", "~", "0012", "1e3", "- item", "a: b", "#hash", "'quoted'", "\"dq\"", "{x}", "[y]", "ümlaut ✓", "2026-01-01"}
	defs := domain.Definitions{
		Models: []domain.Model{{Name: "t", Source: "warehouse", Table: "s.t", Description: "---\nnot front matter\n---",
			Columns: []domain.ModelColumn{{Name: "d"}, {Name: "c", Type: domain.TypeText, Description: "yes"}, {Name: "b", Type: domain.TypeBoolean}}}},
		Metrics: []domain.Metric{{Name: "m", Model: "t", TimeColumn: "d", Grains: []domain.Grain{domain.Day, domain.Year},
			Measure: &domain.Measure{Simple: &domain.Term{CountIf: "b"}}, Audience: domain.Audience{Restricted: []string{"review"}},
			Dimensions:      []domain.Dimension{{Name: "c", Column: "c", Values: awkward[:14], Filterable: true, Description: "null"}},
			RequiredFilters: []domain.RequiredFilter{{Op: domain.Equals, Column: "c", Value: "yes"}, {Op: domain.IsTrue, Column: "b"}}}},
	}
	k := domain.Knowledge{Glossary: []domain.Glossary{{Term: "Net: sales", Synonyms: []string{"yes", "#1 sales"}, Means: domain.Meaning{Metric: "m", Dimension: "c", Value: "a: b"}}},
		Caveats: []domain.Caveat{{Name: "cv", About: []string{"m.c=- item", "t", "m.c"}, Note: "Read this."}}}
	want, err := domain.NewBundle("v", defs, k)
	require.NoError(t, err)
	files, err := Documents(*want.Definitions(), *want.Knowledge())
	require.NoError(t, err)
	got, err := Load(filesFS(files), "v")
	require.NoError(t, err)
	assert.Equal(t, want.Digest(), got.Digest())
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	assert.Equal(t, []string{"caveats/cv.md", "glossary/net_sales.md", "metrics/m.md", "models/t.md"}, paths)
}

func TestWriteFilesRefusesANonEmptyDirectory(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, WriteFiles(filepath.Join(dir, "new", "cat"), []File{{Path: "models/a.md", Data: []byte("x")}}))
	data, err := os.ReadFile(filepath.Join(dir, "new", "cat", "models", "a.md"))
	require.NoError(t, err)
	assert.Equal(t, "x", string(data))

	require.NoError(t, os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("mine"), 0o644))
	err = WriteFiles(dir, []File{{Path: "keep.txt", Data: []byte("theirs")}})
	require.ErrorIs(t, err, ErrOutputNotEmpty)
	data, _ = os.ReadFile(filepath.Join(dir, "keep.txt"))
	assert.Equal(t, "mine", string(data))

	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	require.NoError(t, WriteFiles(empty, nil), "an existing empty directory is fine")
	assert.Error(t, WriteFiles(filepath.Join(dir, "bad"), []File{{Path: "../escape.md"}}), "a path may not leave the directory")
}

package dbt

import (
	"io/fs"
	"os"
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"sutura.dev/adapters/importread"
)

// readDir reads every file under dir as the caller of Read would (YAML and
// JSON read, other files listed without bytes), replacing old with new in
// each file's text.
func readDir(t *testing.T, dir string, replace ...string) []importread.File {
	t.Helper()
	var files []importread.File
	root := os.DirFS(dir)
	err := fs.WalkDir(root, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		f := importread.File{Path: p}
		switch path.Ext(p) {
		case ".yml", ".yaml", ".json":
			data, err := fs.ReadFile(root, p)
			if err != nil {
				return err
			}
			f.Data = []byte(strings.NewReplacer(replace...).Replace(string(data)))
		}
		files = append(files, f)
		return nil
	})
	require.NoError(t, err)
	return files
}

// fixture is the dbt-semantic-interfaces fixture with its schema
// placeholder replaced, as the upstream test harness does.
func fixture(t *testing.T) []importread.File {
	return readDir(t, "testdata/simple_semantic_manifest", "$source_schema", "analytics")
}

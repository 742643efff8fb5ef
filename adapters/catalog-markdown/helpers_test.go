package mdcatalog

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// planted is a distinctive value the error tests write into catalogues;
// no error may ever quote it.
const planted = "ZZ-planted-77"

// fixture returns the catalogue under testdata/<dir> as a MapFS the tests
// can edit.
func fixture(t *testing.T, dir string) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	root := os.DirFS("testdata/" + dir)
	err := fs.WalkDir(root, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := fs.ReadFile(root, p)
		out[p] = &fstest.MapFile{Data: data}
		return err
	})
	require.NoError(t, err)
	return out
}

// edit returns a copy of base with files replaced, added or (for "")
// removed.
func edit(base fstest.MapFS, files map[string]string) fstest.MapFS {
	out := fstest.MapFS{}
	for p, f := range base {
		out[p] = f
	}
	for p, content := range files {
		if content == "" {
			delete(out, p)
			continue
		}
		out[p] = &fstest.MapFile{Data: []byte(content)}
	}
	return out
}

// replace returns a copy of base where old is replaced by new in file p;
// the file must contain old.
func replace(t *testing.T, base fstest.MapFS, p, old, new string) fstest.MapFS {
	t.Helper()
	f, ok := base[p]
	require.True(t, ok, "fixture file %s", p)
	require.Contains(t, string(f.Data), old, "fixture file %s", p)
	return edit(base, map[string]string{p: strings.Replace(string(f.Data), old, new, 1)})
}

// allErrors flattens the joined error Load returns into its *Errors.
func allErrors(err error) []*Error {
	var out []*Error
	var walk func(error)
	walk = func(err error) {
		var e *Error
		if errors.As(err, &e) && err == error(e) {
			out = append(out, e)
			return
		}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
		}
	}
	walk(err)
	return out
}

// lineOf returns the 1-based line of the first occurrence of marker in
// the file p of fsys.
func lineOf(t *testing.T, fsys fstest.MapFS, p, marker string) int {
	t.Helper()
	data := string(fsys[p].Data)
	i := strings.Index(data, marker)
	require.GreaterOrEqual(t, i, 0, "marker %q in %s", marker, p)
	return strings.Count(data[:i], "\n") + 1
}

package mdcatalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// copyMinimal copies the minimal catalogue into a fresh directory.
func copyMinimal(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS("testdata/minimal")))
	return dir
}

// TestLoadDirStaysInItsDirectory: a symbolic link that leads out of the
// catalogue directory — to a document or to a directory — is refused by
// name, and nothing is read through it; a link inside the directory is
// read as usual.
func TestLoadDirStaysInItsDirectory(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.md")
	require.NoError(t, os.WriteFile(secret, []byte("---\nkind: not_defined\nphrase: ZZ-canary-outside\n---\n"), 0o600))

	for name, link := range map[string]struct{ at, to string }{
		"a document":           {"knowledge/leak.md", secret},
		"a directory":          {"more", outside},
		"through a parent dir": {"up.md", "../" + filepath.Base(outside) + "/secret.md"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := copyMinimal(t)
			to := link.to
			if !filepath.IsAbs(to) {
				// Relative to the catalogue's parent, where outside lives too.
				require.NoError(t, os.Rename(dir, filepath.Join(filepath.Dir(outside), "cat-"+filepath.Base(dir))))
				dir = filepath.Join(filepath.Dir(outside), "cat-"+filepath.Base(dir))
				t.Cleanup(func() { _ = os.RemoveAll(dir) })
			}
			require.NoError(t, os.Symlink(to, filepath.Join(dir, link.at)))
			_, err := LoadDir(dir, "v1")
			require.ErrorIs(t, err, ErrOutside)
			assert.Contains(t, err.Error(), link.at+": is a symbolic link that leads out of the catalogue directory")
			assert.NotContains(t, err.Error(), "ZZ-canary-outside")
		})
	}

	dir := copyMinimal(t)
	inside := filepath.Join(dir, "models", "regions.md")
	require.NoError(t, os.Rename(inside, filepath.Join(dir, "regions.txt")))
	require.NoError(t, os.Symlink(filepath.Join("..", "regions.txt"), inside))
	want, err := LoadDir("testdata/minimal", "v1")
	require.NoError(t, err)
	got, err := LoadDir(dir, "v1")
	require.NoError(t, err, "a link that stays inside is followed")
	assert.Equal(t, want.Digest(), got.Digest())
}

// TestLoadRefusesADocumentOverOneMiB names the file and reads no more
// than the bound.
func TestLoadRefusesADocumentOverOneMiB(t *testing.T) {
	dir := copyMinimal(t)
	note := "---\nkind: not_defined\nphrase: bulk\n---\n"
	big := note + strings.Repeat("x", MaxFileBytes-len(note)+1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "knowledge", "bulk.md"), []byte(big), 0o600))
	_, err := LoadDir(dir, "v1")
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), "knowledge/bulk.md: is larger than 1048576 bytes (1 MiB)")

	_, err = Load(os.DirFS(dir), "v1")
	require.ErrorIs(t, err, ErrTooLarge, "whatever the file system")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "knowledge", "bulk.md"), []byte(big[:MaxFileBytes]), 0o600))
	_, err = LoadDir(dir, "v1")
	assert.NotErrorIs(t, err, ErrTooLarge, "exactly the bound is not too large")
}

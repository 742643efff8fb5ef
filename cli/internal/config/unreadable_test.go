//go:build unix

package config

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRefusedUnreadableSecret: a secret file the process may not read is
// refused as "permission denied", naming the key and the layer, never the
// path or the content. Root reads every file whatever its mode, so under
// root (as CI runs) the test runs itself again as nobody; it never skips.
func TestRefusedUnreadableSecret(t *testing.T) {
	if os.Geteuid() == 0 {
		runAsNobody(t, "TestRefusedUnreadableSecret")
		return
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"base.yaml": "security:\n  access_token_file: locked\n", "locked": planted})
	require.NoError(t, os.Chmod(filepath.Join(dir, "locked"), 0))
	_, err := Load(Env{EnvConfigDir: dir})
	requireRefusal(t, err, dir, refusal{key: "security.access_token_file", layer: "base.yaml", at: ":2:22", also: "permission denied"})
}

// nobody is the user and group id the child process runs as.
const nobody = 65534

// runAsNobody runs the test called name in a child process of this test
// binary with the user and group ids of nobody and no supplementary
// groups, and fails unless the child ran that test and it passed. The
// binary is copied to a directory nobody may enter, since go test's build
// directory is root's alone.
func runAsNobody(t *testing.T, name string) {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	dir, err := os.MkdirTemp("", "sutura-as-nobody-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	tmp := filepath.Join(dir, "tmp")
	require.NoError(t, os.Mkdir(tmp, 0o700))
	require.NoError(t, os.Chown(tmp, nobody, nobody))
	require.NoError(t, os.Chmod(dir, 0o755))
	bin := filepath.Join(dir, "config.test")
	copyExecutable(t, self, bin)

	cmd := exec.Command(bin, "-test.run", "^"+name+"$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + tmp, "HOME=" + tmp}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s as nobody (uid %d):\n%s", name, nobody, out)
	require.Contains(t, string(out), "--- PASS: "+name+" ", "the child did not run %s:\n%s", name, out)
	require.NotContains(t, string(out), "--- SKIP", "the child skipped:\n%s", out)
	t.Logf("%s ran as nobody (uid %d) and passed", name, nobody)
}

func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	require.NoError(t, err)
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(dst, src)
	require.NoError(t, err)
	require.NoError(t, dst.Close())
	require.NoError(t, os.Chmod(to, 0o755))
}

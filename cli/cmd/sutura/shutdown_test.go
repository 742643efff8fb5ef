package main

import (
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShutdownLetsInFlightQuestionsFinishThenCancels serves a demo of 4
// million generated orders from CSV, whose first question takes seconds
// (the cold read). A SIGTERM while it runs: with a long grace the question
// finishes and is answered; with a grace of one second it is cancelled and
// the process exits right after the grace.
func TestShutdownLetsInFlightQuestionsFinishThenCancels(t *testing.T) {
	if testing.Short() {
		t.Skip("NOT RUN: -short skips generating 4 million rows")
	}
	data := t.TempDir()
	gen := exec.Command("go", "run", "./examples/demo/gen", "--rows", "4000000", "--format", "csv", "--out", data)
	gen.Dir = "../../.."
	gen.Env = append(os.Environ(), "GOWORK=")
	out, err := gen.CombinedOutput()
	require.NoError(t, err, string(out))
	catalog := withoutAnchors(t, "../../../examples/demo/catalog")

	run := func(grace int) (status int, reqErr error, exitAfter time.Duration) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "base.yaml"), []byte(
			"catalogs:\n  - {name: demo, kind: markdown, dir: "+catalog+", version: big}\n"+
				"sources:\n  demo: {kind: files, posture: shared-service-user, data_dir: "+data+"}\n"+
				"security: {identity: single-user}\n"), 0o600))
		s := serve(t, "SUTURA_CONFIG_DIR="+dir, "SUTURA__RUNTIME__SHUTDOWN_GRACE_SECONDS="+strconv.Itoa(grace))
		type result struct {
			status int
			err    error
		}
		done := make(chan result, 1)
		go func() {
			resp, err := http.Post(s.base+"/v1/query", "application/json", strings.NewReader(`{"metrics":["gross_sales"],"grain":"month","range":{"start":"2024-01-01","end":"2026-07-01"},"dimensions":["channel"]}`))
			if err != nil {
				done <- result{err: err}
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			done <- result{status: resp.StatusCode}
		}()
		time.Sleep(300 * time.Millisecond)
		signalled := time.Now()
		require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
		waited := make(chan error, 1)
		go func() { waited <- s.cmd.Wait() }()
		select {
		case err := <-waited:
			require.NoError(t, err, s.stderr.String())
		case <-time.After(time.Duration(grace+20) * time.Second):
			t.Fatal("serve did not exit")
		}
		exitAfter = time.Since(signalled)
		r := <-done
		return r.status, r.err, exitAfter
	}

	status, err, after := run(30)
	require.NoError(t, err, "with a long grace the in-flight question is answered")
	assert.Equal(t, 200, status)
	t.Logf("grace 30 s: answered, exited %v after SIGTERM", after)

	_, err, after = run(1)
	assert.Error(t, err, "after a one-second grace the question is cancelled and its connection closed")
	assert.Less(t, after, 5*time.Second, "the process exits right after the grace")
	t.Logf("grace 1 s: cancelled, exited %v after SIGTERM", after)
}

// withoutAnchors copies a catalogue without its anchors: they describe the
// committed demo data, not data generated at another size, and serve
// re-runs them before it listens.
func withoutAnchors(t *testing.T, src string) string {
	dst := t.TempDir()
	require.NoError(t, os.CopyFS(dst, os.DirFS(src)))
	require.NoError(t, filepath.WalkDir(dst, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var keep []string
		skipping := false
		for _, line := range strings.Split(string(b), "\n") {
			switch {
			case strings.HasPrefix(line, "anchor:"):
				skipping = true
				continue
			case skipping && strings.HasPrefix(line, " "):
				continue
			}
			skipping = false
			keep = append(keep, line)
		}
		return os.WriteFile(path, []byte(strings.Join(keep, "\n")), 0o600)
	}))
	return dst
}

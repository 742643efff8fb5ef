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
// million generated orders from CSV and asks eight cold questions at once:
// each streams the whole file, so together they take seconds on two cores
// however fast one alone is. A SIGTERM while they run: with a long grace
// they finish and are answered; with a grace of one second they are
// cancelled and the process exits right after the grace.
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

	const questions = 8
	run := func(grace int) (statuses []int, reqErrs []error, exitAfter time.Duration) {
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
		done := make(chan result, questions)
		for range questions {
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
		}
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
		for range questions {
			r := <-done
			statuses, reqErrs = append(statuses, r.status), append(reqErrs, r.err)
		}
		return statuses, reqErrs, exitAfter
	}

	statuses, errs, after := run(30)
	for i := range statuses {
		require.NoError(t, errs[i], "with a long grace the in-flight questions are answered")
		assert.Equal(t, 200, statuses[i])
	}
	t.Logf("grace 30 s: answered, exited %v after SIGTERM", after)

	_, errs, after = run(1)
	cancelled := 0
	for _, err := range errs {
		if err != nil {
			cancelled++
		}
	}
	assert.Positive(t, cancelled, "after a one-second grace the questions still running are cancelled and their connections closed")
	assert.Less(t, after, 5*time.Second, "the process exits right after the grace")
	t.Logf("grace 1 s: %d of %d cancelled, exited %v after SIGTERM", cancelled, questions, after)
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

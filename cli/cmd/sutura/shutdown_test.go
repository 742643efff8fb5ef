package main

import (
	"fmt"
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

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/adapters/postgres/pgtest"
	"sutura.dev/examples/demo"
)

// TestShutdownLetsInFlightQuestionsFinishThenCancels serves the demo from
// a real Postgres whose orders table is a view that sleeps before it yields
// its rows, so a question is in flight for as long as the test needs,
// whatever the machine's speed. A SIGTERM while it runs: with a long grace
// the question (a three-second pause) finishes and is answered; with a
// grace of one second the question (now a sixty-second pause, so its end
// cannot be the pause running out) is cancelled at the database, the
// process exits right after the grace, and no statement is left running.
func TestShutdownLetsInFlightQuestionsFinishThenCancels(t *testing.T) {
	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	d := pgtest.New(t)
	d.Load(t, demo.Data(), b.Definitions().Models)
	d.Exec(t, `ALTER TABLE orders RENAME TO orders_data`)
	pause := func(seconds int) {
		d.Exec(t, fmt.Sprintf(`CREATE OR REPLACE VIEW orders AS SELECT o.* FROM orders_data o CROSS JOIN (SELECT pg_sleep(%d)) AS pause`, seconds))
	}
	pause(0) // serve reads each time column's newest day before it listens
	pc := d.Config(demo.SourceAlias, nil)
	catalog := withoutAnchors(t, "../../../examples/demo/catalog")
	active := activeStatements(t, d, "orders")

	run := func(grace, seconds int) (status int, reqErr, exitErr error, exitAfter time.Duration) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "pgpass"), pc.Password, 0o600))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "base.yaml"), []byte(fmt.Sprintf(`catalogs:
  - {name: demo, kind: markdown, dir: %s, version: slow}
sources:
  demo: {kind: postgres, posture: shared-service-user, host: %s, port: %d, database: %s, user: %s, password_file: pgpass, transport_mode: plaintext}
security: {identity: single-user}
`, catalog, pc.Host, pc.Port, pc.Database, pc.User)), 0o600))
		s := serve(t, "SUTURA_CONFIG_DIR="+dir, "SUTURA__RUNTIME__SHUTDOWN_GRACE_SECONDS="+strconv.Itoa(grace))
		pause(seconds)
		type result struct {
			status int
			err    error
		}
		done := make(chan result, 1)
		go func() {
			resp, err := http.Post(s.base+"/v1/query", "application/json", strings.NewReader(year2025))
			if err != nil {
				done <- result{err: err}
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			done <- result{status: resp.StatusCode}
		}()
		require.Eventually(t, func() bool { return active() > 0 }, 10*time.Second, 20*time.Millisecond,
			"the question is running at the database before the signal")
		signalled := time.Now()
		require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
		waited := make(chan error, 1)
		go func() { waited <- s.cmd.Wait() }()
		select {
		case exitErr = <-waited:
		case <-time.After(time.Duration(grace+20) * time.Second):
			t.Fatal("serve did not exit")
		}
		exitAfter = time.Since(signalled)
		r := <-done
		return r.status, r.err, exitErr, exitAfter
	}

	status, err, exitErr, after := run(30, 3)
	require.NoError(t, err, "with a long grace the in-flight question is answered")
	assert.Equal(t, 200, status)
	assert.NoError(t, exitErr, "every request finished within the grace: exit 0")
	t.Logf("grace 30 s: answered, exited %v after SIGTERM", after)

	_, err, exitErr, after = run(1, 60)
	assert.Error(t, err, "after a one-second grace the question is cancelled and its connection closed")
	var ee *exec.ExitError
	if assert.ErrorAs(t, exitErr, &ee, "requests were cancelled: the exit status says so") {
		assert.Equal(t, exitFail, ee.ExitCode())
	}
	assert.Less(t, after, 2500*time.Millisecond, "the process exits right after the grace")
	assert.Eventually(t, func() bool { return active() == 0 }, 5*time.Second, 20*time.Millisecond,
		"the cancelled statement does not go on running at the database (its pause is 60 s)")
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

package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSpawnerReportsTheChildsOwnPeak: with 256 MiB resident in this
// process, a child started directly reports this process's peak as its
// own (the reason for the spawner), and one started through the spawner
// reports its own, a few MiB; the spawner passes the exit code on.
func TestSpawnerReportsTheChildsOwnPeak(t *testing.T) {
	if _, err := os.Stat("/bin/true"); err != nil {
		t.Fatalf("/bin/true: %v", err)
	}
	spawner, err := buildSpawner(context.Background(), config{work: t.TempDir(), repo: filepath.Join("..", "..", "..")})
	require.NoError(t, err)
	held := make([]byte, 256<<20)
	for i := 0; i < len(held); i += 4096 {
		held[i] = 1
	}
	direct := exec.Command("/bin/true")
	require.NoError(t, direct.Run())
	inherited := direct.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024
	assert.Greater(t, inherited, int64(256<<20), "a child started directly reports this process's peak")

	cmd := exec.Command("/bin/true")
	report, err := measured(spawner, cmd)
	require.NoError(t, err)
	require.NoError(t, cmd.Run())
	s, err := report()
	require.NoError(t, err)
	assert.Positive(t, s.peak)
	assert.Less(t, s.peak, int64(16<<20), "through the spawner, the child's own peak")
	assert.False(t, s.end.Before(s.start))

	fail := exec.Command("/bin/sh", "-c", "exit 3")
	report, err = measured(spawner, fail)
	require.NoError(t, err)
	var exit *exec.ExitError
	require.True(t, errors.As(fail.Run(), &exit))
	assert.Equal(t, 3, exit.ExitCode(), "the command's exit code")
	_, err = report()
	require.NoError(t, err)
	held[len(held)-1] = 2 // held until here
}

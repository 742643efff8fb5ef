package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// A child's peak resident set as wait4 reports it (ru_maxrss) is not the
// child's own on Linux: it includes the high-water mark of the address
// space it was started from, here the harness's, which holds DuckDB's
// memory once it has computed an anchor in process. So every process the
// harness measures is started by bench/cmd/spawn (built into -work), a
// program of a few MiB that reports the command's own peak, and when it
// started and ended, so that the command's times leave out spawn's start.

// spawned is what the spawner reports of a command it ran: its peak
// resident set in bytes, and when it started and ended.
type spawned struct {
	peak       int64
	start, end time.Time
}

// measured rewrites cmd (not yet started) to run through the spawner
// (the spawn binary at spawner), and returns the function that, once cmd
// has been waited for, returns what the spawner reported of it.
func measured(spawner string, cmd *exec.Cmd) (report func() (spawned, error), err error) {
	f, err := os.CreateTemp("", "compare-peak-*")
	if err != nil {
		return nil, err
	}
	name := f.Name()
	f.Close()
	cmd.Args = append([]string{spawner, name, cmd.Path}, cmd.Args[1:]...)
	cmd.Path = spawner
	return func() (spawned, error) {
		defer os.Remove(name)
		b, err := os.ReadFile(name)
		if err != nil {
			return spawned{}, err
		}
		var s spawned
		var start, end int64
		if _, err := fmt.Sscan(string(b), &s.peak, &start, &end); err != nil {
			return spawned{}, fmt.Errorf("the spawner reported nothing (%q): %w", b, err)
		}
		s.start, s.end = time.Unix(0, start), time.Unix(0, end)
		return s, nil
	}, nil
}

// buildSpawner builds bench/cmd/spawn from the workspace at c.repo into
// -work and returns its path.
func buildSpawner(ctx context.Context, c config) (string, error) {
	bin, err := filepath.Abs(filepath.Join(c.work, "spawn"))
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(c.work, 0o755); err != nil {
		return "", err
	}
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/spawn")
	build.Dir = filepath.Join(c.repo, "bench")
	build.Env = withoutGOWORK(os.Environ())
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("build the spawner in %s: %w", build.Dir, err)
	}
	return bin, nil
}

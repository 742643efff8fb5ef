// Command spawn runs a command and reports what the kernel accounted to
// it: bench/cmd/compare measures every process it times through it.
//
//	spawn REPORTFILE COMMAND [ARG...]
//
// It runs the command with its own standard streams, passes SIGTERM and
// SIGINT on to it (the command is killed should spawn die first), and
// when the command has ended writes to REPORTFILE one line: the command's
// peak resident set in bytes (ru_maxrss) and when it started and ended
// (Unix nanoseconds). It exits with the command's exit code (128 plus
// the signal's number for a command a signal ended).
//
// Why a process of its own: on Linux a child's ru_maxrss includes the
// high-water mark of the address space it was started from (os/exec
// starts children with vfork, and the kernel carries the old space's
// mark into the new program's at exec), so a child of the harness, which
// holds DuckDB's memory, would report the harness's peak as its own.
// spawn is a small program with none of the harness's libraries: what a
// command started from it inherits is spawn's own few MiB.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

func main() { os.Exit(run(os.Args[1:])) }

// run runs args[1:], reports it to the file args[0] (see the package
// documentation) and returns its exit code.
func run(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: spawn REPORTFILE COMMAND [ARG...]")
		return 2
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "spawn %s: %v\n", filepath.Base(args[1]), err)
		return 127
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	err := cmd.Wait()
	end := time.Now()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		line := fmt.Sprintf("%d %d %d\n", ru.Maxrss*1024, start.UnixNano(), end.UnixNano())
		if werr := os.WriteFile(args[0], []byte(line), 0o600); werr != nil {
			fmt.Fprintf(os.Stderr, "spawn: %v\n", werr)
		}
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return exit.ExitCode()
	}
	if err != nil {
		return 1
	}
	return 0
}

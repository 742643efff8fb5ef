package main

import (
	"bytes"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"sutura.dev/testtier"
)

// requireTerminal skips the test (NOT RUN) where no pseudo-terminal can be
// opened, or fails it when SUTURA_REQUIRE_TIERS lists readme (CI, on
// Linux, always can).
func requireTerminal(t *testing.T) {
	t.Helper()
	ctl, term, err := openPTY()
	if err != nil {
		testtier.Need(t, "readme", "no pseudo-terminal: "+err.Error())
	}
	ctl.Close()
	term.Close()
}

// onTerminal is a started process whose standard error is a terminal.
type onTerminal struct {
	cmd  *exec.Cmd
	done chan struct{}
	buf  bytes.Buffer
}

// startOnTerminal starts cmd with its standard error on a fresh
// pseudo-terminal; Wait returns what it wrote there.
func startOnTerminal(t *testing.T, cmd *exec.Cmd) *onTerminal {
	t.Helper()
	ctl, term, err := openPTY()
	require.NoError(t, err)
	cmd.Stderr = term
	p := &onTerminal{cmd: cmd, done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		ctl.Close()
		term.Close()
		require.NoError(t, err)
	}
	term.Close() // the process holds it now; the reader ends when it exits
	go func() {
		defer close(p.done)
		defer ctl.Close()
		_, _ = io.Copy(&p.buf, ctl) // ends with EIO once no process holds the terminal
	}()
	return p
}

// Wait waits for the process and returns its exit error and what it wrote
// on the terminal, without the carriage returns the terminal adds.
func (p *onTerminal) Wait() (stderr string, err error) {
	err = p.cmd.Wait()
	<-p.done
	return strings.ReplaceAll(p.buf.String(), "\r\n", "\n"), err
}

// runOnTerminal runs cmd with its standard error on a terminal.
func runOnTerminal(t *testing.T, cmd *exec.Cmd) (stderr string, err error) {
	t.Helper()
	return startOnTerminal(t, cmd).Wait()
}

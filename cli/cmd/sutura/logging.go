package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"sutura.dev/app"
	"sutura.dev/cli/internal/config"
	"sutura.dev/runtime"
)

// newLogger is the log of a serving command in the configured format
// (log.format): every line the process logs goes through it, so standard
// error holds one format.
func newLogger(cfg *config.Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	if cfg.Log.Format == config.LogJSON {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// auditFileName is the file under the state directory that receives the
// audit records a terminal would otherwise show.
const auditFileName = "audit.jsonl"

// stateDir is sutura's directory for state it keeps between runs:
// $XDG_STATE_HOME/sutura, or ~/.local/state/sutura.
func stateDir(env config.Env) (string, error) {
	if d := env["XDG_STATE_HOME"]; filepath.IsAbs(d) {
		return filepath.Join(d, "sutura"), nil
	}
	home := env["HOME"]
	if !filepath.IsAbs(home) {
		return "", fmt.Errorf("neither XDG_STATE_HOME nor HOME is an absolute directory")
	}
	return filepath.Join(home, ".local", "state", "sutura"), nil
}

// terminalAudit is where the audit records of a command go when no layer
// set audit.sink and standard error is a terminal: a file under the state
// directory, so the person at the terminal sees answers, not records
// (docs/operations.md). It returns nil when the records go to the
// configured sink. say is told, once, where they went: when the file is
// created, or when it cannot be opened and the records fall back to
// standard error.
func terminalAudit(inv *invocation, cfg *config.Config, say func(msg string, args ...any)) app.AuditSink {
	if cfg.Audit.SinkChosen || cfg.Audit.Sink != config.SinkStderr || !isTerminal(inv.io.err) {
		return nil
	}
	dir, err := stateDir(inv.env)
	if err == nil {
		err = os.MkdirAll(dir, 0o700)
	}
	path := filepath.Join(dir, auditFileName)
	_, statErr := os.Stat(path)
	var w *runtime.AuditWriter
	if err == nil {
		w, err = runtime.OpenAuditFile(path)
	}
	if err != nil {
		say("audit records go to standard error: the audit file under the state directory cannot be opened (set audit.sink and audit.file to choose a place)", "error", err)
		return nil
	}
	if statErr != nil {
		say("audit records go to a file, not to this terminal (audit.sink and audit.file choose another place)", "file", path)
	}
	return w
}

// plainSay writes a notice of the command line: one "sutura: " line, the
// values of its attributes after the message.
func plainSay(w io.Writer) func(msg string, args ...any) {
	return func(msg string, args ...any) {
		line := "sutura: " + msg
		for i := 1; i < len(args); i += 2 {
			line += fmt.Sprintf(": %v", args[i])
		}
		fmt.Fprintln(w, line)
	}
}

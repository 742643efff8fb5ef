package main

import (
	"context"
	"time"

	"sutura.dev/cli/compose"
	"sutura.dev/cli/internal/config"
	"sutura.dev/domain"
)

// The composition root is package compose; these helpers bind it to one
// invocation's environment and streams.

type (
	setup   = compose.Setup
	process = compose.Process
)

// loadConfig reads the layered configuration and, when none is given, says
// once on stderr that the embedded demo is in use.
func loadConfig(inv *invocation) (*config.Config, error) {
	return compose.LoadConfig(inv.env, inv.io.err)
}

// config0 reads the configuration without announcing the demo: for
// commands that read no catalogue.
func config0(inv *invocation) (*config.Config, error) { return config.Load(inv.env) }

// load reads the configuration and pins the catalogue it names.
func load(inv *invocation) (*setup, error) { return compose.Load(inv.env, inv.io.err) }

// open builds the process for the commands that answer questions.
func open(inv *invocation) (*process, error) {
	return compose.Open(inv.ctx, inv.env, inv.io.err, compose.Options{})
}

// withRequestTimeout bounds a command's whole wait as a transport bounds a
// caller's.
func withRequestTimeout(ctx context.Context, cfg *config.Config) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, cfg.Server.RequestTimeout())
}

// today is the server's current date, in UTC.
func today() domain.Date { return domain.DateFromTime(time.Now().UTC()) }

var readFileLimited = compose.ReadFileLimited

package main

import (
	"context"
	"log/slog"
	"strings"
	engine "sutura.dev/exec-arrow"
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

// open builds the process for the commands that answer questions one at a
// time (ask, query): one-shot (compose.Options.OneShot), so no background
// fill or deferred check runs; every value a question reads is still
// parsed as it is read. The sources are readied for q, its one question
// (nil: none), and the anchors together (compose.Options.Question). Its
// notices are plain "sutura: " lines.
func open(inv *invocation, q *domain.Question) (*process, error) {
	s, err := load(inv)
	if err != nil {
		return nil, err
	}
	tuneCollector(s.Config)
	return compose.OpenSetup(inv.ctx, s, inv.io.err, compose.Options{
		UnchosenAudit: terminalAudit(inv, s.Config, plainSay(inv.io.err)),
		OneShot:       true,
		Question:      q,
	})
}

// tuneCollector sets the Go collector for a process that opens the
// catalogue's sources (serve, mcp, ask, query, validate): the soft memory
// limit keeps the heap under the documented ceiling, and a small heap is
// not collected every few megabytes (engine.TuneCollector;
// docs/operations.md, "Memory under load").
func tuneCollector(cfg *config.Config) {
	engine.TuneCollector(cfg.Runtime.WorkingSetMaxBytes)
}

// openServing builds the process of a serving command (serve, mcp) from
// its configuration (with the command's flags as the highest layer): every
// line it writes on standard error goes through one logger, in the format
// log.format names. opts are completed with the logger and the audit sink.
func openServing(inv *invocation, opts compose.Options, overrides ...config.Override) (*process, *slog.Logger, error) {
	cfg, err := config.LoadWith(inv.env, overrides...)
	if err != nil {
		return nil, nil, err
	}
	logger := newLogger(cfg, inv.io.err)
	tuneCollector(cfg)
	if cfg.Demo() {
		logger.Info(strings.TrimPrefix(compose.DemoNoticeFor(cfg), "sutura: "))
	}
	b, name, err := compose.LoadBundle(cfg)
	if err != nil {
		return nil, nil, err
	}
	opts.Logger = logger
	opts.UnchosenAudit = terminalAudit(inv, cfg, logger.Info)
	p, err := compose.OpenSetup(inv.ctx, &setup{Config: cfg, Bundle: b, CatalogName: name}, inv.io.err, opts)
	if err != nil {
		return nil, nil, err
	}
	return p, logger, nil
}

// withRequestTimeout bounds a command's whole wait as a transport bounds a
// caller's.
func withRequestTimeout(ctx context.Context, cfg *config.Config) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, cfg.Server.RequestTimeout())
}

// today is the server's current date, in UTC.
func today() domain.Date { return domain.DateFromTime(time.Now().UTC()) }

var readFileLimited = compose.ReadFileLimited

// Package compose is sutura's composition root: the only place that turns
// configuration into adapters, the admission bound and the surface every
// transport calls. The sutura binary builds its process here, and so does a
// Go program that embeds sutura (an agent kernel holding sutura in
// process): there is no other way to obtain a validated, bounded sutura.
package compose

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/app"
	"sutura.dev/cli/internal/config"
	"sutura.dev/domain"
	"sutura.dev/examples/demo"
	"sutura.dev/runtime"
)

// Setup is the configuration and pinned catalogue a command runs on.
type Setup struct {
	Config *config.Config
	Bundle *domain.Bundle
	// CatalogName names the catalogue for people: its configured name, or
	// "demo".
	CatalogName string
}

// DemoNotice is said once on notice when SUTURA_CONFIG_DIR is unset;
// DemoNoticeFor says it for any configuration without a catalogue.
const DemoNotice = "sutura: no catalogue configured (SUTURA_CONFIG_DIR is unset); using the embedded demo catalogue and data, single-user, on loopback"

// DemoNoticeFor is the notice said once when cfg configures no catalogue,
// naming which case applies: SUTURA_CONFIG_DIR unset, the directory
// without base.yaml, or no catalogs in the layers read.
func DemoNoticeFor(cfg *config.Config) string {
	return "sutura: no catalogue configured (" + cfg.DemoBecause() + "); using the embedded demo catalogue and data, single-user, on loopback"
}

// LoadConfig reads the layered configuration from env (see package config)
// and, when it names no catalogue, says once on notice that the embedded
// demo is in use.
func LoadConfig(env map[string]string, notice io.Writer) (*config.Config, error) {
	cfg, err := config.Load(env)
	if err != nil {
		return nil, err
	}
	if cfg.Demo() && notice != nil {
		fmt.Fprintln(notice, DemoNoticeFor(cfg))
	}
	return cfg, nil
}

// Load reads the configuration and pins the catalogue it names.
func Load(env map[string]string, notice io.Writer) (*Setup, error) {
	cfg, err := LoadConfig(env, notice)
	if err != nil {
		return nil, err
	}
	s := &Setup{Config: cfg}
	s.Bundle, s.CatalogName, err = LoadBundle(cfg)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// LoadBundle pins the configured catalogue, or the embedded demo.
func LoadBundle(cfg *config.Config) (*domain.Bundle, string, error) {
	if cfg.Demo() {
		b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
		if err != nil {
			return nil, "", fmt.Errorf("the embedded demo catalogue does not load: %w", err)
		}
		return b, "demo", nil
	}
	if len(cfg.Catalogs) > 1 {
		return nil, "", fmt.Errorf("catalogs: more than one catalogue is configured; this version serves exactly one")
	}
	c := cfg.Catalogs[0]
	dir := c.Dir
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(cfg.Dir, dir)
	}
	b, err := mdcatalog.LoadDir(dir, c.Version)
	if err != nil {
		return nil, "", fmt.Errorf("catalogue %s: %w", c.Name, err)
	}
	return b, c.Name, nil
}

// newAdmission builds the process's one admission bound. It is the only
// call of runtime.NewAdmission in the workspace (checked in tools).
func newAdmission(cfg *config.Config) (*runtime.Admission, error) {
	return runtime.NewAdmission(runtime.AdmissionConfig{
		MaxConcurrent: cfg.Runtime.MaxConcurrentQueries,
		Timeout:       cfg.Runtime.AdmissionTimeout(),
	})
}

// Process is everything a question needs, built once and validated: the
// configuration, the pinned bundle, the opened sources, the one admission
// bound, the audit sink and the Surface over them.
type Process struct {
	*Setup
	// Catalog serves the bundle in force; Refresh swaps in a new one.
	Catalog   *app.SwappableCatalog
	Sources   map[string]app.Source
	Admission *runtime.Admission
	Surface   *app.Surface
	opened    *openedSources
	closers   []func() error
}

// Close releases what the process opened: its sources and the audit file.
func (p *Process) Close() {
	if p.opened != nil {
		p.opened.close()
	}
	for _, c := range p.closers {
		_ = c()
	}
	p.closers = nil
}

// Options adjust how Open builds a process.
type Options struct {
	// WrapAudit, when set, wraps the configured audit sink: the HTTP
	// surface counts outcomes of every transport this way. It receives the
	// process as built so far (sources and the admission bound, to read,
	// never to acquire).
	WrapAudit func(p *Process, sink app.AuditSink) (app.AuditSink, error)
	// Logger, when set, is the process's log (the surface's failures);
	// nil writes text lines to the logs writer.
	Logger *slog.Logger
	// UnchosenAudit, when set, receives the audit records when no layer
	// set audit.sink, instead of the logs writer: the command line gives
	// it a file when standard error is a terminal. The process owns it:
	// Close closes it when it is an io.Closer, also when Open fails.
	UnchosenAudit app.AuditSink
	// OneShot marks a process that answers one question and exits (ask,
	// query, validate): the embedded engine then starts no background
	// cache fill, which only a later question would use. The checks a
	// source deferred past start-up (CheckDeferred) are left to the caller.
	OneShot bool
	// Question, when set, is the one question a one-shot process will ask,
	// as the local operator: the sources are readied for it and for the
	// anchors together (app.Surface.Prepare, which readies them for the
	// anchors alone when it is nil) before the start-up validation runs
	// the anchors, so a table they read is scanned once.
	Question *domain.Question
}

// ValidationError is the start-up validation that failed (docs/contract.md
// §2.3): Err joins every failure found (a source, a table or column, an
// anchor, run_sql's login role), one per line.
type ValidationError struct {
	Err error
}

func (e *ValidationError) Error() string { return "the catalogue does not validate: " + e.Err.Error() }

func (e *ValidationError) Unwrap() error { return e.Err }

// Open builds the process configured by env and validates it before it
// returns: it pins the catalogue, opens every source, builds the admission
// bound, the audit sink (stderr, the default, writes to logs) and the
// Surface, and runs the start-up validation (app.Surface.Check: tables,
// grants, anchors, run_sql's role). logs also receives the one-line demo
// notice and the surface's log. There is no other way to obtain a
// Process: nothing unvalidated can answer.
func Open(ctx context.Context, env map[string]string, logs io.Writer, opts Options) (*Process, error) {
	s, err := Load(env, logs)
	if err != nil {
		return nil, err
	}
	return OpenSetup(ctx, s, logs, opts)
}

// OpenSetup is Open for a configuration and bundle already loaded (Load).
// When a step fails, everything opened before it is closed; a validation
// that fails is a *ValidationError.
func OpenSetup(ctx context.Context, s *Setup, logs io.Writer, opts Options) (_ *Process, err error) {
	p := &Process{Setup: s}
	if c, ok := opts.UnchosenAudit.(io.Closer); ok {
		p.closers = append(p.closers, c.Close)
	}
	defer func() {
		if err != nil {
			p.Close()
		}
	}()
	if err = checkFiles(s.Config, s.Bundle); err != nil {
		return nil, err
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(logs, nil))
	}
	if p.opened, err = openSources(ctx, s.Config, s.Bundle, logger, opts.OneShot); err != nil {
		return nil, err
	}
	p.Sources = p.opened.sources
	if p.Admission, err = newAdmission(s.Config); err != nil {
		return nil, err
	}
	var sink app.AuditSink
	switch s.Config.Audit.Sink {
	case config.SinkFile:
		w, err := runtime.OpenAuditFile(s.Config.Audit.File)
		if err != nil {
			return nil, fmt.Errorf("audit.file: %w", err)
		}
		p.closers = append(p.closers, w.Close)
		sink = w
	default:
		sink = runtime.NewAuditStream(logs)
		if opts.UnchosenAudit != nil && !s.Config.Audit.SinkChosen {
			sink = opts.UnchosenAudit
		}
	}
	if opts.WrapAudit != nil {
		if sink, err = opts.WrapAudit(p, sink); err != nil {
			return nil, err
		}
	}
	if p.Catalog, err = app.NewSwappableCatalog(s.Bundle); err != nil {
		return nil, err
	}
	combiner, err := newCombiner(ctx, s.Config, p.Sources)
	if err != nil {
		return nil, err
	}
	tracer, stopTracer, err := newTracer(ctx, s.Config)
	if err != nil {
		return nil, err
	}
	p.closers = append(p.closers, stopTracer)
	spend, closeSpend, err := newSpend(ctx, s.Config)
	if err != nil {
		return nil, err
	}
	p.closers = append(p.closers, func() error { closeSpend(); return nil })
	g := s.Config.Governance
	p.Surface, err = app.New(app.Config{
		Catalog: p.Catalog, Sources: p.Sources, Admission: p.Admission, Audit: sink,
		Combiner: combiner,
		Governance: app.Governance{LookupLegCeiling: g.LookupLegCeiling, SourceCeiling: g.SourceCeiling,
			MaxLegRows: g.MaxLegRows},
		Tools:          app.Tools(app.ToolOptions{RunSQL: s.Config.Tools.RunSQL.Enabled}),
		SQLSource:      s.Config.Tools.RunSQL.Source,
		RequestTimeout: s.Config.Server.RequestTimeout(),
		Logger:         logger,
		Tracer:         tracer,
		Spend:          spend,
	})
	if err != nil {
		return nil, err
	}
	p.Surface.Prepare(ctx, app.Caller{Principal: domain.LocalOperator, Transport: "cli"}, opts.Question)
	if err := p.Surface.Check(ctx); err != nil {
		return nil, &ValidationError{Err: err}
	}
	// The cache fills the anchors queued were held while the start ran
	// (engine.Config.HoldFills); the process is validated now.
	p.startFills()
	return p, nil
}

// ReadFileLimited reads a configured file of at most limit bytes.
func ReadFileLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errors.New("the file cannot be read")
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil || int64(len(b)) > limit {
		return nil, fmt.Errorf("the file cannot be read or is larger than %d bytes", limit)
	}
	return b, nil
}

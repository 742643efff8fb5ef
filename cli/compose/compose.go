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
	"sutura.dev/adapters/postgres"
	"sutura.dev/app"
	"sutura.dev/cli/internal/config"
	"sutura.dev/domain"
	"sutura.dev/examples/demo"
	engine "sutura.dev/exec-arrow"
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

// DemoNotice is said once on notice when no catalogue is configured.
const DemoNotice = "sutura: no catalogue configured (SUTURA_CONFIG_DIR unset or without catalogs); using the embedded demo catalogue and data, single-user, on loopback"

// LoadConfig reads the layered configuration from env (see package config)
// and, when it names no catalogue, says once on notice that the embedded
// demo is in use.
func LoadConfig(env map[string]string, notice io.Writer) (*config.Config, error) {
	cfg, err := config.Load(env)
	if err != nil {
		return nil, err
	}
	if cfg.Demo() && notice != nil {
		fmt.Fprintln(notice, DemoNotice)
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

// Process is everything a question needs, built once: the configuration,
// the pinned bundle, the opened sources, the one admission bound, the audit
// sink and the Surface over them.
type Process struct {
	*Setup
	// Catalog serves the bundle in force; Refresh swaps in a new one.
	Catalog   *app.SwappableCatalog
	Sources   map[string]app.Source
	Admission *runtime.Admission
	Surface   *app.Surface
	closers   []func() error
}

// Close releases what the process opened (the audit file).
func (p *Process) Close() {
	for _, c := range p.closers {
		_ = c()
	}
}

// Options adjust how Open builds a process.
type Options struct {
	// WrapAudit, when set, wraps the configured audit sink: the HTTP
	// surface counts outcomes of every transport this way. It receives the
	// process as built so far (sources and the admission bound, to read,
	// never to acquire).
	WrapAudit func(p *Process, sink app.AuditSink) (app.AuditSink, error)
}

// Open builds the process configured by env: it pins the catalogue, opens
// every source, builds the admission bound and the audit sink (stderr, the
// default, writes to logs) and the Surface. logs also receives the
// one-line demo notice.
func Open(ctx context.Context, env map[string]string, logs io.Writer, opts Options) (*Process, error) {
	s, err := Load(env, logs)
	if err != nil {
		return nil, err
	}
	p := &Process{Setup: s}
	if p.Sources, err = openSources(ctx, s, &p.closers); err != nil {
		p.Close()
		return nil, err
	}
	if p.Admission, err = newAdmission(s.Config); err != nil {
		return nil, err
	}
	var sink app.AuditSink
	switch s.Config.Audit.Sink {
	case config.SinkFile:
		w, err := runtime.OpenAuditFile(s.Config.Audit.File)
		if err != nil {
			return nil, err
		}
		p.closers = append(p.closers, w.Close)
		sink = w
	default:
		sink = runtime.NewAuditStream(logs)
	}
	if opts.WrapAudit != nil {
		if sink, err = opts.WrapAudit(p, sink); err != nil {
			p.Close()
			return nil, err
		}
	}
	if p.Catalog, err = app.NewSwappableCatalog(s.Bundle); err != nil {
		p.Close()
		return nil, err
	}
	p.Surface, err = app.New(app.Config{
		Catalog: p.Catalog, Sources: p.Sources, Admission: p.Admission, Audit: sink,
		Tools:          app.Tools(app.ToolOptions{RunSQL: s.Config.Tools.RunSQL.Enabled}),
		RequestTimeout: s.Config.Server.RequestTimeout(),
		Logger:         slog.New(slog.NewTextHandler(logs, nil)),
	})
	if err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// openSources opens every configured source (or the embedded demo's) with
// the models of the bundle that live on it. This table is the only place
// adapters are chosen; there is no registration by init.
func openSources(ctx context.Context, s *Setup, closers *[]func() error) (map[string]app.Source, error) {
	byAlias := map[string][]domain.Model{}
	for _, m := range s.Bundle.Definitions().Models {
		byAlias[m.Source] = append(byAlias[m.Source], m)
	}
	cfg := s.Config
	out := map[string]app.Source{}
	if cfg.Demo() {
		eng, err := engine.New(ctx, engine.Config{Source: demo.SourceAlias, Files: demo.Data(), Models: byAlias[demo.SourceAlias], WorkingSetMaxBytes: cfg.Runtime.WorkingSetMaxBytes})
		if err != nil {
			return nil, err
		}
		out[demo.SourceAlias] = app.Source{System: eng, Posture: domain.SharedServiceUser}
		return out, nil
	}
	for alias, src := range cfg.Sources {
		switch src.Kind {
		case config.KindFiles:
			eng, err := engine.New(ctx, engine.Config{Source: alias, Files: os.DirFS(src.DataDir), Models: byAlias[alias], WorkingSetMaxBytes: cfg.Runtime.WorkingSetMaxBytes})
			if err != nil {
				return nil, err
			}
			out[alias] = app.Source{System: eng, Posture: domain.Posture(src.Posture)}
		case config.KindPostgres:
			db, err := postgres.New(ctx, postgresConfig(alias, src, byAlias[alias], cfg.Runtime.MaxConcurrentQueries))
			if err != nil {
				return nil, fmt.Errorf("sources.%s: %w", alias, err)
			}
			*closers = append(*closers, func() error { db.Close(); return nil })
			out[alias] = app.Source{System: db, Posture: domain.Posture(src.Posture)}
		default:
			return nil, fmt.Errorf("sources.%s.kind: this build has no adapter for this kind of source yet", alias)
		}
	}
	return out, nil
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

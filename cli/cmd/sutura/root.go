package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/app"
	"sutura.dev/cli/internal/config"
	"sutura.dev/domain"
	"sutura.dev/examples/demo"
	engine "sutura.dev/exec-arrow"
	"sutura.dev/runtime"
)

// This file is sutura's composition root: the only place that turns
// configuration into adapters, the admission bound and (later) engines and
// transports. Every command builds what it needs through it.

// setup is the configuration and catalogue a command runs on.
type setup struct {
	cfg    *config.Config
	bundle *domain.Bundle
	// catalogName names the catalogue for people: its configured name, or
	// "demo".
	catalogName string
}

// loadConfig reads the layered configuration and, when none is given, says
// once on stderr that the embedded demo is in use.
func loadConfig(inv *invocation) (*config.Config, error) {
	cfg, err := config.Load(inv.env)
	if err != nil {
		return nil, err
	}
	if cfg.Demo() {
		fmt.Fprintln(inv.io.err, "sutura: no catalogue configured (SUTURA_CONFIG_DIR unset or without catalogs); using the embedded demo catalogue and data, single-user, on loopback")
	}
	return cfg, nil
}

// config0 reads the configuration without announcing the demo: for
// commands that read no catalogue.
func config0(inv *invocation) (*config.Config, error) { return config.Load(inv.env) }

// load reads the configuration and pins the catalogue it names.
func load(inv *invocation) (*setup, error) {
	cfg, err := loadConfig(inv)
	if err != nil {
		return nil, err
	}
	s := &setup{cfg: cfg}
	s.bundle, s.catalogName, err = loadBundle(cfg)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// loadBundle pins the configured catalogue, or the embedded demo.
func loadBundle(cfg *config.Config) (*domain.Bundle, string, error) {
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

// process is everything a question needs, built once: the configuration,
// the pinned bundle, the opened sources, the admission bound, the audit
// sink and the Surface over them.
type process struct {
	*setup
	sources map[string]app.Source
	surface *app.Surface
	closers []func() error
}

func (p *process) close() {
	for _, c := range p.closers {
		_ = c()
	}
}

// staticCatalog serves one pinned bundle.
type staticCatalog struct{ b *domain.Bundle }

func (c staticCatalog) Bundle() *domain.Bundle { return c.b }

// compose builds the process for the commands that answer questions.
func compose(inv *invocation) (*process, error) {
	s, err := load(inv)
	if err != nil {
		return nil, err
	}
	p := &process{setup: s}
	if p.sources, err = openSources(inv.ctx, s); err != nil {
		return nil, err
	}
	adm, err := newAdmission(s.cfg)
	if err != nil {
		return nil, err
	}
	var sink app.AuditSink
	switch s.cfg.Audit.Sink {
	case config.SinkFile:
		w, err := runtime.OpenAuditFile(s.cfg.Audit.File)
		if err != nil {
			return nil, err
		}
		p.closers = append(p.closers, w.Close)
		sink = w
	default:
		sink = runtime.NewAuditStream(inv.io.err)
	}
	p.surface, err = app.New(app.Config{
		Catalog: staticCatalog{s.bundle}, Sources: p.sources, Admission: adm, Audit: sink,
		RequestTimeout: s.cfg.Server.RequestTimeout(),
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// openSources opens every configured source (or the embedded demo's) with
// the models of the bundle that live on it. This table is the only place
// adapters are chosen; there is no registration by init.
func openSources(ctx context.Context, s *setup) (map[string]app.Source, error) {
	byAlias := map[string][]domain.Model{}
	for _, m := range s.bundle.Definitions().Models {
		byAlias[m.Source] = append(byAlias[m.Source], m)
	}
	out := map[string]app.Source{}
	if s.cfg.Demo() {
		eng, err := engine.New(ctx, engine.Config{Source: demo.SourceAlias, Files: demo.Data(), Models: byAlias[demo.SourceAlias], WorkingSetMaxBytes: s.cfg.Runtime.WorkingSetMaxBytes})
		if err != nil {
			return nil, err
		}
		out[demo.SourceAlias] = app.Source{System: eng, Posture: domain.SharedServiceUser}
		return out, nil
	}
	for alias, src := range s.cfg.Sources {
		switch src.Kind {
		case config.KindFiles:
			eng, err := engine.New(ctx, engine.Config{Source: alias, Files: os.DirFS(src.DataDir), Models: byAlias[alias], WorkingSetMaxBytes: s.cfg.Runtime.WorkingSetMaxBytes})
			if err != nil {
				return nil, err
			}
			out[alias] = app.Source{System: eng, Posture: domain.Posture(src.Posture)}
		default:
			return nil, fmt.Errorf("sources.%s.kind: this build has no adapter for this kind of source yet", alias)
		}
	}
	return out, nil
}

// withRequestTimeout bounds a command's whole wait as a transport bounds a
// caller's.
func withRequestTimeout(ctx context.Context, cfg *config.Config) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, cfg.Server.RequestTimeout())
}

// today is the server's current date, in UTC.
func today() domain.Date { return domain.DateFromTime(time.Now().UTC()) }

// readFileLimited reads a configured file of at most limit bytes.
func readFileLimited(path string, limit int64) ([]byte, error) {
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

package main

import (
	"fmt"
	"path/filepath"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/cli/internal/config"
	"sutura.dev/domain"
	"sutura.dev/examples/demo"
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

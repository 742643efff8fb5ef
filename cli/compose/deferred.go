package compose

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"sutura.dev/app"
	engine "sutura.dev/exec-arrow"
)

// The embedded engine defers the whole read of large text files and
// withdraws its readiness when that read fails; both abilities are found
// by type assertion, so a renamed method would silently lose them.
var (
	_ deferredChecker     = (*engine.Engine)(nil)
	_ app.ReadinessProber = (*engine.Engine)(nil)
	_ fillStarter         = (*engine.Engine)(nil)
)

// fillStarter is a data system whose background cache fills wait until
// the process's start-up validation has passed (the embedded engine: the
// fills the anchors queue would otherwise read whole tables while the
// start still runs, competing with it for the cores and the collector;
// docs/operations.md, "Start-up on large files").
type fillStarter interface{ StartFills() }

// startFills lets the sources' held cache fills begin.
func (p *Process) startFills() {
	for _, alias := range slices.Sorted(maps.Keys(p.Sources)) {
		if f, ok := p.Sources[alias].System.(fillStarter); ok {
			f.StartFills()
		}
	}
}

// deferredChecker is a data system that deferred part of its start-up
// check (the embedded engine: the whole read of large CSV and NDJSON
// files, docs/operations.md "Start-up on large files"). A failure
// withdraws what it names: the data system's app.ReadinessProber reports
// it and it fails the questions that read it.
type deferredChecker interface {
	CheckDeferred(ctx context.Context) error
	CheckPending() bool
}

// checkDeferred runs the deferred checks of sources, in alias order, and
// returns their failures joined.
func checkDeferred(ctx context.Context, sources map[string]app.Source) error {
	var errs []error
	for _, alias := range slices.Sorted(maps.Keys(sources)) {
		if c, ok := sources[alias].System.(deferredChecker); ok {
			if err := c.CheckDeferred(ctx); err != nil {
				errs = append(errs, fmt.Errorf("source %s: %w", alias, err))
			}
		}
	}
	return errors.Join(errs...)
}

// CheckDeferred runs the checks the process's sources deferred past
// start-up, now, and returns their failures joined (`sutura validate`
// reports them as validation failures).
func (p *Process) CheckDeferred(ctx context.Context) error { return checkDeferred(ctx, p.Sources) }

// CheckDeferredInBackground is CheckDeferred for a serving process, run
// after it listens: it logs when it starts and ends, and a failure as an
// error (GET /ready then answers 503 naming file, column and line, and
// questions on the withdrawn models fail as unavailable). Then it reads
// the data spans again (app.ReadSpans): a text table too large to be read
// for its span at start has one once it was read whole.
func (p *Process) CheckDeferredInBackground(ctx context.Context, logger *slog.Logger) {
	pending := false
	for _, s := range p.Sources {
		if c, ok := s.System.(deferredChecker); ok && c.CheckPending() {
			pending = true
		}
	}
	if !pending {
		return
	}
	t := time.Now()
	logger.Info("reading the rest of the text files start-up sampled, in the background")
	err := p.CheckDeferred(ctx)
	switch {
	case ctx.Err() != nil:
		return
	case err != nil:
		logger.Error("the background check of the text files failed: the models it names are withdrawn (GET /ready says which) until the process restarts", "error", err)
	default:
		logger.Info("the background check of the text files passed", "took", time.Since(t).Round(time.Millisecond))
	}
	// The whole read found the data spans of the text tables it read; a
	// refreshed bundle has its own, read by the refresh.
	if b := p.Catalog.Bundle(); b == p.Bundle {
		if spans, err := app.ReadSpans(ctx, b, p.Sources); err == nil && p.Catalog.Bundle() == b {
			p.Surface.SetSpans(b, spans)
		}
	}
}

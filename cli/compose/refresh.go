package compose

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"sutura.dev/app"
)

// Refresh re-reads the configured catalogue, pins it and validates it with
// the start-up validation against the sources opened for its own models
// (every table and declared column of the new bundle, anchors included),
// not against the models the process opened with, and the text files
// start-up would only sample read whole (its anchors prepared together,
// as at a start: app.Surface.PrepareBundle); only a bundle that
// passes is swapped in, atomically. The sources opened to validate it are
// closed again: questions keep running on the process's sources, which
// execute any plan of their source from the plan itself. The data spans of
// the new bundle are read from those sources too (app.ReadSpans). A failing refresh
// keeps the bundle in force and returns why. The embedded demo never
// changes, so it is not re-read.
func (p *Process) Refresh(ctx context.Context) error {
	if p.Config.Demo() {
		return nil
	}
	b, _, err := LoadBundle(p.Config)
	if err != nil {
		return err
	}
	if err := checkFiles(p.Config, b); err != nil {
		return err
	}
	opened, err := openSources(ctx, p.Config, b, nil, true)
	if err != nil {
		return fmt.Errorf("the refreshed catalogue's sources do not open: %w", err)
	}
	defer opened.close()
	p.Surface.PrepareBundle(ctx, b, opened.sources)
	if err := p.Surface.CheckBundle(ctx, b, opened.sources); err != nil {
		return fmt.Errorf("the refreshed catalogue does not validate: %w", err)
	}
	if err := checkDeferred(ctx, opened.sources); err != nil {
		return fmt.Errorf("the refreshed catalogue's data does not validate: %w", err)
	}
	spans, err := app.ReadSpans(ctx, b, opened.sources)
	if err != nil {
		return err
	}
	if _, err = p.Catalog.Swap(b); err != nil {
		return err
	}
	p.Surface.SetSpans(b, spans)
	return p.Surface.ReadThrough(ctx, b, opened.sources)
}

// RefreshEvery runs Refresh on the catalogue's refresh_seconds interval
// until ctx ends; it does nothing when no interval is configured. A failed
// refresh is logged and the old bundle keeps serving.
func (p *Process) RefreshEvery(ctx context.Context, logger *slog.Logger) {
	if p.Config.Demo() || p.Config.Catalogs[0].RefreshSeconds == 0 {
		return
	}
	t := time.NewTicker(p.Config.Catalogs[0].Refresh())
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			before := p.Catalog.Bundle()
			if err := p.Refresh(ctx); err != nil {
				logger.Warn("catalogue refresh failed; still serving the pinned bundle", "version", before.Version(), "digest", before.Digest(), "error", err)
				continue
			}
			if now := p.Catalog.Bundle(); now != before {
				logger.Info("catalogue re-pinned", "old_digest", before.Digest(), "new_digest", now.Digest(), "version", now.Version())
			}
		}
	}
}

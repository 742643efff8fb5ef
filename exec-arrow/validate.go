package engine

import (
	"context"
	"fmt"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/check"
)

// SampleRows is how many records of each CSV or NDJSON part Validate
// parses; the rest is read by CheckDeferred (docs/operations.md,
// "Start-up on large files").
const SampleRows = check.SampleRows

// Validate checks every model of the source: its file exists, its declared
// columns exist, and every value it reads of a column with a declared type
// parses as that type. A Parquet part answers from its footer for the
// columns whose stored type already guarantees that; its other columns
// are read once without caching them. A CSV or NDJSON part is parsed up to
// SampleRows records when every column of its model declares a type; the
// rest of it waits for CheckDeferred. The first problem is named by file,
// column and line. It is the start-up (and refresh) check of
// docs/contract.md §9.
func (e *Engine) Validate(ctx context.Context) error {
	for i := range e.cfg.Models {
		m := &e.cfg.Models[i]
		parts, days, known, err := check.Table(ctx, e.checkConfig(), m)
		if err != nil {
			return err
		}
		e.deferred.Defer(m.Name, parts, days, known)
	}
	return nil
}

// CheckDeferred reads whole the text parts Validate only sampled, once.
// A model whose read fails is withdrawn: Ready returns its failure and
// every question reading it fails as the data system being unavailable
// (domain.ErrUnavailable), until the process restarts. It returns the
// failures found, joined; nil when nothing was deferred or all parsed.
// The fills refused while it was still to run are then asked for again:
// the days it found can narrow their estimate (narrowSlots).
func (e *Engine) CheckDeferred(ctx context.Context) error {
	err := e.deferred.Run(ctx, e.checkConfig(), e.models)
	if !e.deferred.Pending() {
		e.retryFills()
	}
	return err
}

// CheckPending reports whether CheckDeferred has something left to read.
func (e *Engine) CheckPending() bool { return e.deferred.Pending() }

// Ready returns nil while every model can answer, or the failures of the
// models CheckDeferred withdrew, each naming its file, column and line
// (never a value). It is app's ReadinessProber.
func (e *Engine) Ready(context.Context) error { return e.deferred.Err() }

func (e *Engine) checkConfig() check.Config {
	return check.Config{Files: e.cfg.Files, OnRead: func() { e.cache.CountRead() }, Footers: e.footers}
}

// withdrawn is the failure of plan when it reads a model CheckDeferred
// withdrew, or nil.
func (e *Engine) withdrawn(plan *domain.Plan) error {
	for _, leg := range plan.Legs {
		models := []string{leg.Base.Model}
		for _, j := range leg.Joins {
			models = append(models, j.To.Model)
		}
		if err := e.deferred.Of(models...); err != nil {
			return fmt.Errorf("%w: files source %s: %w", domain.ErrUnavailable, e.cfg.Source, err)
		}
	}
	return nil
}

package app

import (
	"context"
	"sync/atomic"
	"time"

	"sutura.dev/domain"
)

// ThroughTeller is the optional ability of a database to tell the newest
// day a date or timestamp column of a model holds with one bounded query
// (a max over the column), for the explanation's data_through
// (docs/contract.md §16). It is asked once per model and column when the
// surface starts and when the catalogue is refreshed (ReadThrough), never
// on the question path; ok is false when the column holds no value.
type ThroughTeller interface {
	DataThrough(ctx context.Context, model, column string) (last domain.Date, ok bool, err error)
}

// ThroughTimeout bounds each ThroughTeller query.
const ThroughTimeout = 5 * time.Second

type throughKey struct{ model, column string }

// pinnedThrough are the days read for the bundle of one digest.
type pinnedThrough struct {
	digest string
	days   map[throughKey]domain.Date
}

// throughHolder holds the days of the bundle in force.
type throughHolder struct{ p atomic.Pointer[pinnedThrough] }

// ReadThrough asks every data system that can tell it (ThroughTeller) for
// the newest day of each model and time column the metrics of b use, once
// per pair, each query bounded by ThroughTimeout, and records them for b.
// What a data system cannot tell in time is absent: data_through is a help
// to the caller, never a condition of serving. Only the end of ctx is an
// error.
func (s *Surface) ReadThrough(ctx context.Context, b *domain.Bundle, sources map[string]Source) error {
	days := map[throughKey]domain.Date{}
	for _, m := range b.Definitions().Metrics {
		k := throughKey{m.Model, m.TimeColumn}
		if _, done := days[k]; done {
			continue
		}
		model, ok := b.Model(m.Model)
		if !ok {
			continue
		}
		t, ok := sources[model.Source].System.(ThroughTeller)
		if !ok {
			continue
		}
		qctx, cancel := context.WithTimeout(ctx, ThroughTimeout)
		last, ok, err := t.DataThrough(qctx, m.Model, m.TimeColumn)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err == nil && ok {
			days[k] = last
		}
	}
	s.through.p.Store(&pinnedThrough{digest: b.Digest(), days: days})
	return nil
}

// throughOf is the newest day of column of model in the bundle b: the
// data span's last day when its data system told one, else what a
// ThroughTeller told for b.
func (s *Surface) throughOf(b *domain.Bundle, model, column string) (domain.Date, bool) {
	if d, ok := s.spanOf(b, model, column); ok {
		return d.Last, true
	}
	p := s.through.p.Load()
	if p == nil || p.digest != b.Digest() {
		return 0, false
	}
	d, ok := p.days[throughKey{model, column}]
	return d, ok
}

package app

import (
	"context"
	"sync/atomic"

	"sutura.dev/app/explain"
	"sutura.dev/domain"
)

// ThroughTeller is the optional ability of a database to tell the newest
// day a date or timestamp column of a model holds with one bounded query
// (a max over the column), for the explanation's data_through
// (docs/contract.md §16). It is asked once per model and column when the
// surface starts and when the catalogue is refreshed (ReadThrough), never
// on the question path, each query bounded by explain.Timeout.
type ThroughTeller = explain.Teller

// throughHolder holds the days read for the bundle in force.
type throughHolder struct {
	p atomic.Pointer[explain.Through]
}

// ReadThrough reads, for b, the newest day of each model and time column
// from the data systems that can tell it (ThroughTeller), and records them.
// What a data system cannot tell in time is absent: data_through is a help
// to the caller, never a condition of serving. Only the end of ctx is an
// error.
func (s *Surface) ReadThrough(ctx context.Context, b *domain.Bundle, sources map[string]Source) error {
	t, err := explain.ReadThrough(ctx, b, func(source string) explain.Teller {
		teller, _ := sources[source].System.(ThroughTeller)
		return teller
	})
	if err == nil {
		s.through.p.Store(t)
	}
	return err
}

// throughOf is the newest day of column of model in b: the data span's
// last day when its data system told one, else what a ThroughTeller told.
func (s *Surface) throughOf(b *domain.Bundle, model, column string) (domain.Date, bool) {
	if d, ok := s.spanOf(b, model, column); ok {
		return d.Last, true
	}
	return s.through.p.Load().Of(b, model, column)
}

package app

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// AuditProber is the optional ability of an audit sink to say whether it
// can be written now (runtime's writers have it). Probe must be cheap
// while the sink is healthy and must not block: it is asked before every
// audited call. A sink that wraps another forwards it.
type AuditProber interface {
	Probe(ctx context.Context) error
}

// textAuditUnavailable is the detail of a call refused because the audit
// sink cannot be written.
const textAuditUnavailable = "the audit log cannot be written now, and nothing is answered unaudited; ask again later"

// auditUnavailable is the failure of a call refused before it started
// because the audit sink fails its probe; nil when the sink is healthy or
// cannot tell.
func (s *Surface) auditUnavailable(ctx context.Context) *Failure {
	p, ok := s.cfg.Audit.(AuditProber)
	if !ok {
		return nil
	}
	if err := p.Probe(ctx); err != nil {
		f := newFailure(CodeUnavailable, fmt.Errorf("the audit sink: %w", err))
		f.Detail = textAuditUnavailable
		return f
	}
	return nil
}

// ReadinessProber is the optional ability of a data system to withdraw its
// readiness after start: a check it deferred past start-up (the whole read
// of a large CSV or NDJSON file, docs/operations.md) found data it cannot
// answer from. Ready returns nil, or why, naming file, column and line and
// never a value; it must be cheap and must not block. The data system
// fails the questions that read what it withdrew itself, as unavailable
// (domain.ErrUnavailable).
type ReadinessProber interface {
	Ready(ctx context.Context) error
}

// Ready reports whether the surface can answer now: nil, or why not. It
// probes the audit sink (AuditProber), since an answer whose record cannot
// be written is never returned, the budget ledger, and every data system
// that can withdraw its readiness (ReadinessProber); GET /ready reports it.
func (s *Surface) Ready(ctx context.Context) error {
	if f := s.auditUnavailable(ctx); f != nil {
		return f
	}
	if f := s.ledgerUnavailable(ctx); f != nil {
		return f
	}
	for _, alias := range slices.Sorted(maps.Keys(s.cfg.Sources)) {
		if p, ok := s.cfg.Sources[alias].System.(ReadinessProber); ok {
			if err := p.Ready(ctx); err != nil {
				f := newFailure(CodeUnavailable, fmt.Errorf("source %s: %w", alias, err))
				f.Detail = fmt.Sprintf("source %s cannot answer every question: %s", alias, strings.ReplaceAll(err.Error(), "\n", "; "))
				return f
			}
		}
	}
	return nil
}

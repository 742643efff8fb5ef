package app

import (
	"context"
	"fmt"
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

// Ready reports whether the surface can answer now: nil, or why not. It
// probes the audit sink (AuditProber), since an answer whose record cannot
// be written is never returned; GET /ready reports it.
func (s *Surface) Ready(ctx context.Context) error {
	if f := s.auditUnavailable(ctx); f != nil {
		return f
	}
	if f := s.ledgerUnavailable(ctx); f != nil {
		return f
	}
	return nil
}

package apptest

import (
	"context"
	"sync"

	"sutura.dev/app"
	"sutura.dev/domain"
)

var (
	_ app.AuditSink   = (*Audit)(nil)
	_ app.AuditProber = (*Audit)(nil)
)

// Audit is an in-memory app.AuditSink: it keeps every record it was given,
// in order, or fails as Fail set. The zero Audit is ready to use.
type Audit struct {
	mu   sync.Mutex
	recs []domain.AuditRecord
	err  error
	// failed says a Write has failed since Fail set err, as a real sink
	// learns it: its probe fails only from then on.
	failed bool
}

// Write stores rec, or returns the failure set by Fail and stores nothing.
func (a *Audit) Write(_ context.Context, rec domain.AuditRecord) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		a.failed = true
		return a.err
	}
	a.recs = append(a.recs, rec)
	return nil
}

// Fail makes every later Write return err; nil makes them store again.
func (a *Audit) Fail(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.err = err
	a.failed = false
}

// Probe returns the failure set by Fail once a Write has met it
// (app.AuditProber), as a sink that learns of a full disk from a write.
func (a *Audit) Probe(context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.failed {
		return a.err
	}
	return nil
}

// Records returns a copy of the records stored so far.
func (a *Audit) Records() []domain.AuditRecord {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]domain.AuditRecord(nil), a.recs...)
}

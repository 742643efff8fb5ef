package apptest

import (
	"context"
	"sync"

	"sutura.dev/app"
	"sutura.dev/domain"
)

var _ app.AuditSink = (*Audit)(nil)

// Audit is an in-memory app.AuditSink: it keeps every record it was given,
// in order, or fails as Fail set. The zero Audit is ready to use.
type Audit struct {
	mu   sync.Mutex
	recs []domain.AuditRecord
	err  error
}

// Write stores rec, or returns the failure set by Fail and stores nothing.
func (a *Audit) Write(_ context.Context, rec domain.AuditRecord) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
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
}

// Records returns a copy of the records stored so far.
func (a *Audit) Records() []domain.AuditRecord {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]domain.AuditRecord(nil), a.recs...)
}

package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

	"sutura.dev/domain"
)

// AuditWriter writes audit records as JSON lines, one Write call per record,
// so concurrent records never interleave. A file-backed writer syncs every
// record to stable storage before Write returns, so a record exists for
// every response a client received.
type AuditWriter struct {
	mu   sync.Mutex
	w    io.Writer
	file *os.File // set when the writer owns a file it must sync
}

// NewAuditStream returns a writer on w (standard error by default). Records
// on a stream are not synced.
func NewAuditStream(w io.Writer) *AuditWriter { return &AuditWriter{w: w} }

// OpenAuditFile opens path for appending (creating it with mode 0600) and
// returns a writer that syncs each record.
func OpenAuditFile(path string) (*AuditWriter, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("runtime: open audit file: %w", err)
	}
	return &AuditWriter{w: f, file: f}, nil
}

// Write appends rec as one JSON line. It fails if the record could not be
// written (and, for a file, synced); the caller must then not return the
// outcome as if it had been audited.
func (a *AuditWriter) Write(_ context.Context, rec domain.AuditRecord) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("runtime: encode audit record: %w", err)
	}
	line = append(line, '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, err := a.w.Write(line); err != nil {
		return fmt.Errorf("runtime: write audit record: %w", err)
	}
	if a.file != nil {
		if err := a.file.Sync(); err != nil {
			return fmt.Errorf("runtime: sync audit record: %w", err)
		}
	}
	return nil
}

// Close closes the file of a file-backed writer.
func (a *AuditWriter) Close() error {
	if a.file == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.file.Close()
}

package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

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
	// broken is the last write's error while writes fail, nil once one
	// succeeds; lastTry is when Probe last tried the sink.
	broken  error
	lastTry time.Time
	now     func() time.Time
}

// ProbeInterval is how often Probe tries a failing sink again; between
// tries it answers with the last error, so a flood of calls costs no I/O.
const ProbeInterval = time.Second

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
	a.broken = a.append(line)
	return a.broken
}

// append writes line and, for a file, syncs it. The caller holds mu.
func (a *AuditWriter) append(line []byte) error {
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

// Probe reports whether the sink can be written now: nil while writes
// succeed. After a failed write it tries the sink again — a blank line,
// synced, which JSON-lines readers skip — at most once per ProbeInterval,
// and returns the last error until a try or a record succeeds. The
// application refuses to answer while it fails, since nothing may be
// answered unaudited, and /ready says so.
func (a *AuditWriter) Probe(context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.broken == nil {
		return nil
	}
	now := time.Now
	if a.now != nil {
		now = a.now
	}
	if t := now(); t.Sub(a.lastTry) >= ProbeInterval {
		a.lastTry = t
		if err := a.append([]byte("\n")); err != nil {
			a.broken = err
		} else {
			a.broken = nil
		}
	}
	return a.broken
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

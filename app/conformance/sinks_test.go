package conformance_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"sutura.dev/app/apptest"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
	"sutura.dev/runtime"
)

// The audit sinks of package runtime run the audit-sink suite here: runtime
// sits below app, so its own tests may not import app (the runtime module
// would then require app, which requires runtime), while app's module
// already requires runtime.

// readLines reads back the JSON lines of a stream or a file.
func readLines(t *testing.T, r io.Reader) []domain.AuditRecord {
	t.Helper()
	var out []domain.AuditRecord
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var rec domain.AuditRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("a stored line is not one whole record: %v", err)
		}
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// lockedBuffer is a stream that can be read while the sink writes to it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.b.Bytes())
}

func TestStreamSinkConforms(t *testing.T) {
	conformance.RunAuditSink(t, func(t *testing.T) conformance.AuditSinkUnderTest {
		var buf lockedBuffer
		return conformance.AuditSinkUnderTest{Sink: runtime.NewAuditStream(&buf), Stored: func(t *testing.T) []domain.AuditRecord {
			return readLines(t, bytes.NewReader(buf.bytes()))
		}}
	})
}

func TestFileSinkConforms(t *testing.T) {
	conformance.RunAuditSink(t, func(t *testing.T) conformance.AuditSinkUnderTest {
		path := filepath.Join(t.TempDir(), "audit.jsonl")
		w, err := runtime.OpenAuditFile(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = w.Close() })
		// Each record is synced before Write returns: another reader of the
		// file sees it at once, without the writer being closed.
		return conformance.AuditSinkUnderTest{Sink: w, Stored: func(t *testing.T) []domain.AuditRecord {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			return readLines(t, f)
		}}
	})
}

func TestFakeSinkConforms(t *testing.T) {
	conformance.RunAuditSink(t, func(*testing.T) conformance.AuditSinkUnderTest {
		a := &apptest.Audit{}
		return conformance.AuditSinkUnderTest{Sink: a, Stored: func(*testing.T) []domain.AuditRecord { return a.Records() }}
	})
}

package runtime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

func TestAuditFileAppendsOneLinePerRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`{"earlier":"record"}`+"\n"), 0o600))
	w, err := OpenAuditFile(path)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			assert.NoError(t, w.Write(context.Background(), domain.AuditRecord{
				Time: time.Unix(int64(i), 0).UTC(), Principal: []string{"p"}, Capability: domain.AskMetric,
				Metrics: []string{"net_sales"}, Outcome: "answer", Rows: i,
			}))
		}(i)
	}
	wg.Wait()
	require.NoError(t, w.Close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	sc := bufio.NewScanner(bytes.NewReader(b))
	require.True(t, sc.Scan())
	assert.Equal(t, `{"earlier":"record"}`, sc.Text(), "the file is appended, not truncated")
	seen := map[int]bool{}
	for sc.Scan() {
		var rec domain.AuditRecord
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rec), "every line is one whole record")
		seen[rec.Rows] = true
	}
	assert.Len(t, seen, 50)
}

func TestAuditStreamWritesJSONLines(t *testing.T) {
	var buf bytes.Buffer
	w := NewAuditStream(&buf)
	require.NoError(t, w.Write(context.Background(), domain.AuditRecord{Outcome: "refusal", Code: "metric_unknown", FilterDimensions: []string{"area"}}))
	var m map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &m))
	assert.Equal(t, "metric_unknown", m["code"])
	assert.Equal(t, []any{"area"}, m["filter_dimensions"])
	assert.NoError(t, w.Close())
}

func TestOpenAuditFileFails(t *testing.T) {
	_, err := OpenAuditFile(filepath.Join(t.TempDir(), "missing", "dir", "audit.jsonl"))
	assert.Error(t, err)
}

// flaky is a writer that fails while down is set.
type flaky struct {
	down  bool
	lines []string
}

func (f *flaky) Write(p []byte) (int, error) {
	if f.down {
		return 0, errors.New("no space left on device")
	}
	f.lines = append(f.lines, string(p))
	return len(p), nil
}

// TestAuditProbe: a healthy writer probes nil without writing; after a
// failed write the probe fails, tries the sink again at most once per
// ProbeInterval (a blank line), and succeeds once the sink writes again.
func TestAuditProbe(t *testing.T) {
	f := &flaky{}
	a := NewAuditStream(f)
	now := time.Unix(1000, 0)
	a.now = func() time.Time { return now }
	require.NoError(t, a.Probe(context.Background()))
	assert.Empty(t, f.lines, "a healthy probe writes nothing")

	f.down = true
	require.Error(t, a.Write(context.Background(), domain.AuditRecord{Outcome: "answer"}))
	require.Error(t, a.Probe(context.Background()))
	f.down = false
	require.Error(t, a.Probe(context.Background()), "tried again only after ProbeInterval")
	assert.Empty(t, f.lines)
	now = now.Add(ProbeInterval)
	require.NoError(t, a.Probe(context.Background()))
	assert.Equal(t, []string{"\n"}, f.lines)

	f.down = true
	require.Error(t, a.Write(context.Background(), domain.AuditRecord{Outcome: "answer"}))
	f.down = false
	require.NoError(t, a.Write(context.Background(), domain.AuditRecord{Outcome: "answer"}))
	require.NoError(t, a.Probe(context.Background()), "a record that is written heals the sink too")
}

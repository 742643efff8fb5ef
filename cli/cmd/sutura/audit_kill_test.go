package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAuditSurvivesSIGKILL runs `sutura serve` with the file audit sink
// under load, kills it with SIGKILL mid-stream, and checks that every
// answer and refusal a client received has its record, and that no record
// holds a rejected value.
func TestAuditSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("NOT RUN: -short skips the served-binary load test")
	}
	dir := t.TempDir()
	auditPath := filepath.Join(dir, "audit.jsonl")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "base.yaml"), []byte("audit:\n  sink: file\n  file: audit.jsonl\n"), 0o600))
	s := serve(t, "SUTURA_CONFIG_DIR="+dir)

	const canary = "Zz-Canary-Value"
	questions := []string{
		year2025,
		`{"metrics":["net_sales"],"grain":"month","range":{"start":"2025-01-01","end":"2025-04-01"},"filters":[{"op":"eq","dimension":"area","value":"` + canary + `"}]}`,
		`{"metrics":["no_such_metric"],"grain":"month","range":{"start":"2025-01-01","end":"2025-04-01"}}`,
	}
	var (
		mu       sync.Mutex
		received = map[string]int{} // correlation id → status, for every answer and refusal received
		sent     atomic.Int64
		stop     atomic.Bool
		wg       sync.WaitGroup
	)
	client := &http.Client{Timeout: 10 * time.Second}
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load() && i < 5000; i++ {
				id := fmt.Sprintf("kill-%d-%d", w, i)
				req, _ := http.NewRequest("POST", s.base+"/v1/query", strings.NewReader(questions[i%len(questions)]))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-Correlation-Id", id)
				sent.Add(1)
				resp, err := client.Do(req)
				if err != nil {
					return // the server is gone
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				var out struct {
					Outcome string `json:"outcome"`
				}
				if err != nil || json.Unmarshal(body, &out) != nil || (out.Outcome != "answer" && out.Outcome != "refusal") {
					// A failure (rate_limited, at_capacity) is not an
					// outcome to audit; back off as it asks.
					time.Sleep(20 * time.Millisecond)
					continue
				}
				mu.Lock()
				received[id] = resp.StatusCode
				mu.Unlock()
			}
		}()
	}
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(received) >= 300 }, 30*time.Second, 10*time.Millisecond)
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGKILL))
	stop.Store(true)
	wg.Wait()

	f, err := os.Open(auditPath)
	require.NoError(t, err)
	defer f.Close()
	recorded := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		assert.False(t, bytes.Contains(line, []byte(canary)), "a rejected value in an audit record")
		var rec struct {
			CorrelationID string `json:"correlation_id"`
			Outcome       string `json:"outcome"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			// Only the last line may be cut by the kill, and only if no
			// client received its response.
			continue
		}
		recorded[rec.CorrelationID] = rec.Outcome
	}
	mu.Lock()
	defer mu.Unlock()
	missing := 0
	for id, status := range received {
		if _, ok := recorded[id]; !ok {
			missing++
			t.Errorf("response %s (status %d) has no audit record", id, status)
		}
	}
	t.Logf("%d requests sent, %d responses received, %d records, %d missing", sent.Load(), len(received), len(recorded), missing)
	assert.GreaterOrEqual(t, len(received), 300)
}

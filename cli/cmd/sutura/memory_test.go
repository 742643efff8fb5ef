package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	engine "sutura.dev/exec-arrow"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memoryOverhead is the documented overhead of docs/operations.md
// ("Memory under load"): the most a `sutura serve` process's peak resident
// memory may pass runtime.working_set_max_bytes by, under any load of
// questions on the embedded engine: 320 MiB (the process itself, about
// 90 MiB, its connections and the buffers of the files questions stream)
// and a quarter of the working set (the garbage collector's headroom over
// the columns it holds).
func memoryOverhead(workingSet int64) int64 { return engine.ProcessCeiling(workingSet) - workingSet }

// TestMemoryUnderColdLoad (issue 28, fault suite): 64 callers ask 64
// different questions at once of a freshly started `sutura serve` (the
// built binary, a real HTTP socket) over the demo catalogue's files at a
// scale whose columns do not fit the working set, so the engine's ceiling
// binds: nothing is cached when they are asked. Every question is
// answered (or refused as resources_exhausted, the documented refusal of
// a question whose own working memory cannot fit), the process is alive
// afterwards (no out-of-memory kill), and its peak resident memory
// (VmHWM of /proc/<pid>/status) stays under the working set plus the
// documented overhead (memoryOverhead).
//
// The size is bounded for CI: 2 000 000 order rows (37 MB of Parquet,
// several times the working set once read into columns) under a working
// set of 128 MiB; about 40 s here. SUTURA_MEMORY_ROWS and
// SUTURA_MEMORY_WORKING_SET (bytes; 0 the default, 1 GiB) scale it, for
// the measurement in docs/operations.md. -short skips it.
func TestMemoryUnderColdLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("NOT RUN: -short skips the served-binary memory test")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("NOT RUN: this machine has no /proc/<pid>/status to read the peak resident memory from")
	}
	rows := memoryEnvInt(t, "SUTURA_MEMORY_ROWS", 2_000_000)
	workingSet := memoryEnvInt(t, "SUTURA_MEMORY_WORKING_SET", 128<<20)
	data := demoAtScale(t, rows)
	dir := t.TempDir()
	catalog := withoutAnchors(t, "../../../examples/demo/catalog") // nothing is asked before the load
	runtimeYAML := "runtime: {admission_timeout_seconds: 300}\n"
	if workingSet > 0 {
		runtimeYAML = fmt.Sprintf("runtime: {admission_timeout_seconds: 300, working_set_max_bytes: %d}\n", workingSet)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "base.yaml"), fmt.Appendf(nil, `catalogs:
  - {name: demo, kind: markdown, dir: %s, version: memory-1}
security: {identity: single-user}
server: {request_timeout_seconds: 300, rate_limit: {per_second: 100000, burst: 100000}}
sources:
  demo: {kind: files, posture: shared-service-user, data_dir: %s}
%s`, catalog, data, runtimeYAML), 0o600))
	s := serve(t, "SUTURA_CONFIG_DIR="+dir)
	pid := s.cmd.Process.Pid
	limit := int64(workingSet)
	if limit == 0 {
		limit = 1 << 30
	}

	questions := coldQuestions(t, s.base)
	require.Len(t, questions, 64)
	atStart := procStatusBytes(t, pid, "VmRSS")
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}, Timeout: 10 * time.Minute}
	var (
		mu       sync.Mutex
		outcomes = map[string]int{}
		wg       sync.WaitGroup
		ready    = make(chan struct{})
	)
	start := time.Now()
	for _, q := range questions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-ready
			resp, err := client.Post(s.base+"/v1/query", "application/json", strings.NewReader(q))
			if !assert.NoError(t, err, q) {
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			outcome := "answer"
			if resp.StatusCode != http.StatusOK {
				var failure struct {
					Code   string                // a failure
					Reason struct{ Code string } // a refusal
				}
				_ = json.Unmarshal(body, &failure)
				outcome = failure.Code + failure.Reason.Code
			}
			assert.Contains(t, []string{"answer", "resources_exhausted"}, outcome, "%s: %d %s", q, resp.StatusCode, body)
			mu.Lock()
			outcomes[outcome]++
			mu.Unlock()
		}()
	}
	close(ready)
	wg.Wait()
	elapsed := time.Since(start)

	require.NoError(t, s.cmd.Process.Signal(syscall.Signal(0)), "the process is alive after the load (no out-of-memory kill)")
	peak := procStatusBytes(t, pid, "VmHWM")
	bound := limit + memoryOverhead(limit)
	t.Logf("%d rows, working set %d MiB: 64 cold questions in %v: %v; resident %d MiB at start, peak %d MiB (bound %d MiB = working set + %d MiB)",
		rows, limit>>20, elapsed.Round(time.Millisecond), outcomes, atStart>>20, peak>>20, bound>>20, memoryOverhead(limit)>>20)
	assert.Positive(t, outcomes["answer"], "questions are answered")
	assert.LessOrEqual(t, peak, bound, "peak resident memory: the working set plus the documented overhead")
}

// memoryEnvInt is the integer in the environment variable name, or def.
func memoryEnvInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, name)
	return n
}

// demoAtScale writes the demo data set with rows order rows as Parquet
// (the demo generator, examples/demo/gen, built from this module) and
// returns its directory.
func demoAtScale(t *testing.T, rows int) string {
	t.Helper()
	dir := t.TempDir()
	gen := filepath.Join(dir, "gen")
	build := exec.Command("go", "build", "-o", gen, "sutura.dev/examples/demo/gen")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "building the demo generator: %s", out)
	data := filepath.Join(dir, "data")
	out, err = exec.Command(gen, "--rows", strconv.Itoa(rows), "--format", "parquet", "--out", data).CombinedOutput()
	require.NoError(t, err, "generating the demo data: %s", out)
	return data
}

// coldQuestions reads the catalogue of the server at base (which reads no
// data) and returns 64 different questions over it: each of the first
// sixteen metrics by month over 2025, without a dimension, by its first,
// by its second, and by both.
func coldQuestions(t *testing.T, base string) []string {
	t.Helper()
	resp, err := http.Get(base + "/v1/catalog")
	require.NoError(t, err)
	defer resp.Body.Close()
	var catalog struct {
		Metrics []struct {
			Name       string
			Dimensions []struct{ Name string }
		}
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&catalog))
	var out []string
	for _, m := range catalog.Metrics {
		if len(out) == 64 {
			break
		}
		require.GreaterOrEqual(t, len(m.Dimensions), 2, "metric %s", m.Name)
		a, b := m.Dimensions[0].Name, m.Dimensions[1].Name
		for _, dims := range [][]string{{}, {a}, {b}, {a, b}} {
			d, _ := json.Marshal(dims)
			out = append(out, fmt.Sprintf(`{"metrics":[%q],"grain":"month","range":{"start":"2025-01-01","end":"2026-01-01"},"dimensions":%s}`, m.Name, d))
		}
	}
	return out
}

// procStatusBytes reads the field (VmRSS, VmHWM) of /proc/<pid>/status,
// in bytes.
func procStatusBytes(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			require.NoError(t, err, line)
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// BenchmarkHTTPQueryLoad drives `sutura serve` (the built binary, on the
// demo) with 64 concurrent connections posting /v1/query for
// SUTURA_LOAD_SECONDS seconds (default 30), then reports throughput,
// p50/p99 latency and the statuses seen, and reads the admission
// high-water mark from /metrics: it fails if anything but answers and
// at_capacity came back, or if more than max_concurrent_queries ever
// executed at once.
//
//	go test -run '^$' -bench HTTPQueryLoad -benchtime 1x ./cli/cmd/sutura
func BenchmarkHTTPQueryLoad(b *testing.B) {
	seconds := 30
	if v, err := strconv.Atoi(os.Getenv("SUTURA_LOAD_SECONDS")); err == nil && v > 0 {
		seconds = v
	}
	dir := b.TempDir()
	require.NoError(b, os.WriteFile(filepath.Join(dir, "metrics"), []byte("load-metrics-token\n"), 0o600))
	require.NoError(b, os.WriteFile(filepath.Join(dir, "base.yaml"), []byte(
		"server: {rate_limit: {per_second: 100000, burst: 100000}}\nsecurity: {metrics_token_file: metrics}\naudit: {sink: file, file: audit.jsonl}\n"), 0o600))
	bin := benchBinary(b)
	for range b.N {
		s := serveBinary(b, bin, "SUTURA_CONFIG_DIR="+dir)
		const conns = 64
		transport := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}
		client := &http.Client{Transport: transport, Timeout: time.Minute}
		var (
			mu       sync.Mutex
			lat      []time.Duration
			statuses = map[int]int{}
			wg       sync.WaitGroup
		)
		deadline := time.Now().Add(time.Duration(seconds) * time.Second)
		start := time.Now()
		for range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(deadline) {
					t0 := time.Now()
					resp, err := client.Post(s+"/v1/query", "application/json", strings.NewReader(`{"metrics":["net_sales"],"grain":"month","dimensions":["area"],"range":{"start":"2025-01-01","end":"2026-01-01"}}`))
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					d := time.Since(t0)
					mu.Lock()
					statuses[resp.StatusCode]++
					if resp.StatusCode == 200 {
						lat = append(lat, d)
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		slices.Sort(lat)
		for code, n := range statuses {
			if code != 200 && code != 503 {
				b.Errorf("%d responses with status %d", n, code)
			}
		}
		require.NotEmpty(b, lat)
		peak, capacity := admissionGauges(b, s)
		if peak > capacity {
			b.Errorf("%v questions executed at once; the bound is %v", peak, capacity)
		}
		b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "answers/s")
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(statuses[503]), "at_capacity")
		b.ReportMetric(peak, "peak-in-flight")
	}
}

func admissionGauges(b *testing.B, base string) (peak, capacity float64) {
	req, _ := http.NewRequest("GET", base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer load-metrics-token")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(b, err)
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			continue
		}
		v, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "sutura_admission_in_flight_peak":
			peak = v
		case "sutura_admission_capacity":
			capacity = v
		}
	}
	require.Positive(b, capacity, "the admission gauges are exported")
	return peak, capacity
}

// benchBinary builds the binary for a benchmark.
func benchBinary(b *testing.B) string {
	bin := filepath.Join(b.TempDir(), "sutura")
	out, err := execCommand("go", "build", "-o", bin, ".")
	require.NoError(b, err, out)
	return bin
}

// serveBinary starts `bin serve` and returns its base URL; it is stopped
// when the benchmark ends.
func serveBinary(b *testing.B, bin string, env ...string) string {
	cmd := newCommand(bin, "serve")
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "SUTURA__SERVER__PORT=0"}, env...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(b, err)
	require.NoError(b, cmd.Start())
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(b, err)
	return strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
}

package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	dir := httpLoadConfig(b, 0)
	for range b.N {
		s := serve(b, "SUTURA_CONFIG_DIR="+dir)
		deadline := time.Now().Add(time.Duration(seconds) * time.Second)
		r := runHTTPLoad(b, s.base, 64, func() bool { return time.Now().Before(deadline) })
		r.check(b, false)
		b.ReportMetric(float64(len(r.lat))/r.elapsed.Seconds(), "answers/s")
		b.ReportMetric(float64(r.lat[len(r.lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(r.lat[len(r.lat)*99/100].Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(r.statuses[atCapacity]), "at_capacity")
		b.ReportMetric(r.peak, "peak-in-flight")
	}
}

// TestHTTPQueryLoad is BenchmarkHTTPQueryLoad's assertions on a short
// load: rounds of 160 questions from 16 connections to the built binary
// under a bound of 2, until the admission high-water mark reaches the
// bound (so the bound is under test; on a busy machine questions this
// quick seldom overlap, hence up to 10 rounds). Only answers and
// at_capacity come back, and the mark never passes the bound.
func TestHTTPQueryLoad(t *testing.T) {
	s := serve(t, "SUTURA_CONFIG_DIR="+httpLoadConfig(t, 2))
	const rounds, perRound = 10, 160
	for round := 1; round <= rounds; round++ {
		var left atomic.Int64
		left.Store(perRound)
		r := runHTTPLoad(t, s.base, 16, func() bool { return left.Add(-1) >= 0 })
		r.check(t, round == rounds)
		require.Equal(t, perRound, r.statuses[answered]+r.statuses[atCapacity], "every request got an answer or at_capacity: %v", r.statuses)
		if r.peak == r.capacity {
			t.Logf("the bound of %v was reached in round %d", r.capacity, round)
			return
		}
	}
}

// The outcomes a load may see; any other is counted under its status and
// code, and fails the check.
const (
	answered   = "200"
	atCapacity = "503 at_capacity"
)

// httpLoadConfig writes a configuration directory for a load: a metrics
// token to read the admission gauges with, a rate limit no load reaches,
// a file audit and, when maxConcurrent is positive, that admission bound.
func httpLoadConfig(tb testing.TB, maxConcurrent int) string {
	dir := tb.TempDir()
	require.NoError(tb, os.WriteFile(filepath.Join(dir, "metrics"), []byte("load-metrics-token\n"), 0o600))
	yaml := "server: {rate_limit: {per_second: 100000, burst: 100000}}\nsecurity: {metrics_token_file: metrics}\naudit: {sink: file, file: audit.jsonl}\n"
	if maxConcurrent > 0 {
		yaml += "runtime: {max_concurrent_queries: " + strconv.Itoa(maxConcurrent) + "}\n"
	}
	require.NoError(tb, os.WriteFile(filepath.Join(dir, "base.yaml"), []byte(yaml), 0o600))
	return dir
}

// httpLoadResult is what one HTTP load saw.
type httpLoadResult struct {
	lat            []time.Duration // of the answers, sorted
	statuses       map[string]int  // by answered, atCapacity or "<status> <code>"
	elapsed        time.Duration
	peak, capacity float64 // the admission gauges after the load
}

// runHTTPLoad posts the load question to base's /v1/query from conns
// connections for as long as more says so, then reads the admission
// gauges.
func runHTTPLoad(tb testing.TB, base string, conns int, more func() bool) httpLoadResult {
	transport := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}
	client := &http.Client{Transport: transport, Timeout: time.Minute}
	r := httpLoadResult{statuses: map[string]int{}}
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	start := time.Now()
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for more() {
				t0 := time.Now()
				resp, err := client.Post(base+"/v1/query", "application/json", strings.NewReader(`{"metrics":["net_sales"],"grain":"month","dimensions":["area"],"range":{"start":"2025-01-01","end":"2026-01-01"}}`))
				if err != nil {
					tb.Error(err)
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				d := time.Since(t0)
				outcome := answered
				if resp.StatusCode != http.StatusOK {
					var failure struct{ Code string }
					_ = json.Unmarshal(body, &failure)
					outcome = strconv.Itoa(resp.StatusCode) + " " + failure.Code
				}
				mu.Lock()
				r.statuses[outcome]++
				if outcome == answered {
					r.lat = append(r.lat, d)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	r.elapsed = time.Since(start)
	slices.Sort(r.lat)
	r.peak, r.capacity = admissionGauges(tb, base)
	return r
}

// check asserts the load's invariants: only answers and at_capacity came
// back, at least one answer, and no more questions executed at once than
// the bound; when reached is set, the load filled the bound (so it was
// under test).
func (r httpLoadResult) check(tb testing.TB, reached bool) {
	for outcome, n := range r.statuses {
		if outcome != answered && outcome != atCapacity {
			tb.Errorf("%d responses were %s", n, outcome)
		}
	}
	require.NotEmpty(tb, r.lat, "no answer came back")
	if r.peak > r.capacity {
		tb.Errorf("%v questions executed at once; the bound is %v", r.peak, r.capacity)
	}
	if reached && r.peak != r.capacity {
		tb.Errorf("the load never filled the bound of %v (peak %v)", r.capacity, r.peak)
	}
}

func admissionGauges(tb testing.TB, base string) (peak, capacity float64) {
	req, _ := http.NewRequest("GET", base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer load-metrics-token")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(tb, err)
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
	require.Positive(tb, capacity, "the admission gauges are exported")
	return peak, capacity
}

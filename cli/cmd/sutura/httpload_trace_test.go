package main

import (
	"os"
	"strconv"
	"testing"
	"time"

	"sutura.dev/cli/internal/telemetry/otlptest"
)

// BenchmarkHTTPQueryLoadTraced is BenchmarkHTTPQueryLoad with every call
// traced and exported (telemetry.otlp_endpoint set to a real OTLP/HTTP
// receiver in this process, decoding each batch): 64 connections posting
// /v1/query for SUTURA_LOAD_SECONDS seconds (default 30). It reports
// throughput, p50/p99 and the spans the receiver got per answer (docs/performance.md "Explanation and tracing").
//
//	go test -run '^$' -bench 'HTTPQueryLoad' -benchtime 1x ./cli/cmd/sutura
func BenchmarkHTTPQueryLoadTraced(b *testing.B) {
	seconds := 30
	if v, err := strconv.Atoi(os.Getenv("SUTURA_LOAD_SECONDS")); err == nil && v > 0 {
		seconds = v
	}
	dir := httpLoadConfig(b, 0)
	for range b.N {
		rcv := otlptest.Start(b)
		s := serve(b, "SUTURA_CONFIG_DIR="+dir, "SUTURA__TELEMETRY__OTLP_ENDPOINT="+rcv.URL)
		deadline := time.Now().Add(time.Duration(seconds) * time.Second)
		r := runHTTPLoad(b, s.base, 64, func() bool { return time.Now().Before(deadline) })
		r.check(b, false)
		b.ReportMetric(float64(len(r.lat))/r.elapsed.Seconds(), "answers/s")
		b.ReportMetric(float64(r.lat[len(r.lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(r.lat[len(r.lat)*99/100].Microseconds())/1000, "p99-ms")
		time.Sleep(6 * time.Second) // one batch interval, for the last spans
		b.ReportMetric(float64(len(rcv.Spans()))/float64(len(r.lat)), "spans/answer")
	}
}

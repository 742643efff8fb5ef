package main

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/cli/internal/config"
	"sutura.dev/domain"
)

// loadQuestion is the question every load call asks: net sales by month
// over a year, by area (a two-hop join) on the demo.
var loadQuestion = map[string]any{
	"metrics": []string{"net_sales"}, "grain": "month", "dimensions": []string{"area"},
	"range": map[string]any{"start": "2025-01-01", "end": "2026-01-01"},
}

const (
	loadCalls   = 1000
	loadClients = 16
)

// BenchmarkLoad sends 1,000 ask_metric calls from 16 concurrent clients
// directly to app.Surface, over MCP stdio framing (one session per client)
// and over Streamable HTTP (a real socket), and reports p50/p99 latency and
// throughput for each, so the transport's overhead is measured against the
// surface in the same run. Every call must be answered, and no more
// questions may execute at once than the admission bound:
//
//	go test -run '^$' -bench Load -benchtime 1x ./cli/cmd/sutura
func BenchmarkLoad(b *testing.B) {
	p := openLoad(b, nil)
	for _, target := range loadTargets(b, p) {
		b.Run(target.name, func(b *testing.B) {
			for range b.N {
				runLoad(b, loadCalls, loadClients, target.newClient).report(b)
			}
		})
	}
	checkAdmission(b, p, false)
}

// TestLoadAdmission is BenchmarkLoad's assertions on a short run: 48 calls
// from 8 clients on each of the three ways in, under a bound of 2, every
// one answered, and the bound reached but never exceeded. Questions this
// quick seldom overlap on a busy machine, so the surface's clients ask
// again (up to 10 rounds) until the bound has been reached once, which
// puts it under test.
func TestLoadAdmission(t *testing.T) {
	p := openLoad(t, config.Env{"SUTURA__RUNTIME__MAX_CONCURRENT_QUERIES": "2"})
	targets := loadTargets(t, p)
	for _, target := range targets {
		t.Run(target.name, func(t *testing.T) {
			runLoad(t, 48, 8, target.newClient)
		})
	}
	for round := 0; round < 10 && p.Admission.Peak() < p.Admission.Capacity(); round++ {
		runLoad(t, 48, 8, targets[0].newClient)
	}
	checkAdmission(t, p, true)
}

// openLoad opens the process on the embedded demo with env.
func openLoad(tb testing.TB, env config.Env) *process {
	p, err := open(&invocation{ctx: context.Background(), io: streams{err: io.Discard}, env: env}, nil)
	require.NoError(tb, err)
	tb.Cleanup(p.Close)
	return p
}

// checkAdmission asserts that no more questions executed at once than the
// process's one admission bound, and, when reached is set, that the load
// did fill it (so the bound was under test).
func checkAdmission(tb testing.TB, p *process, reached bool) {
	peak, capacity := p.Admission.Peak(), p.Admission.Capacity()
	if peak > capacity {
		tb.Errorf("%d questions executed at once; the bound is %d", peak, capacity)
	}
	if reached && peak != capacity {
		tb.Errorf("the load never filled the bound of %d (peak %d)", capacity, peak)
	}
}

// loadTarget is one way into the process: newClient opens one client and
// returns its call and its close.
type loadTarget struct {
	name      string
	newClient func() (func(context.Context) error, func())
}

// loadTargets are the ways BenchmarkLoad and TestLoadAdmission ask p: the
// surface itself, MCP stdio framing (a session per client, over pipes) and
// Streamable HTTP (a session per client, over a real socket).
func loadTargets(tb testing.TB, p *process) []loadTarget {
	srv, err := newMCPServer(p, domain.LocalOperator, nil)
	require.NoError(tb, err)
	q, err := domain.DecodeQuestion(toWire(loadQuestion))
	require.NoError(tb, err)
	ts := httptest.NewServer(srv.Handler())
	tb.Cleanup(ts.Close)
	return []loadTarget{
		{"surface", func() (func(context.Context) error, func()) {
			return func(ctx context.Context) error {
				out, err := p.Surface.Answer(ctx, app.Caller{Principal: domain.LocalOperator}, q)
				if err == nil && out.Answer == nil {
					err = fmt.Errorf("not an answer")
				}
				return err
			}, func() {}
		}},
		{"stdio", func() (func(context.Context) error, func()) {
			cr, sw := io.Pipe()
			sr, cw := io.Pipe()
			ctx, cancel := context.WithCancel(context.Background())
			go func() { _ = srv.RunStdio(ctx, sr, sw, p.Config.Server.MaxBodyBytes) }()
			sess := connect(tb, &mcp.IOTransport{Reader: cr, Writer: cw})
			return call(sess), func() { sess.Close(); cancel(); cw.Close(); sw.Close() }
		}},
		{"streamable-http", func() (func(context.Context) error, func()) {
			sess := connect(tb, &mcp.StreamableClientTransport{Endpoint: ts.URL})
			return call(sess), func() { sess.Close() }
		}},
	}
}

func connect(tb testing.TB, t mcp.Transport) *mcp.ClientSession {
	client := mcp.NewClient(&mcp.Implementation{Name: "load", Version: "1"}, nil)
	sess, err := client.Connect(context.Background(), t, nil)
	require.NoError(tb, err)
	return sess
}

func call(sess *mcp.ClientSession) func(context.Context) error {
	return func(ctx context.Context) error {
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "ask_metric", Arguments: loadQuestion})
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error")
		}
		return err
	}
}

// loadResult is what one load run measured.
type loadResult struct {
	lat     []time.Duration // sorted
	elapsed time.Duration
}

// runLoad makes calls calls from clients clients, each made by newClient
// (which returns the call and a close); every call must succeed.
func runLoad(tb testing.TB, calls, clients int, newClient func() (func(context.Context) error, func())) loadResult {
	lat := make([]time.Duration, 0, calls)
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < clients; c++ {
		do, closeFn := newClient()
		n := calls / clients
		if c < calls%clients {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer closeFn()
			for range n {
				t0 := time.Now()
				if err := do(context.Background()); err != nil {
					tb.Error(err)
					return
				}
				d := time.Since(t0)
				mu.Lock()
				lat = append(lat, d)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(lat)
	if len(lat) != calls {
		tb.Fatalf("%d of %d calls completed", len(lat), calls)
	}
	return loadResult{lat: lat, elapsed: elapsed}
}

// report reports latency percentiles and throughput.
func (r loadResult) report(b *testing.B) {
	b.ReportMetric(float64(r.lat[len(r.lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(r.lat[len(r.lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(len(r.lat))/r.elapsed.Seconds(), "calls/s")
}

// toWire converts a JSON-like Go value to the wire form DecodeQuestion
// reads.
func toWire(v any) any {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		obj := domain.Object{}
		for _, k := range keys {
			obj = append(obj, domain.Member{Key: k, Value: toWire(x[k])})
		}
		return obj
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	}
	return v
}

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
// surface in the same run:
//
//	go test -run '^$' -bench Load -benchtime 1x ./cli/cmd/sutura
func BenchmarkLoad(b *testing.B) {
	p, err := open(&invocation{ctx: context.Background(), io: streams{err: io.Discard}, env: nil})
	require.NoError(b, err)
	defer p.Close()
	srv, err := newMCPServer(p, domain.LocalOperator, nil)
	require.NoError(b, err)
	q, err := domain.DecodeQuestion(toWire(loadQuestion))
	require.NoError(b, err)

	b.Run("surface", func(b *testing.B) {
		for range b.N {
			runLoad(b, func() (func(context.Context) error, func()) {
				return func(ctx context.Context) error {
					out, err := p.Surface.Answer(ctx, app.Caller{Principal: domain.LocalOperator}, q)
					if err == nil && out.Answer == nil {
						err = fmt.Errorf("not an answer")
					}
					return err
				}, func() {}
			})
		}
	})
	b.Run("stdio", func(b *testing.B) {
		for range b.N {
			runLoad(b, func() (func(context.Context) error, func()) {
				cr, sw := io.Pipe()
				sr, cw := io.Pipe()
				ctx, cancel := context.WithCancel(context.Background())
				go func() { _ = srv.RunStdio(ctx, sr, sw, p.Config.Server.MaxBodyBytes) }()
				sess := connect(b, &mcp.IOTransport{Reader: cr, Writer: cw})
				return call(sess), func() { sess.Close(); cancel(); cw.Close(); sw.Close() }
			})
		}
	})
	b.Run("streamable-http", func(b *testing.B) {
		ts := httptest.NewServer(srv.Handler())
		defer ts.Close()
		for range b.N {
			runLoad(b, func() (func(context.Context) error, func()) {
				sess := connect(b, &mcp.StreamableClientTransport{Endpoint: ts.URL})
				return call(sess), func() { sess.Close() }
			})
		}
	})
}

func connect(b *testing.B, t mcp.Transport) *mcp.ClientSession {
	client := mcp.NewClient(&mcp.Implementation{Name: "load", Version: "1"}, nil)
	sess, err := client.Connect(context.Background(), t, nil)
	require.NoError(b, err)
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

// runLoad runs loadCalls calls from loadClients clients, each made by
// newClient (which returns the call and a close), and reports latency
// percentiles and throughput.
func runLoad(b *testing.B, newClient func() (func(context.Context) error, func())) {
	lat := make([]time.Duration, 0, loadCalls)
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < loadClients; c++ {
		do, closeFn := newClient()
		n := loadCalls / loadClients
		if c < loadCalls%loadClients {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer closeFn()
			for range n {
				t0 := time.Now()
				if err := do(context.Background()); err != nil {
					b.Error(err)
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
	if len(lat) != loadCalls {
		b.Fatalf("%d of %d calls completed", len(lat), loadCalls)
	}
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(loadCalls)/elapsed.Seconds(), "calls/s")
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

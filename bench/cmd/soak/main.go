// Command soak holds `sutura serve` under a mixed load for a while and
// reports how it held: 64 callers (by default) ask the embedded demo
// through every transport at once — HTTP (POST /v1/query), MCP Streamable
// HTTP (/mcp, through the official go-sdk client, a session per caller)
// and MCP stdio (a `sutura mcp` process of its own, one session its
// callers share) — for -duration (default 10 minutes). It prints the
// throughput, p50 and p99 latency per transport, the resident memory of
// the processes over time and at their peak, the outcomes, and the audit
// records the processes wrote; and it exits 1 when anything came back
// other than an answer or a documented refusal (docs/contract.md §4:
// the refusal the question is expected to get, or at_capacity), when the
// audit records are not one per question, or when a process died.
//
// Usage (from bench/):
//
//	GOWORK=off go run ./cmd/soak                    # 10 minutes, 64 callers
//	GOWORK=off go run ./cmd/soak -duration 30s      # a check
//	GOWORK=off go run ./cmd/soak -mix http=64       # one transport
//
// It builds sutura from the workspace (-repo, default ..) unless -sutura
// names a binary. docs/performance.md records a run. Never run in CI.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// config is what the flags say.
type config struct {
	duration time.Duration
	sample   time.Duration
	mix      map[string]int // callers per transport
	sutura   string
	repo     string
}

func main() {
	var c config
	var mix string
	flag.DurationVar(&c.duration, "duration", 10*time.Minute, "how long the load runs")
	flag.DurationVar(&c.sample, "sample", 0, "how often resident memory is sampled (0: a twentieth of -duration, at least 1s)")
	flag.StringVar(&mix, "mix", "http=32,mcp=24,stdio=8", "callers per transport (http, mcp, stdio), comma-separated")
	flag.StringVar(&c.sutura, "sutura", "", "the sutura binary (default: built from -repo)")
	flag.StringVar(&c.repo, "repo", "..", "the workspace root (holds cli/)")
	flag.Parse()
	log.SetFlags(0)
	var err error
	if c.mix, err = parseMix(mix); err != nil {
		log.Fatal(err)
	}
	if c.duration <= 0 {
		log.Fatal("-duration must be positive")
	}
	if c.sample <= 0 {
		c.sample = max(c.duration/20, time.Second)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if c.sutura == "" {
		if c.sutura, err = build(ctx, c.repo); err != nil {
			log.Fatal(err)
		}
	}
	rep, err := run(ctx, c)
	if err != nil {
		log.Fatal(err)
	}
	if !rep.print(os.Stdout) {
		os.Exit(1)
	}
}

// transports are the transports a mix may name, in the report's order.
var transports = []string{"http", "mcp", "stdio"}

// parseMix reads "http=32,mcp=24,stdio=8".
func parseMix(s string) (map[string]int, error) {
	out := map[string]int{}
	total := 0
	for _, part := range strings.Split(s, ",") {
		name, n, ok := strings.Cut(strings.TrimSpace(part), "=")
		count, err := strconv.Atoi(n)
		if !ok || err != nil || count < 0 {
			return nil, fmt.Errorf("-mix: %q is not transport=callers", part)
		}
		if !contains(transports, name) {
			return nil, fmt.Errorf("-mix: unknown transport %q (http, mcp, stdio)", name)
		}
		out[name] += count
		total += count
	}
	if total == 0 {
		return nil, fmt.Errorf("-mix: no callers")
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// build builds sutura from repo's cli module into a temporary directory.
func build(ctx context.Context, repo string) (string, error) {
	dir, err := os.MkdirTemp("", "sutura-soak")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "sutura")
	cmd := commandContext(ctx, "go", "build", "-o", bin, "./cmd/sutura")
	cmd.Dir = filepath.Join(repo, "cli")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building sutura in %s: %w", cmd.Dir, err)
	}
	return bin, nil
}

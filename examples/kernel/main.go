// Command kernel plays an agent kernel that holds its tool servers in
// process: it registers sutura as one, checks a capability and a guard of
// its own before each call, invokes describe_catalog and ask_metric, and
// prints the realized cost of each answer.
//
// It runs on the embedded demo with no configuration:
//
//	go run ./examples/kernel
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"sutura.dev/cli/compose"
	"sutura.dev/domain"
)

// toolServer is what this kernel needs of a tool server held in process.
type toolServer interface {
	ServerID() string
	ToolNames() []string
	ToolIsReadOnly(tool string) bool
	InvokeWithCost(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, domain.Cost, error)
}

// kernel holds tool servers and the capabilities its agent was granted.
type kernel struct {
	servers map[string]toolServer
	granted map[string]bool // "server/tool"
	calls   int
	budget  int // the kernel's own guard: at most this many calls
}

func (k *kernel) register(s toolServer, grant ...string) {
	k.servers[s.ServerID()] = s
	for _, t := range grant {
		k.granted[s.ServerID()+"/"+t] = true
	}
}

// errGuard is the kernel's own refusal, before sutura is asked.
var errGuard = errors.New("kernel guard")

func (k *kernel) call(ctx context.Context, server, tool string, args any) (json.RawMessage, domain.Cost, error) {
	s, ok := k.servers[server]
	if !ok {
		return nil, domain.Cost{}, fmt.Errorf("%w: no tool server %s", errGuard, server)
	}
	if !k.granted[server+"/"+tool] {
		return nil, domain.Cost{}, fmt.Errorf("%w: capability %s/%s not granted", errGuard, server, tool)
	}
	if !s.ToolIsReadOnly(tool) {
		return nil, domain.Cost{}, fmt.Errorf("%w: this agent may use read-only tools only", errGuard)
	}
	if k.calls >= k.budget {
		return nil, domain.Cost{}, fmt.Errorf("%w: call budget of %d spent", errGuard, k.budget)
	}
	k.calls++
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, domain.Cost{}, err
	}
	return s.InvokeWithCost(ctx, tool, raw)
}

func main() {
	if err := run(context.Background(), os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "kernel:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out, logs io.Writer) error {
	p, err := compose.Open(ctx, nil, logs, compose.Options{})
	if err != nil {
		return err
	}
	defer p.Close()
	conn, err := p.InProcess(compose.InProcessOptions{ServerID: "sutura"})
	if err != nil {
		return err
	}
	defer conn.Close()

	k := &kernel{servers: map[string]toolServer{}, granted: map[string]bool{}, budget: 3}
	k.register(conn, "describe_catalog", "ask_metric")
	fmt.Fprintf(out, "registered %s: tools %v, realized cost measured: %v\n", conn.ServerID(), conn.ToolNames(), conn.MeasuresRealizedCost())

	catalog, _, err := k.call(ctx, "sutura", "describe_catalog", map[string]any{})
	if err != nil {
		return err
	}
	var view struct {
		Version string `json:"definition_version"`
		Digest  string `json:"definition_digest"`
		Metrics []struct {
			Name string `json:"name"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal(catalog, &view); err != nil {
		return err
	}
	fmt.Fprintf(out, "catalogue %s (%s): %d metrics\n", view.Version, view.Digest[:12], len(view.Metrics))

	question := map[string]any{
		"metrics": []string{"net_sales"}, "grain": "quarter", "dimensions": []string{"area"},
		"range": map[string]any{"start": "2025-01-01", "end": "2026-01-01"},
	}
	answer, cost, err := k.call(ctx, "sutura", "ask_metric", question)
	if err != nil {
		return err
	}
	var ans struct {
		Outcome string      `json:"outcome"`
		Rows    [][]*string `json:"rows"`
	}
	if err := json.Unmarshal(answer, &ans); err != nil {
		return err
	}
	fmt.Fprintf(out, "ask_metric: %s, %d rows\n", ans.Outcome, len(ans.Rows))
	fmt.Fprintf(out, "realized cost: %d rows scanned, %d bytes read, %d rows returned, sources %v, measured %v\n",
		cost.RowsScanned, cost.BytesRead, cost.RowsReturned, cost.Sources, cost.Measured)

	// A capability the kernel never granted is stopped by the kernel itself.
	if _, _, err := k.call(ctx, "sutura", "run_sql", map[string]any{"statement": "select 1"}); errors.Is(err, errGuard) {
		fmt.Fprintf(out, "guard: %v\n", err)
	}
	return nil
}

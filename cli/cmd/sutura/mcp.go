package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"sutura.dev/app"
	"sutura.dev/domain"
	mcpserver "sutura.dev/transport-mcp"
)

// toolOptions are the capabilities this deployment offers.
func toolOptions(p *setup) app.ToolOptions {
	return app.ToolOptions{RunSQL: p.Config.Tools.RunSQL.Enabled}
}

// runTools prints the tool declarations (the manifest) without opening any
// data system or reading a catalogue.
func runTools(inv *invocation) error {
	cfg, err := config0(inv)
	if err != nil {
		return err
	}
	m, err := mcpserver.NewManifest(app.Tools(app.ToolOptions{RunSQL: cfg.Tools.RunSQL.Enabled}))
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	_, err = inv.io.out.Write(append(b, '\n'))
	return err
}

// newMCPServer builds the MCP surface of a process. Its instructions are
// rendered from what every caller may see, never from the operator's view.
func newMCPServer(p *process, logger *slog.Logger) (*mcpserver.Server, error) {
	opts := app.PromptOptions{Prose: app.Prose(p.Config.Prompt.CatalogProse)}
	if f := p.Config.Prompt.InstructionsFile; f != "" {
		b, err := readFileLimited(f, 64<<10)
		if err != nil {
			return nil, fmt.Errorf("prompt.instructions_file: %w", err)
		}
		opts.Instructions = string(b)
	}
	view := app.DescribeBundle(p.Bundle, domain.Principal{Subject: "any-caller"})
	return mcpserver.New(p.Surface, mcpserver.Options{
		Name: "sutura", Version: versionString(),
		Tools:          app.Tools(toolOptions(p.Setup)),
		Instructions:   app.RenderPrompt(view, opts),
		RequestTimeout: p.Config.Server.RequestTimeout(),
		MaxBodyBytes:   int64(p.Config.Server.MaxBodyBytes),
		Logger:         logger,
	})
}

// runMCP serves MCP over standard input and output until the input ends
// or the process is told to stop.
func runMCP(inv *invocation) error {
	p, err := open(inv)
	if err != nil {
		return err
	}
	defer p.Close()
	logger := slog.New(slog.NewTextHandler(inv.io.err, nil))
	srv, err := newMCPServer(p, logger)
	if err != nil {
		return err
	}
	var ids []string
	for _, t := range srv.Tools() {
		ids = append(ids, string(t.ID))
	}
	fmt.Fprintf(inv.io.err, "sutura: serving MCP on stdio as %s (single-user): tools %s; catalogue %s version %s digest %s; at most %d questions at once, %s per question, messages up to %d bytes\n",
		domain.LocalOperator.Subject, strings.Join(ids, ", "), p.CatalogName, p.Bundle.Version(), p.Bundle.Digest(),
		p.Config.Runtime.MaxConcurrentQueries, p.Config.Server.RequestTimeout(), p.Config.Server.MaxBodyBytes)
	return srv.RunStdio(inv.ctx, inv.io.in, inv.io.out, p.Config.Server.MaxBodyBytes)
}

// runServe serves HTTP: /health, /ready and the MCP endpoint /mcp. Until
// the HTTP surface with its gates lands, it serves only on a loopback
// address and only in single-user mode.
func runServe(inv *invocation) error {
	p, err := open(inv)
	if err != nil {
		return err
	}
	defer p.Close()
	cfg := p.Config
	if !cfg.Server.Loopback() || cfg.Security.Identity != "single-user" {
		return errors.New("server.host: this build serves only on a loopback address in single-user mode (the HTTP gates are not built yet)")
	}
	if err := app.CheckBundle(inv.ctx, p.Bundle, p.Sources); err != nil {
		return fmt.Errorf("the catalogue does not validate: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(inv.io.err, nil))
	srv, err := newMCPServer(p, logger)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	})
	// Ready means the bundle is pinned, the sources are open and every
	// anchor reproduced: all checked above, before the listener opened.
	mux.HandleFunc("GET /ready", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ready"}`))
	})
	if cfg.Server.AgentSurface.Enabled {
		mux.Handle("/mcp", srv.Handler())
	}
	ln, err := net.Listen("tcp", cfg.Server.Addr())
	if err != nil {
		return fmt.Errorf("server.port: cannot listen: %w", err)
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(inv.io.out, "listening on http://%s\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-inv.ctx.Done():
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(inv.ctx), cfg.Runtime.ShutdownGrace())
	defer cancel()
	if err := hs.Shutdown(ctx); err != nil {
		_ = hs.Close()
	}
	return nil
}

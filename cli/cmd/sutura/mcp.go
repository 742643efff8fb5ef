package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"sutura.dev/app"
	"sutura.dev/cli/compose"
	"sutura.dev/domain"
	httpapi "sutura.dev/transport-http"
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
func newMCPServer(p *process, logger *slog.Logger, caller func(context.Context) app.Caller) (*mcpserver.Server, error) {
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
		Caller:         caller,
		EnforceScopes:  caller != nil,
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
	srv, err := newMCPServer(p, logger, nil)
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
	go p.RefreshEvery(inv.ctx, logger)
	return srv.RunStdio(inv.ctx, inv.io.in, inv.io.out, p.Config.Server.MaxBodyBytes)
}

// runServe validates everything (catalogue, sources, anchors) before any
// listener opens, then serves the HTTP surface with /mcp behind its gates
// until SIGTERM or SIGINT; in-flight questions then get
// runtime.shutdown_grace_seconds to finish and are cancelled after it.
func runServe(inv *invocation) error {
	var metrics *httpapi.Metrics
	p, err := compose.Open(inv.ctx, inv.env, inv.io.err, compose.Options{
		WrapAudit: func(p *compose.Process, sink app.AuditSink) (app.AuditSink, error) {
			var err error
			metrics, err = httpapi.NewMetrics(httpapi.MetricsConfig{Version: versionString(), Admission: p.Admission, Collectors: workingSetGauges(p)})
			if err != nil {
				return nil, err
			}
			return metrics.Audit(sink), nil
		},
	})
	if err != nil {
		return err
	}
	defer p.Close()
	cfg := p.Config
	if err := app.CheckBundle(inv.ctx, p.Bundle, p.Sources); err != nil {
		return fmt.Errorf("the catalogue does not validate: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(inv.io.err, &slog.HandlerOptions{Level: slog.LevelInfo}))
	var mcpHandler http.Handler
	if cfg.Server.AgentSurface.Enabled {
		srv, err := newMCPServer(p, logger, httpapi.CallerFrom)
		if err != nil {
			return err
		}
		mcpHandler = srv.Handler()
	}
	hcfg := httpapi.Config{
		Surface: p.Surface, Tools: app.Tools(toolOptions(p.Setup)), MCP: mcpHandler,
		RequestTimeout: cfg.Server.RequestTimeout(), MaxBodyBytes: int64(cfg.Server.MaxBodyBytes),
		AllowedHosts: cfg.Server.AllowedHosts, SingleUser: cfg.Security.Identity == "single-user",
		Metrics: metrics, Logger: logger,
		RateLimit: httpapi.RateLimit{PerSecond: float64(cfg.Server.RateLimit.PerSecond), Burst: cfg.Server.RateLimit.Burst},
	}
	if cfg.Security.AccessToken.Set() {
		hcfg.AccessToken = cfg.Security.AccessToken.Reveal()
	}
	if cfg.Security.MetricsToken.Set() {
		hcfg.MetricsToken = cfg.Security.MetricsToken.Reveal()
	}
	if in := cfg.Security.Inbound; in.Enabled() {
		hcfg.SingleUser = false
		hcfg.Inbound = &httpapi.InboundConfig{
			Issuer: in.Issuer, Audience: in.Audience, JWKSFile: in.JWKSFile, JWKSURL: in.JWKSURL,
			Algorithms: in.Algorithms, ScopeClaim: in.ScopeClaim, GroupsClaim: in.GroupsClaim,
			AudienceMapping: cfg.Security.AudienceMapping, JWKSMaxStale: in.JWKSMaxStale(),
		}
	}
	hs, err := httpapi.New(hcfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Server.Addr())
	if err != nil {
		return fmt.Errorf("server.port: cannot listen: %w", err)
	}
	// Requests run under a context the shutdown can cancel once the grace
	// period is over, so in-flight questions stop at the data system.
	base, cancelAll := context.WithCancel(context.WithoutCancel(inv.ctx))
	defer cancelAll()
	server := hs.HTTPServer(cfg.Server.Addr())
	server.BaseContext = func(net.Listener) context.Context { return base }
	go p.RefreshEvery(base, logger)
	fmt.Fprintf(inv.io.out, "listening on http://%s\n", ln.Addr())
	fmt.Fprintf(inv.io.out, "catalogue browser on http://%s%s\n", ln.Addr(), httpapi.UIPath)
	errc := make(chan error, 1)
	go func() { errc <- server.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-inv.ctx.Done():
	}
	logger.Info("shutting down: no new connections; in-flight questions may finish", "grace", cfg.Runtime.ShutdownGrace())
	ctx, cancel := context.WithTimeout(base, cfg.Runtime.ShutdownGrace())
	defer cancel()
	if err := server.Shutdown(ctx); err != nil {
		logger.Warn("grace period over: cancelling in-flight questions")
		cancelAll()
		_ = server.Close()
	}
	return nil
}

// workingSetGauges exports, per source that has one, the embedded engine's
// working set and its ceiling. The label is the configured source alias.
func workingSetGauges(p *compose.Process) []prometheus.Collector {
	var out []prometheus.Collector
	for alias, src := range p.Sources {
		ws, ok := src.System.(interface{ WorkingSet() (used, limit int64) })
		if !ok {
			continue
		}
		labels := prometheus.Labels{"source": alias}
		out = append(out,
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sutura_engine_working_set_bytes", Help: "Bytes the embedded engine holds: cached columns and running queries.", ConstLabels: labels},
				func() float64 { used, _ := ws.WorkingSet(); return float64(used) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sutura_engine_working_set_limit_bytes", Help: "runtime.working_set_max_bytes.", ConstLabels: labels},
				func() float64 { _, limit := ws.WorkingSet(); return float64(limit) }))
	}
	return out
}

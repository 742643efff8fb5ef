package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"sutura.dev/app"
	"sutura.dev/cli/compose"
	"sutura.dev/cli/internal/config"
	"sutura.dev/domain"
	httpapi "sutura.dev/transport-http"
	mcpserver "sutura.dev/transport-mcp"
)

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
// agentPrompt for viewer: the caller every call of this server is (the
// local operator on stdio and on a single-user deployment), or, when
// callers differ, what every one of them may see.
func newMCPServer(p *process, viewer domain.Principal, caller func(context.Context) app.Caller) (*mcpserver.Server, error) {
	instructions, err := agentPrompt(p.Setup, viewer)
	if err != nil {
		return nil, err
	}
	return mcpserver.New(p.Surface, mcpserver.Options{
		Name: "sutura", Version: versionString(),
		Instructions:  instructions,
		MaxBodyBytes:  int64(p.Config.Server.MaxBodyBytes),
		Caller:        caller,
		EnforceScopes: caller != nil,
	})
}

// runMCP serves MCP over standard input and output until the input ends
// (every request read before the end is answered first) or the process is
// told to stop. Its one notice and its log lines go through one logger
// (log.format).
func runMCP(inv *invocation) error {
	p, logger, err := openServing(inv, compose.Options{})
	if err != nil {
		return err
	}
	defer p.Close()
	srv, err := newMCPServer(p, domain.LocalOperator, nil)
	if err != nil {
		return err
	}
	var ids []string
	for _, t := range srv.Tools() {
		ids = append(ids, string(t.ID))
	}
	logger.Info(fmt.Sprintf("serving MCP on stdio as %s (single-user): tools %s; catalogue %s version %s digest %s; at most %d questions at once, %s per question, messages up to %d bytes",
		domain.LocalOperator.Subject, strings.Join(ids, ", "), p.CatalogName, p.Bundle.Version(), p.Bundle.Digest(),
		p.Config.Runtime.MaxConcurrentQueries, p.Config.Server.RequestTimeout(), p.Config.Server.MaxBodyBytes))
	go p.RefreshEvery(inv.ctx, logger)
	go p.CheckDeferredInBackground(inv.ctx, logger)
	return srv.RunStdio(inv.ctx, inv.io.in, inv.io.out, p.Config.Server.MaxBodyBytes)
}

func serveFlags(fs *flag.FlagSet) {
	fs.String("host", "", "the IP address to bind (server.host; overrides every other layer)")
	fs.String("port", "", "the TCP port, 0 for a free one (server.port; overrides every other layer)")
}

// runServe validates everything (catalogue, sources, anchors: compose.Open
// does) before any listener opens, then serves the HTTP surface with /mcp behind its gates
// until SIGTERM or SIGINT; in-flight questions then get
// runtime.shutdown_grace_seconds to finish and are cancelled after it.
func runServe(inv *invocation) error {
	var overrides []config.Override
	for _, f := range []struct{ flag, key string }{{"host", "server.host"}, {"port", "server.port"}} {
		if v := inv.flags.Lookup(f.flag).Value.String(); v != "" {
			overrides = append(overrides, config.Override{Flag: "--" + f.flag, Key: f.key, Value: v})
		}
	}
	var metrics *httpapi.Metrics
	p, logger, err := openServing(inv, compose.Options{
		WrapAudit: func(p *compose.Process, sink app.AuditSink) (app.AuditSink, error) {
			var err error
			metrics, err = httpapi.NewMetrics(httpapi.MetricsConfig{Version: versionString(), Admission: p.Admission, Collectors: workingSetGauges(p)})
			if err != nil {
				return nil, err
			}
			return metrics.Audit(sink), nil
		},
	}, overrides...)
	if err != nil {
		return err
	}
	defer p.Close()
	cfg := p.Config
	var mcpHandler http.Handler
	if cfg.Server.AgentSurface.Enabled {
		srv, err := newMCPServer(p, promptViewer(cfg), httpapi.CallerFrom)
		if err != nil {
			return err
		}
		mcpHandler = srv.Handler()
	}
	hcfg := httpapi.Config{
		Surface: p.Surface, Tools: p.Surface.Tools(), MCP: mcpHandler, CatalogName: p.CatalogName,
		MaxBodyBytes: int64(cfg.Server.MaxBodyBytes),
		AllowedHosts: cfg.Server.AllowedHosts, SingleUser: cfg.Security.Identity == "single-user",
		Metrics: metrics, Logger: logger,
		RateLimit:      httpapi.RateLimit{PerSecond: float64(cfg.Server.RateLimit.PerSecond), Burst: cfg.Server.RateLimit.Burst},
		TrustedProxies: cfg.Server.TrustedProxyPrefixes(), MaxConnections: cfg.Server.MaxConnections,
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
		return listenError(cfg, err)
	}
	// Requests run under a context the shutdown can cancel once the grace
	// period is over, so in-flight questions stop at the data system.
	base, cancelAll := context.WithCancel(context.WithoutCancel(inv.ctx))
	defer cancelAll()
	server := hs.HTTPServer(cfg.Server.Addr())
	server.BaseContext = func(net.Listener) context.Context { return base }
	go p.RefreshEvery(base, logger)
	writeEndpoints(inv.io.out, "http://"+ln.Addr().String(), cfg)
	errc := make(chan error, 1)
	go func() { errc <- server.Serve(hs.LimitListener(ln)) }()
	go p.CheckDeferredInBackground(base, logger)
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
		// The exit status says which: 0 when every request finished within
		// the grace, 1 when some were cancelled.
		return errors.New("the shutdown grace period (runtime.shutdown_grace_seconds) ended with requests in flight; they were cancelled at their data systems")
	}
	logger.Info("shut down: every in-flight request finished")
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

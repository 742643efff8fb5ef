package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"syscall"

	"sutura.dev/cli/internal/config"
	httpapi "sutura.dev/transport-http"
)

// writeEndpoints prints what `sutura serve` serves at base: first exactly
// "listening on <base>" (scripts read that line), then one line per place a
// person or a client goes to.
func writeEndpoints(w io.Writer, base string, cfg *config.Config) {
	fmt.Fprintf(w, "listening on %s\n", base)
	fmt.Fprintf(w, "catalogue browser on %s%s\n", base, httpapi.UIPath)
	fmt.Fprintf(w, "API reference on %s/docs (OpenAPI 3.1 at %s/openapi.json)\n", base, base)
	api := "GET /v1/catalog, POST /v1/query"
	if cfg.Tools.RunSQL.Enabled {
		api += ", POST /v1/sql/run"
	}
	fmt.Fprintf(w, "HTTP API on %s/v1 (%s)\n", base, api)
	if cfg.Server.AgentSurface.Enabled {
		fmt.Fprintf(w, "MCP on %s/mcp (Streamable HTTP)\n", base)
	}
}

// listenError says why serve cannot listen, and how to change the address:
// the key, its variable and the flag.
func listenError(cfg *config.Config, err error) error {
	port := strconv.Itoa(cfg.Server.Port + 1)
	if cfg.Server.Port == 0 || cfg.Server.Port == 65535 {
		port = "8081"
	}
	how := "choose another with server.port (SUTURA__SERVER__PORT=" + port + ") or sutura serve --port " + port + " (0 picks a free port)"
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("server.port: %s is already in use: %s", cfg.Server.Addr(), how)
	}
	return fmt.Errorf("server.port: cannot listen on %s: %w; %s, and the address with server.host (SUTURA__SERVER__HOST) or --host", cfg.Server.Addr(), err, how)
}

package compose

import (
	"context"
	"time"

	"sutura.dev/cli/internal/config"
	"sutura.dev/cli/internal/telemetry"
)

// flushTimeout bounds the export of the spans still buffered at Close.
const flushTimeout = 5 * time.Second

// newTracer builds the process's one tracer (docs/contract.md §16): it
// exports to telemetry.otlp_endpoint when set and runs no exporter
// otherwise. The returned function flushes and stops it.
func newTracer(ctx context.Context, cfg *config.Config) (*telemetry.Tracer, func() error, error) {
	t, err := telemetry.New(ctx, telemetry.Config{Endpoint: cfg.Telemetry.OTLPEndpoint})
	if err != nil {
		return nil, nil, err
	}
	return t, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
		defer cancel()
		return t.Shutdown(ctx)
	}, nil
}

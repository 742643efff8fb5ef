package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTelemetryEndpoint(t *testing.T) {
	runRefusals(t, []refusalCase{
		{"not a URL", base("telemetry: {otlp_endpoint: " + planted + "}"), nil,
			refusal{key: "telemetry.otlp_endpoint", layer: "base.yaml", also: "http or https URL"}},
		{"another scheme", base("telemetry: {otlp_endpoint: 'ftp://" + planted + "/'}"), nil,
			refusal{key: "telemetry.otlp_endpoint", layer: "base.yaml", also: "http or https URL"}},
		{"credentials", nil, Env{"SUTURA__TELEMETRY__OTLP_ENDPOINT": "https://user:" + planted + "@collector.example"},
			refusal{key: "telemetry.otlp_endpoint", layer: "SUTURA__TELEMETRY__OTLP_ENDPOINT", also: "user or password"}},
	})
	cfg, _ := mustLoad(t, base("telemetry: {otlp_endpoint: 'http://127.0.0.1:4318'}"), nil)
	assert.Equal(t, "http://127.0.0.1:4318", cfg.Telemetry.OTLPEndpoint)
}

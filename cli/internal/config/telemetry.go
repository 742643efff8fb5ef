package config

import "net/url"

// Telemetry configures tracing (docs/contract.md §16, docs/operations.md
// "Tracing").
type Telemetry struct {
	// OTLPEndpoint is the collector's OTLP/HTTP URL; empty means spans are
	// not exported.
	OTLPEndpoint string `yaml:"otlp_endpoint"`
}

// telemetry checks telemetry.otlp_endpoint: an http or https URL with a
// host and no credentials. The reason never quotes the value.
func (c *checker) telemetry() {
	s := c.cfg.Telemetry.OTLPEndpoint
	if s == "" {
		return
	}
	u, err := url.Parse(s)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		c.fail("telemetry.otlp_endpoint", "must be an absolute http or https URL")
	case u.User != nil:
		c.fail("telemetry.otlp_endpoint", "must not carry a user or password")
	}
}

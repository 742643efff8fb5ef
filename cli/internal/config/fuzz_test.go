package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoadYAML feeds arbitrary bytes to the YAML layer and the checks
// that follow it. It must never panic, and every refusal must be an
// *Error that names its layer.
func FuzzLoadYAML(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*/*.yaml")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		"",
		"server: {port: 8080}",
		"a: &x [*x]",
		"sources:\n  s: {kind: postgres, posture: impersonation-at-source, host: localhost, impersonate: {a: b}}",
		"catalogs: [{name: a, kind: markdown, dir: d, version: v, refresh_seconds: 0}]",
		"security: {audience_mapping: {g: [a, ~]}, inbound: {mode: direct, algorithms: [RS256, RS256]}}",
		"server:\n  <<: {port: 1}",
		"--- 1\n--- 2",
		"? [a, b]\n: c",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := defaults()
		cfg.Dir, cfg.Environment = dir, Production
		origins := map[string]origin{}
		var errs errList
		applyYAML(cfg, origins, "fuzz.yaml", data, &errs)
		if len(errs) == 0 {
			// Everything but reading secret files, which would read
			// whatever paths the input names.
			c := checker{cfg: cfg, origins: origins}
			c.validate()
			if len(c.errs) == 0 {
				c.normalize()
				c.resolvePaths()
				c.unsafe()
				if _, err := cfg.Redacted(); err != nil && !strings.Contains(err.Error(), "invalid UTF-8") {
					t.Fatalf("Redacted: %v", err)
				}
			}
			errs = c.errs
		}
		for _, e := range errs {
			ce, ok := e.(*Error)
			if !ok || ce.Layer == "" || ce.Reason == "" {
				t.Fatalf("refusal without a layer or reason: %#v", e)
			}
			_ = ce.Error()
		}
	})
}

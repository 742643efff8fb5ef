package main

import (
	"fmt"
	goruntime "runtime"
	"runtime/debug"
	"strings"

	"sutura.dev/cli/compose"
)

// version is the release label, set at build time with
// -ldflags "-X main.version=...". Without it the module version or "devel"
// is reported.
var version = ""

func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

func runVersion(inv *invocation) error {
	fmt.Fprintf(inv.io.out, "sutura %s\n", versionString())
	return nil
}

// runDoctor reports how the binary was built, the effective configuration
// (secrets redacted) and whether the catalogue and sources can be reached.
// It reports every check and exits 1 if any failed.
func runDoctor(inv *invocation) error {
	w := inv.io.out
	fmt.Fprintf(w, "sutura     %s\n", versionString())
	fmt.Fprintf(w, "go         %s %s/%s, %d CPUs\n", goruntime.Version(), goruntime.GOOS, goruntime.GOARCH, goruntime.NumCPU())
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision", "vcs.time", "vcs.modified", "CGO_ENABLED", "-trimpath":
				fmt.Fprintf(w, "build      %s=%s\n", s.Key, s.Value)
			}
		}
		for _, d := range bi.Deps {
			fmt.Fprintf(w, "module     %s %s\n", d.Path, d.Version)
		}
	}
	failed := false
	check := func(what string, err error) {
		if err != nil {
			failed = true
			fmt.Fprintf(w, "FAIL       %s: %v\n", what, err)
			return
		}
		fmt.Fprintf(w, "ok         %s\n", what)
	}
	cfg, err := loadConfig(inv)
	check("configuration", err)
	if err != nil {
		return errReported
	}
	if dir := cfg.Dir; dir != "" {
		fmt.Fprintf(w, "config     %s (environment %s)\n", dir, cfg.Environment)
	} else {
		fmt.Fprintf(w, "config     none (environment %s): the embedded demo\n", cfg.Environment)
	}
	if red, err := cfg.Redacted(); err == nil {
		fmt.Fprintf(w, "effective configuration (secrets redacted):\n%s", indent(string(red)))
	}
	b, name, err := compose.LoadBundle(cfg)
	check("catalogue", err)
	if err == nil {
		fmt.Fprintf(w, "catalogue  %s version %s digest %s\n", name, b.Version(), b.Digest())
	}
	fmt.Fprintf(w, "admission  %d slots, %s window\n", cfg.Runtime.MaxConcurrentQueries, cfg.Runtime.AdmissionTimeout())
	for _, c := range compose.CheckSources(inv.ctx, cfg) {
		check(fmt.Sprintf("source %s (%s) reachable", c.Alias, c.Kind), c.Err)
	}
	if failed {
		return errReported
	}
	return nil
}

func indent(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("  " + line + "\n")
	}
	return b.String()
}

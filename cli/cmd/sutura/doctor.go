package main

import (
	"flag"
	"fmt"
	goruntime "runtime"
	"runtime/debug"
	"strings"

	"sutura.dev/cli/compose"
	"sutura.dev/cli/internal/config"
)

// version is the release label, set at build time with
// -ldflags "-X main.version=...". Without it the module version or "devel"
// is reported.
var version = ""

// versionString is the release label of this binary: -X main.version, the
// main module's version when it was built as a module of that version (go
// install sutura.dev/cli/cmd/sutura@v1.2.3), else "devel".
func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// buildText says which source the binary was built from, from the version
// control information Go embeds at build (go build from a git clone does,
// unless -buildvcs=false): the commit, its time, and whether the tree held
// uncommitted changes. A build without that information says so.
func buildText(bi *debug.BuildInfo, ok bool) string {
	settings := map[string]string{}
	if ok {
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
	}
	rev := settings["vcs.revision"]
	if rev == "" {
		return "built without version control information (build from a git clone without -buildvcs=false, or set -ldflags \"-X main.version=…\")"
	}
	text := "commit " + rev
	if t := settings["vcs.time"]; t != "" {
		text += " of " + t
	}
	if settings["vcs.modified"] == "true" {
		text += ", with uncommitted changes"
	}
	return text
}

func runVersion(inv *invocation) error {
	bi, ok := debug.ReadBuildInfo()
	fmt.Fprintf(inv.io.out, "sutura %s, %s\n", versionString(), buildText(bi, ok))
	return nil
}

func doctorFlags(fs *flag.FlagSet) {
	fs.Bool("verbose", false, "also list every module compiled into the binary")
}

// runDoctor reports the checks first (configuration, catalogue, each
// source reachable), then how the binary was built, where audit records
// go and the effective configuration (secrets redacted); with --verbose,
// every module compiled in. It exits 1 if any check failed.
func runDoctor(inv *invocation) error {
	w := inv.io.out
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
	b, name, err := compose.LoadBundle(cfg)
	check("catalogue", err)
	for _, c := range compose.CheckSources(inv.ctx, cfg) {
		check(fmt.Sprintf("source %s (%s) reachable", c.Alias, c.Kind), c.Err)
	}
	fmt.Fprintln(w)
	bi, ok := debug.ReadBuildInfo()
	fmt.Fprintf(w, "sutura     %s, %s\n", versionString(), buildText(bi, ok))
	fmt.Fprintf(w, "go         %s %s/%s, %d CPUs\n", goruntime.Version(), goruntime.GOOS, goruntime.GOARCH, goruntime.NumCPU())
	if dir := cfg.Dir; dir != "" {
		fmt.Fprintf(w, "config     %s (environment %s)\n", dir, cfg.Environment)
	} else {
		fmt.Fprintf(w, "config     none (environment %s): the embedded demo\n", cfg.Environment)
	}
	if b != nil {
		fmt.Fprintf(w, "catalogue  %s version %s digest %s\n", name, b.Version(), b.Digest())
	}
	// Whether cgo was on says whether duckdb sources can open: always shown.
	for _, st := range bi.Settings {
		if ok && st.Key == "CGO_ENABLED" {
			fmt.Fprintf(w, "build      %s=%s\n", st.Key, st.Value)
		}
	}
	fmt.Fprintf(w, "admission  %s, %s window\n", plural(cfg.Runtime.MaxConcurrentQueries, "slot", "slots"), cfg.Runtime.AdmissionTimeout())
	fmt.Fprintf(w, "audit      %s\n", auditText(inv, cfg))
	if red, err := cfg.Redacted(); err == nil {
		fmt.Fprintf(w, "effective configuration (secrets redacted):\n%s", indent(string(red)))
	}
	if ok && inv.boolFlag("verbose") {
		for _, s := range bi.Settings {
			if s.Key != "CGO_ENABLED" {
				fmt.Fprintf(w, "build      %s=%s\n", s.Key, s.Value)
			}
		}
		for _, d := range bi.Deps {
			fmt.Fprintf(w, "module     %s %s\n", d.Path, d.Version)
		}
	}
	if failed {
		return errReported
	}
	return nil
}

// auditText says where the audit records of a command go (see
// terminalAudit).
func auditText(inv *invocation, cfg *config.Config) string {
	switch {
	case cfg.Audit.Sink == config.SinkFile:
		return "file " + cfg.Audit.File + " (audit.sink)"
	case cfg.Audit.SinkChosen:
		return "standard error (audit.sink)"
	}
	dir, err := stateDir(inv.env)
	if err != nil {
		return "standard error (audit.sink unset; no state directory for a terminal's records)"
	}
	return "standard error; when standard error is a terminal, " + dir + "/" + auditFileName + " (audit.sink unset)"
}

func indent(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("  " + line + "\n")
	}
	return b.String()
}

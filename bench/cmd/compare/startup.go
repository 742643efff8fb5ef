package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"sutura.dev/bench/web"
	"sutura.dev/examples/demo"
)

// ensureWebData generates the web data set in each format the engines
// (and -startup) need, unless its events file is there, then writes its
// catalogue with the anchor DuckDB computes from the data.
func ensureWebData(ctx context.Context, c config, d dataSet) error {
	formats := map[string]bool{}
	for _, e := range c.engines {
		for _, f := range engines[e].formats {
			formats[f] = true
		}
	}
	var have string
	for _, f := range []string{"parquet", "csv", "ndjson"} {
		if _, err := os.Stat(filepath.Join(d.dir(f), "events."+f)); err == nil {
			have = f
			continue
		}
		if !formats[f] {
			continue
		}
		log.Printf("generating %d web events as %s into %s …", d.rows, f, d.dir(f))
		t := time.Now()
		if err := web.Generate(ctx, d.dir(f), f, d.rows); err != nil {
			return err
		}
		log.Printf("generated in %s", time.Since(t).Round(time.Millisecond))
		have = f
	}
	if have == "" {
		return fmt.Errorf("no web data: the engines read no format")
	}
	anchor, err := web.Anchor(ctx, d.dir(have), have)
	if err != nil {
		return err
	}
	return web.WriteCatalog(d.catalogDir(), anchor)
}

// startupFormats are the formats whose sutura engine the run measured.
func startupFormats(c config) []string {
	var out []string
	for _, f := range []string{"parquet", "csv", "ndjson"} {
		if slices.Contains(c.engines, "sutura-"+f) {
			out = append(out, f)
		}
	}
	return out
}

// buildSutura builds the sutura binary from the workspace at c.repo.
func buildSutura(ctx context.Context, c config) (string, error) {
	bin, err := filepath.Abs(filepath.Join(c.work, "sutura-bin"))
	if err != nil {
		return "", err
	}
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cli/cmd/sutura")
	build.Dir = c.repo
	build.Env = withoutGOWORK(os.Environ())
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("build sutura in %s: %w", c.repo, err)
	}
	return bin, nil
}

// writeConfig writes a configuration directory serving the data set's
// catalogue (catalogDir) over its data in one format, and returns it.
func writeConfig(c config, d dataSet, format string) (string, error) {
	dir, err := filepath.Abs(filepath.Join(c.work, fmt.Sprintf("%s-config-%s-%d", d.shape, format, d.rows)))
	if err != nil {
		return "", err
	}
	cat, err := filepath.Abs(d.catalogDir())
	if err != nil {
		return "", err
	}
	data, err := filepath.Abs(d.dir(format))
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	runtimeYAML := "runtime: {admission_timeout_seconds: 300}\n"
	if c.workingSet > 0 {
		runtimeYAML = fmt.Sprintf("runtime: {admission_timeout_seconds: 300, working_set_max_bytes: %d}\n", c.workingSet)
	}
	version, alias := web.Version, web.SourceAlias
	if d.shape != "web" {
		version, alias = demo.Version, demo.SourceAlias
	}
	body := fmt.Sprintf(`catalogs:
  - {name: %s, kind: markdown, dir: %s, version: %s}
security: {identity: single-user}
server: {request_timeout_seconds: 300}
sources:
  %s: {kind: files, posture: shared-service-user, data_dir: %s}
%s`, d.shape, cat, version, alias, data, runtimeYAML)
	return dir, os.WriteFile(filepath.Join(dir, "base.yaml"), []byte(body), 0o600)
}

// serveStart is one start of `sutura serve`: the time until it printed
// its listening line (it listens only once validation has passed) and
// until /ready answered 200, and the process's peak resident set.
type serveStart struct {
	listenMS, readyMS float64
	peakRSS           int64
}

// startServe starts `sutura serve` (bin) on a free port through the
// spawner spawnBin (measured), waits until it is ready, and stops it with
// SIGTERM.
func startServe(ctx context.Context, spawnBin, bin, cfgDir string, timeout time.Duration) (serveStart, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve", "--port", "0")
	cmd.Env = append(os.Environ(), "SUTURA_CONFIG_DIR="+cfgDir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return serveStart{}, err
	}
	spawner, err := measured(spawnBin, cmd)
	if err != nil {
		return serveStart{}, err
	}
	if err := cmd.Start(); err != nil {
		return serveStart{}, err
	}
	var s serveStart
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Wait()
		return s, fmt.Errorf("sutura serve printed no listening line: %w: %s", err, oneLine(stderr.String()))
	}
	listening := time.Now()
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return s, fmt.Errorf("sutura serve: unexpected first line %q", line)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	for {
		resp, err := http.Get(base + "/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if ctx.Err() != nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	ready := time.Now()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		return s, fmt.Errorf("sutura serve did not exit cleanly: %w", err)
	}
	// Timed from when the spawner started sutura, not from the spawner's
	// own start.
	sp, err := spawner()
	if err != nil {
		return s, err
	}
	s.listenMS, s.readyMS, s.peakRSS = ms(listening.Sub(sp.start)), ms(ready.Sub(sp.start)), sp.peak
	return s, nil
}

// queryOnce runs `sutura query --json` (bin) on one question file through
// the spawner spawnBin (measured): its total wall time and peak resident
// set.
func queryOnce(ctx context.Context, spawnBin, bin, cfgDir, questionFile string, timeout time.Duration) (float64, int64, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "query", "--json", questionFile)
	cmd.Env = append(os.Environ(), "SUTURA_CONFIG_DIR="+cfgDir)
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	spawner, err := measured(spawnBin, cmd)
	if err != nil {
		return 0, 0, err
	}
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("sutura query %s: %w: %s", questionFile, err, oneLine(stderr.String()))
	}
	sp, err := spawner()
	if err != nil {
		return 0, 0, err
	}
	return ms(sp.end.Sub(sp.start)), sp.peak, nil
}

// measureStartup measures, per format whose sutura engine the run
// measured, `sutura serve` until ready (-startup-runs times) and `sutura
// query` per question, whose total is set against the question's own
// first answer (a child's, engine already open) measured again just
// before it, not minutes earlier. It prints the tables and returns false
// when a process failed.
func measureStartup(ctx context.Context, w io.Writer, c config, d dataSet, idx []int, reps []report) bool {
	if d.shape != "web" {
		if fs := startupFormats(c); len(fs) > 0 {
			if err := writeDemoCatalog(ctx, d, fs[0]); err != nil {
				fmt.Fprintf(w, "FAILED: %v\n", err)
				return false
			}
		}
	}
	bin, err := buildSutura(ctx, c)
	if err != nil {
		fmt.Fprintf(w, "FAILED: %v\n", err)
		return false
	}
	by := map[[2]string]report{}
	for _, r := range reps {
		by[[2]string{r.Case, r.Engine}] = r
	}
	ok := true
	fmt.Fprintf(w, "Start-up: `sutura serve` until it listens (validation passed) and /ready answers 200, median of %d (min–max); peak RSS of the process\n\n", c.startups)
	fmt.Fprintln(w, "| format | listening ms | ready ms | min–max ms | peak RSS | target < 1000 ms |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | --- |")
	cfgs := map[string]string{}
	for _, f := range startupFormats(c) {
		cfg, err := writeConfig(c, d, f)
		if err != nil {
			fmt.Fprintf(w, "| %s | FAILED: %v |\n", f, err)
			ok = false
			continue
		}
		cfgs[f] = cfg
		var listen, ready []float64
		var peak int64
		for range c.startups {
			log.Printf("sutura serve on %s (load %s) …", f, loadAvg())
			if err := c.warm(d, f); err != nil {
				fmt.Fprintf(w, "| %s | FAILED: %v |\n", f, err)
				ok = false
				break
			}
			s, err := startServe(ctx, c.spawner, bin, cfg, c.timeout)
			if err != nil {
				fmt.Fprintf(w, "| %s | FAILED: %v |\n", f, err)
				ok = false
				break
			}
			listen, ready = append(listen, s.listenMS), append(ready, s.readyMS)
			peak = max(peak, s.peakRSS)
		}
		if len(ready) == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s | %.0f | %.0f | %.0f–%.0f | %s | %s |\n", f, median(listen), median(ready),
			slices.Min(ready), slices.Max(ready), mib(peak), met(median(ready) < 1000))
		ok = underCeiling(w, c, "sutura serve on "+f, peak) && ok
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "`sutura query --json` (a fresh process: configuration, catalogue, start-up checks, the answer) against the question's first answer on an open engine, measured again in a fresh process just before it")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| question | format | query total ms | first answer ms | ratio | peak RSS | target ≤ 1.2× |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | ---: | --- |")
	qdir := filepath.Join(c.work, d.shape+"-questions")
	if err := os.MkdirAll(qdir, 0o755); err != nil {
		fmt.Fprintf(w, "FAILED: %v\n", err)
		return false
	}
	for _, i := range idx {
		bc := cases[i]
		body, err := json.Marshal(bc.Question)
		if err != nil {
			fmt.Fprintf(w, "FAILED: %v\n", err)
			return false
		}
		file := filepath.Join(qdir, bc.Name+".json")
		if err := os.WriteFile(file, body, 0o644); err != nil {
			fmt.Fprintf(w, "FAILED: %v\n", err)
			return false
		}
		for _, f := range startupFormats(c) {
			cfg, have := cfgs[f]
			if !have {
				continue
			}
			log.Printf("sutura query %s on %s (load %s) …", bc.Name, f, loadAvg())
			// The first answer again, in a fresh process just before the
			// one-shot question: this machine drifts within minutes, and
			// two figures set against each other are taken together.
			first := by[[2]string{bc.Name, "sutura-" + f}].FirstMS
			again, err := runChild(ctx, c, "sutura-"+f, bc.Name)
			total, peak := 0.0, int64(0)
			if err == nil {
				first = again.FirstMS
				if err = c.warm(d, f); err == nil {
					total, peak, err = queryOnce(ctx, c.spawner, bin, cfg, file, c.timeout)
				}
			}
			if err != nil {
				fmt.Fprintf(w, "| %s | %s | FAILED: %v |\n", bc.Name, f, err)
				ok = false
				continue
			}
			ratio, target := "–", "–"
			if first > 0 {
				ratio = fmt.Sprintf("%.2f×", total/first)
				target = met(total <= 1.2*first)
			}
			fmt.Fprintf(w, "| %s | %s | %.0f | %.0f | %s | %s | %s |\n", bc.Name, f, total, first, ratio, mib(peak), target)
			ok = underCeiling(w, c, "sutura query "+bc.Name+" on "+f, peak) && ok
		}
	}
	fmt.Fprintln(w)
	return ok
}

// underCeiling reports whether a sutura process's peak resident set stayed
// under the documented ceiling (rssBound), and says so when it did not:
// the built binary is held to it as the engine's children are.
func underCeiling(w io.Writer, c config, what string, peak int64) bool {
	if bound := rssBound(c.workingSet); peak > bound {
		fmt.Fprintf(w, "OVER THE MEMORY CEILING: %s peaked at %s MiB, over the working set + overhead of %s MiB\n", what, mib(peak), mib(bound))
		return false
	}
	return true
}

func met(b bool) string {
	if b {
		return "met"
	}
	return "NOT MET"
}

// oneLine is s on one line, for a table cell.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

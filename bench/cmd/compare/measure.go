package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"sutura.dev/bench/engine"
	arrowengine "sutura.dev/exec-arrow"
)

// report is one engine's measurements of one question, in a fresh
// process, sent from the child as JSON.
type report struct {
	Engine string `json:"engine"`
	Case   string `json:"case"`
	Error  string `json:"error,omitempty"`
	// SetupMS is opening (or loading) the data, before the question.
	SetupMS       float64 `json:"setup_ms"`
	RSSAfterSetup int64   `json:"rss_after_setup"`
	// The first answer in the fresh process: the cold figure. Its peak is
	// the resident set's high-water mark from the end of setup to the
	// answer (VmHWM, reset through /proc/self/clear_refs).
	FirstMS      float64 `json:"first_ms"`
	FirstCPUMS   float64 `json:"first_cpu_ms"`
	FirstPeakRSS int64   `json:"first_peak_rss"`
	Rows         int     `json:"rows"`
	Digest       string  `json:"digest"`
	// Warm runs, after Warm (for an engine that fills caches in the
	// background) and one warm-up run; their peak is measured the same way.
	WarmMS      []float64 `json:"warm_ms,omitempty"`
	WarmCPUMS   []float64 `json:"warm_cpu_ms,omitempty"`
	WarmPeakRSS int64     `json:"warm_peak_rss,omitempty"`
	// Footprint is the bytes of data the engine holds after Warm (for
	// sutura: the Arrow columns the question reads), when it can say.
	Footprint int64 `json:"footprint,omitempty"`
	// PeakResets says whether peaks could be reset per phase; if not,
	// they count from the process's start.
	PeakResets bool `json:"peak_resets"`
	// ProcessPeakRSS is the child's lifetime peak, from the parent's
	// wait4 (setup included).
	ProcessPeakRSS int64 `json:"process_peak_rss"`
	// DuringFillMS is, for sutura, the answer asked again at once after the
	// first answer of a filling engine, while its background fill runs.
	DuringFillMS float64 `json:"during_fill_ms,omitempty"`
	// WarmUpMS is how long the warm-up took: the first answer of an
	// engine that fills its cache, the answer asked again at once, and
	// the wait for the fill to end.
	WarmUpMS float64 `json:"warm_up_ms,omitempty"`
	// ChecksMS is how long the start-up checks took before the warm-up
	// (not in WarmUpMS): for sutura, the whole read of text files a
	// serving process runs in the background once it listens.
	ChecksMS float64 `json:"checks_ms,omitempty"`
	// FirstPhases and WarmPhases are, for an engine that times its
	// phases (engine.Phaser), the first answer's and the warm runs'
	// median time in each, in ms.
	FirstPhases map[string]float64 `json:"first_phases,omitempty"`
	WarmPhases  map[string]float64 `json:"warm_phases,omitempty"`
}

// phases is the last Run's phases of e in ms, when it times them.
func phases(e engine.Engine) map[string]float64 {
	p, ok := e.(engine.Phaser)
	if !ok {
		return nil
	}
	out := map[string]float64{}
	for k, d := range p.Phases() {
		out[k] = ms(d)
	}
	return out
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(v))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// measure sets one engine up and measures one question: the first answer,
// then (with -runs) the warm answers.
func measure(ctx context.Context, c config, name, caseName string) (report, error) {
	rep := report{Engine: name, Case: caseName}
	i := slices.IndexFunc(cases, func(bc engine.Case) bool { return bc.Name == caseName })
	if i < 0 {
		return rep, fmt.Errorf("no question %q", caseName)
	}
	bc := cases[i]
	if strings.HasPrefix(name, "sutura") {
		arrowengine.TuneCollector(c.workingSet) // as sutura sets it when it serves
	}
	start := time.Now()
	e, err := engines[name].open(ctx, dataSet{work: c.work, rows: c.rows, shape: c.shape}, c)
	if err != nil {
		return rep, err
	}
	if cl, ok := e.(io.Closer); ok {
		defer cl.Close()
	}
	rep.SetupMS = ms(time.Since(start))
	rep.RSSAfterSetup = procStatus("VmRSS")
	runtime.GC()
	rep.PeakResets = resetPeak() == nil
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile + name + "." + caseName + ".pprof")
		if err != nil {
			return rep, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return rep, err
		}
	}
	cpu, t := cpuTime(), time.Now()
	res, err := e.Run(ctx, bc)
	if c.cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	if err != nil {
		return rep, err
	}
	rep.FirstMS, rep.FirstCPUMS = ms(time.Since(t)), ms(cpuTime()-cpu)
	rep.FirstPeakRSS = procStatus("VmHWM")
	rep.FirstPhases = phases(e)
	rep.Rows = len(res.Rows)
	if rep.Digest, err = digest(res); err != nil {
		return rep, err
	}
	if c.runs == 0 {
		return rep, nil
	}
	if wm, ok := e.(engine.Warmer); ok {
		t := time.Now()
		if err := wm.Warm(ctx, bc); err != nil {
			return rep, err
		}
		took := time.Since(t)
		if ch, ok := e.(interface{ Checks() time.Duration }); ok {
			rep.ChecksMS = ms(ch.Checks())
			took -= ch.Checks()
		}
		rep.WarmUpMS = ms(took)
	}
	if d, ok := e.(interface{ DuringFill() time.Duration }); ok {
		rep.DuringFillMS = ms(d.DuringFill())
	}
	if f, ok := e.(engine.Footprinter); ok {
		rep.Footprint = f.Footprint()
	}
	if _, err := e.Run(ctx, bc); err != nil { // warm-up
		return rep, err
	}
	runtime.GC()
	_ = resetPeak()
	warmPhases := map[string][]float64{}
	if c.cpuProfile != "" {
		// The warm runs' profile, beside the first answer's.
		f, err := os.Create(c.cpuProfile + name + "." + caseName + ".warm.pprof")
		if err != nil {
			return rep, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return rep, err
		}
		defer pprof.StopCPUProfile()
	}
	for range c.runs {
		cpu, t := cpuTime(), time.Now()
		if _, err := e.Run(ctx, bc); err != nil {
			return rep, err
		}
		rep.WarmMS = append(rep.WarmMS, ms(time.Since(t)))
		rep.WarmCPUMS = append(rep.WarmCPUMS, ms(cpuTime()-cpu))
		for k, v := range phases(e) {
			warmPhases[k] = append(warmPhases[k], v)
		}
	}
	rep.WarmPeakRSS = procStatus("VmHWM")
	for k, v := range warmPhases {
		if rep.WarmPhases == nil {
			rep.WarmPhases = map[string]float64{}
		}
		rep.WarmPhases[k] = median(v)
	}
	return rep, nil
}

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadAvg is the first three fields of /proc/loadavg.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// digest identifies an answer: SHA-256 of its columns and rows as JSON.
func digest(r engine.Result) (string, error) {
	b, err := json.Marshal(struct {
		C []string
		R [][]*string
	}{r.Columns, r.Rows})
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8]), nil
}

// resetPeak resets the process's peak RSS (VmHWM) to its current RSS.
func resetPeak() error { return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// procStatus reads a kB field of /proc/self/status, in bytes (0 if absent).
func procStatus(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || k != field {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			return 0
		}
		return n * 1024
	}
	return 0
}

func mib(b int64) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f", float64(b)/(1<<20))
}

// printReports prints every measurement, the comparison tables, and
// whether every engine's answers equal the reference's. It returns false
// when an answer differs or an engine failed.
func printReports(w io.Writer, c config, idx []int, reps []report, loadBefore string) bool {
	warm := "first answers only"
	if c.runs > 0 {
		warm = fmt.Sprintf("%d warm runs after one warm-up", c.runs)
	}
	fmt.Fprintf(w, "\n%s data set, %d fact rows; every question on every engine in a fresh process; %s; %d CPUs; load average %s before, %s after;\n"+
		"times in ms (wall; cpu = user+system of the engine's process), memory in MiB\n\n",
		c.shape, c.rows, warm, runtime.NumCPU(), loadBefore, loadAvg())
	by := map[[2]string]report{}
	for _, r := range reps {
		by[[2]string{r.Case, r.Engine}] = r
	}
	fmt.Fprintln(w, "| question | engine | rows | setup ms | first ms | first cpu ms | first peak RSS | warm median ms | warm min | warm max | warm peak RSS | data held | process peak |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	ok := true
	for _, i := range idx {
		name := cases[i].Name
		for _, e := range c.engines {
			r := by[[2]string{name, e}]
			if r.Error != "" {
				fmt.Fprintf(w, "| %s | %s | FAILED: %s |\n", name, e, r.Error)
				ok = false
				continue
			}
			warmMin, warmMax := 0.0, 0.0
			if len(r.WarmMS) > 0 {
				warmMin, warmMax = slices.Min(r.WarmMS), slices.Max(r.WarmMS)
			}
			fmt.Fprintf(w, "| %s | %s | %d | %.0f | %.0f | %.0f | %s | %.1f | %.1f | %.1f | %s | %s | %s |\n", name, e, r.Rows,
				r.SetupMS, r.FirstMS, r.FirstCPUMS, mib(r.FirstPeakRSS), median(r.WarmMS), warmMin, warmMax, mib(r.WarmPeakRSS), mib(r.Footprint), mib(r.ProcessPeakRSS))
		}
	}
	fmt.Fprintln(w)
	if !ceiling(w, c, reps) {
		ok = false
	}
	for _, r := range reps {
		if r.DuringFillMS > 0 {
			fmt.Fprintf(w, "%s on %s: first %.0f ms, start-up checks before the warm-up %.0f ms, asked again while the fill runs %.0f ms, warm-up until filled %.0f ms, warm median %.1f ms (cpu %.1f)\n",
				r.Case, r.Engine, r.FirstMS, r.ChecksMS, r.DuringFillMS, r.WarmUpMS, median(r.WarmMS), median(r.WarmCPUMS))
		}
	}
	ratioTable(w, c, idx, by, "First answer (cold), Parquet", "sutura-parquet", "duckdb-parquet", func(r report) float64 { return r.FirstMS }, true)
	ratioTable(w, c, idx, by, "First answer (cold), CSV", "sutura-csv", "duckdb-csv", func(r report) float64 { return r.FirstMS }, true)
	ratioTable(w, c, idx, by, "Warm answers (median)", "sutura-parquet", "duckdb-memory", func(r report) float64 { return median(r.WarmMS) }, false)
	ratioTable(w, c, idx, by, "Warm answers (median), CSV", "sutura-csv", "duckdb-memory", func(r report) float64 { return median(r.WarmMS) }, false)
	phaseTable(w, c, idx, by)

	ref := ""
	for _, e := range referenceOrder {
		if slices.Contains(c.engines, e) {
			ref = e
			break
		}
	}
	if ref == "" && len(c.engines) > 0 {
		ref = c.engines[0]
	}
	var differ []string
	for _, i := range idx {
		name := cases[i].Name
		want := by[[2]string{name, ref}]
		for _, e := range c.engines {
			r := by[[2]string{name, e}]
			if r.Error == "" && want.Error == "" && r.Digest != want.Digest {
				differ = append(differ, name+" ("+e+")")
			}
		}
	}
	switch {
	case len(differ) > 0:
		fmt.Fprintf(w, "ANSWERS DIFFER from %s's on: %s\n", ref, strings.Join(differ, ", "))
		ok = false
	case ok:
		fmt.Fprintf(w, "Every engine returned %s's answer (columns and canonical cells) on every question.\n", ref)
	}
	for _, r := range reps {
		if !r.PeakResets {
			fmt.Fprintf(w, "note: %s could not reset its peak RSS; its peaks count from process start\n", r.Engine)
			break
		}
	}
	return ok
}

// rssBound is the documented ceiling of a process running the embedded
// engine (docs/operations.md, "Memory under load"): the working set (1 GiB
// when ws is 0) plus 320 MiB plus a quarter of the working set.
func rssBound(ws int64) int64 { return arrowengine.ProcessCeiling(ws) }

// ceiling checks every sutura process's peak resident set (first, warm and
// the process's lifetime, which holds the background fill) against
// rssBound, and reports false when one passed it.
func ceiling(w io.Writer, c config, reps []report) bool {
	bound, ok := rssBound(c.workingSet), true
	for _, r := range reps {
		if !strings.HasPrefix(r.Engine, "sutura") || r.Error != "" {
			continue
		}
		if peak := max(r.FirstPeakRSS, r.WarmPeakRSS, r.ProcessPeakRSS); peak > bound {
			fmt.Fprintf(w, "OVER THE MEMORY CEILING: %s on %s peaked at %s MiB, over the working set + overhead of %s MiB\n", r.Case, r.Engine, mib(peak), mib(bound))
			ok = false
		}
	}
	if ok {
		fmt.Fprintf(w, "Every sutura process stayed under the working set + overhead of %s MiB (docs/operations.md, \"Memory under load\").\n\n", mib(bound))
	}
	return ok
}

// phaseTable shows, for the engines that time their phases (the
// federated one), where the first and the warm answers' time went: the
// legs (run at once) and the combine, with the combine's share of the
// answer.
func phaseTable(w io.Writer, c config, idx []int, by map[[2]string]report) {
	header := false
	for _, i := range idx {
		name := cases[i].Name
		for _, e := range c.engines {
			r := by[[2]string{name, e}]
			if r.Error != "" || r.FirstPhases == nil {
				continue
			}
			if !header {
				fmt.Fprintln(w, "Phases of a federated answer: the legs at once, then the combine (ms; share of the answer)")
				fmt.Fprintln(w)
				fmt.Fprintln(w, "| question | engine | first ms | first legs | first combine | combine share | warm median ms | warm legs | warm combine | combine share |")
				fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
				header = true
			}
			share := func(part, whole float64) string {
				if whole == 0 {
					return "–"
				}
				return fmt.Sprintf("%.1f%%", 100*part/whole)
			}
			wm := median(r.WarmMS)
			fmt.Fprintf(w, "| %s | %s | %.0f | %.0f | %.1f | %s | %.1f | %.1f | %.1f | %s |\n", name, e, r.FirstMS,
				r.FirstPhases["legs"], r.FirstPhases["combine"], share(r.FirstPhases["combine"], r.FirstMS),
				wm, r.WarmPhases["legs"], r.WarmPhases["combine"], share(r.WarmPhases["combine"], wm))
		}
	}
	if header {
		fmt.Fprintln(w)
	}
}

// ratioTable compares engine a with engine b on every question, when the
// run measured both.
func ratioTable(w io.Writer, c config, idx []int, by map[[2]string]report, title, a, b string, val func(report) float64, peaks bool) {
	if !slices.Contains(c.engines, a) || !slices.Contains(c.engines, b) {
		return
	}
	fmt.Fprintf(w, "%s: %s against %s\n\n", title, a, b)
	if peaks {
		fmt.Fprintf(w, "| question | %s ms | %s ms | ratio | %s peak RSS | %s peak RSS |\n| --- | ---: | ---: | ---: | ---: | ---: |\n", a, b, a, b)
	} else {
		fmt.Fprintf(w, "| question | %s ms | %s ms | ratio |\n| --- | ---: | ---: | ---: |\n", a, b)
	}
	for _, i := range idx {
		name := cases[i].Name
		ra, rb := by[[2]string{name, a}], by[[2]string{name, b}]
		if ra.Error != "" || rb.Error != "" || val(rb) == 0 {
			continue
		}
		if peaks {
			fmt.Fprintf(w, "| %s | %.0f | %.0f | %.2f× | %s | %s |\n", name, val(ra), val(rb), val(ra)/val(rb), mib(ra.FirstPeakRSS), mib(rb.FirstPeakRSS))
		} else {
			fmt.Fprintf(w, "| %s | %.1f | %.1f | %.2f× |\n", name, val(ra), val(rb), val(ra)/val(rb))
		}
	}
	fmt.Fprintln(w)
}

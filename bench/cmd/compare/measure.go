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
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"sutura.dev/bench/engine"
)

// report is one engine's measurements, sent from the child as JSON.
type report struct {
	Engine string `json:"engine"`
	// Setup is opening or loading the data, before the first question.
	SetupMS       float64 `json:"setup_ms"`
	SetupPeakRSS  int64   `json:"setup_peak_rss"`
	RSSAfterSetup int64   `json:"rss_after_setup"`
	// PeakRSS is the process's peak over its whole life.
	PeakRSS int64 `json:"peak_rss"`
	// PeakResets says whether the peak could be reset per phase
	// (/proc/self/clear_refs); if not, peaks are since process start.
	PeakResets bool             `json:"peak_resets"`
	Questions  []questionReport `json:"questions"`
}

// questionReport is one question's measurements on one engine.
type questionReport struct {
	Name    string    `json:"name"`
	Rows    int       `json:"rows"`
	Digest  string    `json:"digest"`
	FirstMS float64   `json:"first_ms"`
	RunsMS  []float64 `json:"runs_ms"`
	// CPUMS is the process's user+system CPU time of each timed run: all
	// of the engine's threads, and less sensitive to a busy machine than
	// the wall time.
	CPUMS   []float64 `json:"cpu_ms"`
	PeakRSS int64     `json:"peak_rss"`
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// measure sets one engine up and times every selected question.
func measure(ctx context.Context, c config, name string) (report, error) {
	idx, err := selected(c)
	if err != nil {
		return report{}, err
	}
	rep := report{Engine: name, PeakResets: resetPeak() == nil}
	start := time.Now()
	e, err := engines[name].open(ctx, dataSet{work: c.work, rows: c.rows})
	if err != nil {
		return report{}, err
	}
	if cl, ok := e.(io.Closer); ok {
		defer cl.Close()
	}
	rep.SetupMS = ms(time.Since(start))
	rep.SetupPeakRSS, rep.RSSAfterSetup = procStatus("VmHWM"), procStatus("VmRSS")
	for _, i := range idx {
		bc := benchCases[i]
		qr := questionReport{Name: bc.Name}
		runtime.GC()
		_ = resetPeak()
		t := time.Now()
		res, err := e.Run(ctx, bc)
		if err != nil {
			return report{}, fmt.Errorf("%s: %w", bc.Name, err)
		}
		qr.FirstMS = ms(time.Since(t))
		qr.Rows = len(res.Rows)
		if qr.Digest, err = digest(res); err != nil {
			return report{}, err
		}
		for range c.runs {
			cpu, t := cpuTime(), time.Now()
			if _, err := e.Run(ctx, bc); err != nil {
				return report{}, fmt.Errorf("%s: %w", bc.Name, err)
			}
			qr.RunsMS = append(qr.RunsMS, ms(time.Since(t)))
			qr.CPUMS = append(qr.CPUMS, ms(cpuTime()-cpu))
		}
		qr.PeakRSS = procStatus("VmHWM")
		rep.Questions = append(rep.Questions, qr)
	}
	rep.PeakRSS = procStatus("VmHWM")
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

func mib(b int64) string { return fmt.Sprintf("%.0f", float64(b)/(1<<20)) }

// printReports prints the setup table, the per-question table and whether
// the engines agree on every answer.
func printReports(w io.Writer, c config, reps []report, loadBefore string) {
	fmt.Fprintf(w, "\n%d order rows; %d timed runs per question after one warm-up; %d CPUs; load average %s before, %s after;\n"+
		"times in ms (wall; cpu = user+system of the engine's process), memory in MiB (RSS)\n\n",
		c.rows, c.runs, runtime.NumCPU(), loadBefore, loadAvg())
	fmt.Fprintln(w, "| engine | setup ms | peak RSS in setup | RSS after setup | peak RSS overall |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: |")
	for _, r := range reps {
		fmt.Fprintf(w, "| %s | %.0f | %s | %s | %s |\n", r.Engine, r.SetupMS, mib(r.SetupPeakRSS), mib(r.RSSAfterSetup), mib(r.PeakRSS))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| question | engine | rows | median ms | min ms | max ms | first ms | median cpu ms | peak RSS |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	var disagree []string
	for qi, bc := range benchCases {
		var digests []string
		for _, r := range reps {
			for _, q := range r.Questions {
				if q.Name != bc.Name {
					continue
				}
				fmt.Fprintf(w, "| %s | %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %s |\n", q.Name, r.Engine, q.Rows,
					median(q.RunsMS), slices.Min(q.RunsMS), slices.Max(q.RunsMS), q.FirstMS, median(q.CPUMS), mib(q.PeakRSS))
				digests = append(digests, q.Digest)
			}
		}
		if len(slices.Compact(slices.Clone(digests))) > 1 {
			disagree = append(disagree, benchCases[qi].Name)
		}
	}
	fmt.Fprintln(w)
	if len(disagree) > 0 {
		fmt.Fprintf(w, "ANSWERS DIFFER between engines on: %s\n", strings.Join(disagree, ", "))
	} else {
		fmt.Fprintln(w, "All engines returned identical answers (columns and canonical cells) on every question.")
	}
	for _, r := range reps {
		if !r.PeakResets {
			fmt.Fprintf(w, "note: %s could not reset its peak RSS; its peaks count from process start\n", r.Engine)
		}
	}
}

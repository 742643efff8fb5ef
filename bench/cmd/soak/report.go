package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"
)

// tally is what the callers of one transport saw.
type tally struct {
	lat        []time.Duration
	outcomes   map[string]int // by outcome name
	unexpected map[string]int // outcomes that were neither the question's nor a documented refusal
	errors     map[string]int // calls that got no outcome, by error text
}

func newTally() *tally {
	return &tally{outcomes: map[string]int{}, unexpected: map[string]int{}, errors: map[string]int{}}
}

// add counts one call of q that took d and got got, or err.
func (t *tally) add(d time.Duration, q question, got string, err error) {
	t.lat = append(t.lat, d)
	if err != nil {
		msg := err.Error()
		if len(msg) > 160 {
			msg = msg[:160] + "…"
		}
		t.errors[msg]++
		return
	}
	t.outcomes[got]++
	if !documented(q, got) {
		t.unexpected[got+" (wanted "+q.want+")"]++
	}
}

// documented reports whether got is an outcome q may get: its own, or
// at_capacity, the documented answer of a full server (docs/contract.md
// §5: ask again shortly).
func documented(q question, got string) bool {
	return got == q.want || got == "at_capacity"
}

func (t *tally) merge(o *tally) {
	t.lat = append(t.lat, o.lat...)
	for k, v := range o.outcomes {
		t.outcomes[k] += v
	}
	for k, v := range o.unexpected {
		t.unexpected[k] += v
	}
	for k, v := range o.errors {
		t.errors[k] += v
	}
}

// returned is the number of calls that got an outcome: each has one
// audit record.
func (t *tally) returned() int {
	n := 0
	for _, v := range t.outcomes {
		n += v
	}
	return n
}

// quantile is the q-quantile (0..1) of sorted, nearest rank.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// sample is the resident memory of the processes (in the order of
// report.peaks) at a moment of the load, after calls calls.
type sample struct {
	at    time.Duration
	calls int64
	rss   []int64
}

// peak is a process's peak resident memory (VmHWM).
type peak struct {
	name  string
	bytes int64
}

// report is what a soak saw.
type report struct {
	config      config
	questions   int
	elapsed     time.Duration
	byTransport map[string]*tally
	samples     []sample
	peaks       []peak
	audit       int64    // audit records the processes wrote
	problems    []string // a process that did not end well
}

// print writes the report and returns whether the soak passed: no call
// without an outcome, no outcome but the question's own or a documented
// refusal, one audit record per outcome, and every process ended well.
func (r *report) print(w io.Writer) bool {
	host, _ := os.Hostname()
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(w, "soak: %v of load, %d questions in turn, mix %s; %s, GOMAXPROCS %d, load average at the end %s\n\n",
		r.elapsed.Round(time.Second), r.questions, mixString(r.config.mix), host, runtime.GOMAXPROCS(0), strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " "))
	fmt.Fprintln(w, "| transport | callers | calls | calls/s | p50 | p99 | max | outcomes |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
	all := newTally()
	ok := true
	for _, tr := range transports {
		t := r.byTransport[tr]
		if r.config.mix[tr] == 0 {
			continue
		}
		all.merge(t)
		r.row(w, tr, r.config.mix[tr], t)
	}
	total := 0
	for _, n := range r.config.mix {
		total += n
	}
	r.row(w, "all", total, all)

	fmt.Fprintln(w, "\nresident memory (VmRSS) over time:")
	fmt.Fprintf(w, "\n| at | calls |")
	for _, p := range r.peaks {
		fmt.Fprintf(w, " %s |", p.name)
	}
	fmt.Fprintf(w, "\n| ---: | ---: |%s\n", strings.Repeat(" ---: |", len(r.peaks)))
	for _, s := range r.samples {
		fmt.Fprintf(w, "| %v | %d |", s.at.Round(time.Second), s.calls)
		for _, b := range s.rss {
			fmt.Fprintf(w, " %s |", mib(b))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "| peak (VmHWM) | |")
	for _, p := range r.peaks {
		fmt.Fprintf(w, " %s |", mib(p.bytes))
	}
	fmt.Fprintln(w)

	fmt.Fprintf(w, "\naudit records: %d for %d outcomes\n", r.audit, all.returned())
	if int(r.audit) != all.returned() {
		fmt.Fprintln(w, "FAILED: not one audit record per outcome")
		ok = false
	}
	for _, k := range sortedKeys(all.errors) {
		fmt.Fprintf(w, "FAILED: %d calls got no outcome: %s\n", all.errors[k], k)
		ok = false
	}
	for _, k := range sortedKeys(all.unexpected) {
		fmt.Fprintf(w, "FAILED: %d calls got %s\n", all.unexpected[k], k)
		ok = false
	}
	for _, p := range r.problems {
		fmt.Fprintf(w, "FAILED: %s\n", p)
		ok = false
	}
	if ok {
		fmt.Fprintln(w, "OK: every call got its question's outcome or a documented refusal; one audit record each")
	}
	return ok
}

func (r *report) row(w io.Writer, name string, callers int, t *tally) {
	slices.Sort(t.lat)
	var outs []string
	for _, k := range sortedKeys(t.outcomes) {
		outs = append(outs, fmt.Sprintf("%s %d", k, t.outcomes[k]))
	}
	for _, k := range sortedKeys(t.errors) {
		outs = append(outs, fmt.Sprintf("error %d", t.errors[k]))
	}
	fmt.Fprintf(w, "| %s | %d | %d | %.0f | %s | %s | %s | %s |\n", name, callers, len(t.lat),
		float64(len(t.lat))/r.elapsed.Seconds(), ms(quantile(t.lat, 0.5)), ms(quantile(t.lat, 0.99)),
		ms(quantile(t.lat, 1)), strings.Join(outs, ", "))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

func mixString(m map[string]int) string {
	var parts []string
	for _, tr := range transports {
		if m[tr] > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", tr, m[tr]))
		}
	}
	return strings.Join(parts, ",")
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

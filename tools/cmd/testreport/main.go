// Command testreport reads the event stream of `go test -json` on standard
// input and prints what a plain `go test` prints — one line per package,
// build errors, and the whole output of every failing test — and, beside
// it, the message of every test skipped with "NOT RUN: <tier> (<why>)".
// Those messages are hidden by a plain `go test` unless -v is given, so a
// tier that did not run would otherwise pass unseen.
//
// With -notrun FILE, each distinct NOT RUN message is appended to FILE as
// one line, for scripts/test to list in its final lines. testreport exits
// 1 when any test or package failed (or the stream said nothing), 0
// otherwise; scripts/test also checks go test's own exit status.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json's TestEvent).
type event struct {
	Action     string
	Package    string
	ImportPath string
	Test       string
	Output     string
}

// marker starts the message of a test that did not run on purpose.
const marker = "NOT RUN: "

func main() {
	notrun := flag.String("notrun", "", "append each distinct NOT RUN message to this file")
	flag.Parse()
	r, err := report(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(1)
	}
	if *notrun != "" && len(r.notRun) > 0 {
		f, err := os.OpenFile(*notrun, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			for _, m := range r.notRun {
				_, err = fmt.Fprintln(f, m)
			}
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "testreport:", err)
			os.Exit(1)
		}
	}
	if r.failed || r.events == 0 {
		os.Exit(1)
	}
}

// result is what one stream said.
type result struct {
	events int
	failed bool
	// notRun holds each distinct NOT RUN message, in order of appearance.
	notRun []string
}

// report copies the human part of the stream in to out and collects the
// NOT RUN messages.
func report(in io.Reader, out io.Writer) (result, error) {
	var (
		r    result
		seen = map[string]bool{}
		// logs buffers each running test's output until it ends.
		logs = map[string]*strings.Builder{}
	)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			// Not an event: go test printed it itself (a build failure
			// of an older toolchain, a panic outside a test).
			fmt.Fprintf(out, "%s\n", line)
			continue
		}
		r.events++
		key := e.Package + "\x00" + e.Test
		switch e.Action {
		case "build-output":
			fmt.Fprint(out, e.Output)
		case "build-fail":
			r.failed = true
		case "output":
			if e.Test == "" {
				// Package-level lines: "ok  pkg 0.1s", "FAIL pkg",
				// "? pkg [no test files]", and a failing package's tail.
				if !strings.HasPrefix(e.Output, "=== ") && !strings.HasPrefix(e.Output, "--- ") &&
					strings.TrimSpace(e.Output) != "PASS" {
					fmt.Fprint(out, e.Output)
				}
				continue
			}
			b := logs[key]
			if b == nil {
				b = &strings.Builder{}
				logs[key] = b
			}
			b.WriteString(e.Output)
		case "fail":
			if e.Test == "" {
				// The package failed: tests of it that never ended were
				// running when it died (a timeout, a panic, an exit), and
				// their output says why.
				r.failed = true
				var open []string
				for k := range logs {
					if pkg, test, _ := strings.Cut(k, "\x00"); pkg == e.Package && test != "" {
						open = append(open, k)
					}
				}
				slices.Sort(open)
				for _, k := range open {
					_, test, _ := strings.Cut(k, "\x00")
					fmt.Fprintf(out, "--- %s did not end before its package failed; its output:\n%s", shortName(e.Package, test), logs[k].String())
					delete(logs, k)
				}
				continue
			}
			r.failed = true
			if b := logs[key]; b != nil {
				fmt.Fprint(out, b.String())
			}
			delete(logs, key)
		case "skip":
			if b := logs[key]; b != nil {
				for _, l := range strings.Split(b.String(), "\n") {
					i := strings.Index(l, marker)
					if i < 0 {
						continue
					}
					msg := strings.TrimSpace(l[i:])
					if !seen[msg] {
						seen[msg] = true
						r.notRun = append(r.notRun, msg)
						fmt.Fprintf(out, "%s: %s\n", shortName(e.Package, e.Test), msg)
					}
				}
			}
			delete(logs, key)
		case "pass":
			delete(logs, key)
		}
	}
	if err := sc.Err(); err != nil {
		return r, err
	}
	return r, nil
}

// shortName names a test for a person: its package's last element and
// the test's name.
func shortName(pkg, test string) string {
	if i := strings.LastIndex(pkg, "/"); i >= 0 {
		pkg = pkg[i+1:]
	}
	return pkg + "." + test
}

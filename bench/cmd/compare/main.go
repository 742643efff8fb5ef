// Command compare benchmarks engines answering sutura questions over the
// demo data set at scale: it generates the data with the demo generator
// (Parquet and CSV), then, for each engine in its own process, times the
// setup and each question (median of -runs timed runs after one warm-up)
// and records the peak resident set size, and prints a table. It also
// checks every engine returns the same answer, cell for cell.
//
// Usage (from bench/):
//
//	GOWORK=off go run ./cmd/compare -rows 10000000 -work /tmp/sutura-bench
//
// The engines are registered in engines.go, where sutura's own engine
// plugs in (see HOOK).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// config is what the flags say.
type config struct {
	rows    int64
	work    string
	repo    string
	runs    int
	engines []string
	cases   []string
}

func main() {
	var c config
	var engineList, caseList, child string
	flag.Int64Var(&c.rows, "rows", 10_000_000, "order rows to generate")
	flag.StringVar(&c.work, "work", filepath.Join(os.TempDir(), "sutura-bench"), "directory for the generated data")
	flag.StringVar(&c.repo, "repo", "..", "the workspace root (holds examples/demo/gen)")
	flag.IntVar(&c.runs, "runs", 5, "timed runs per question (after one warm-up)")
	flag.StringVar(&engineList, "engines", strings.Join(engineOrder, ","), "engines to measure, comma-separated")
	flag.StringVar(&caseList, "cases", "", "questions to run, comma-separated (default: all)")
	flag.StringVar(&child, "child", "", "internal: measure this one engine and print its report as JSON")
	flag.Parse()
	log.SetFlags(0)
	c.engines = strings.Split(engineList, ",")
	if caseList != "" {
		c.cases = strings.Split(caseList, ",")
	}
	for _, e := range c.engines {
		if _, ok := engines[e]; !ok {
			log.Fatalf("unknown engine %q", e)
		}
	}
	if c.runs < 1 {
		log.Fatal("-runs must be at least 1")
	}
	ctx := context.Background()
	if child != "" {
		rep, err := measure(ctx, c, child)
		if err != nil {
			log.Fatalf("%s: %v", child, err)
		}
		if err := json.NewEncoder(os.Stdout).Encode(rep); err != nil {
			log.Fatal(err)
		}
		return
	}
	d := dataSet{work: c.work, rows: c.rows}
	if err := ensureData(ctx, c, d); err != nil {
		log.Fatal(err)
	}
	var reports []report
	loadBefore := loadAvg()
	for _, e := range c.engines {
		log.Printf("measuring %s …", e)
		rep, err := runChild(ctx, e)
		if err != nil {
			log.Fatalf("%s: %v", e, err)
		}
		reports = append(reports, rep)
	}
	printReports(os.Stdout, c, reports, loadBefore)
}

// selected returns the cases the flags ask for.
func selected(c config) ([]int, error) {
	var idx []int
	for i, bc := range benchCases {
		if len(c.cases) == 0 || slices.Contains(c.cases, bc.Name) {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil, fmt.Errorf("no question matches -cases")
	}
	return idx, nil
}

// ensureData generates each format the engines need, unless its orders
// file is already there. The generator lives in module sutura.dev/examples,
// so it is built from the workspace root with the workspace on.
func ensureData(ctx context.Context, c config, d dataSet) error {
	var gen string
	for _, e := range c.engines {
		for _, f := range engines[e].formats {
			if _, err := os.Stat(filepath.Join(d.dir(f), "orders."+f)); err == nil {
				continue
			}
			if gen == "" {
				gen = filepath.Join(c.work, "demo-gen")
				if err := os.MkdirAll(c.work, 0o755); err != nil {
					return err
				}
				build := exec.CommandContext(ctx, "go", "build", "-o", gen, "./examples/demo/gen")
				build.Dir = c.repo
				build.Env = withoutGOWORK(os.Environ())
				build.Stdout, build.Stderr = os.Stderr, os.Stderr
				if err := build.Run(); err != nil {
					return fmt.Errorf("build the demo generator in %s: %w", c.repo, err)
				}
			}
			log.Printf("generating %d rows as %s into %s …", d.rows, f, d.dir(f))
			cmd := exec.CommandContext(ctx, gen, "--rows", fmt.Sprint(d.rows), "--format", f, "--out", d.dir(f))
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("generate %s: %w", f, err)
			}
		}
	}
	return nil
}

func withoutGOWORK(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "GOWORK=") })
}

// runChild measures one engine in a fresh process (so its peak RSS is its
// own) by re-running this binary with -child.
func runChild(ctx context.Context, name string) (report, error) {
	self, err := os.Executable()
	if err != nil {
		return report{}, err
	}
	args := []string{"-child", name}
	flag.Visit(func(f *flag.Flag) {
		if f.Name != "child" && f.Name != "engines" {
			args = append(args, "-"+f.Name+"="+f.Value.String())
		}
	})
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return report{}, err
	}
	var rep report
	if err := json.Unmarshal(out, &rep); err != nil {
		return report{}, fmt.Errorf("child report: %w", err)
	}
	return rep, nil
}

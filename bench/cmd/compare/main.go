// Command compare benchmarks engines answering sutura questions over the
// demo data set at scale. It generates the data with the demo generator
// (Parquet and CSV, as the engines need), then measures every question on
// every engine in a fresh process of its own: the first answer there is
// the cold figure (nothing cached, no statistics warmed; the data files
// are read once before the process starts, so every engine's first answer
// finds them in the page cache, unless -files-as-is) with the peak
// resident memory it took; the runs after it are the warm figures. It
// prints the tables and exits 1 when an engine's answer differs from the
// reference engine's (DuckDB), cell for cell.
//
// Usage (from bench/):
//
//	GOWORK=off go run ./cmd/compare -rows 10000000 -work /tmp/sutura-bench
//	GOWORK=off go run ./cmd/compare -rows 100000000 -engines sutura-parquet,duckdb-parquet -runs 0
//
// The second line is the 100-million-row scale point (about 1.9 GB of
// Parquet, generated on first use; never committed, never run in CI).
// The engines are registered in engines.go.
package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"sutura.dev/bench/web"
)

// config is what the flags say.
type config struct {
	rows       int64
	work       string
	repo       string
	runs       int
	workingSet int64
	timeout    time.Duration
	cpuProfile string
	maxLegRows int
	engines    []string
	cases      []string
	// shape is the data set: "demo" (the demo generator's orders),
	// "demo-shuffled" (the same, in no order) or "web" (web events of
	// another shape, bench/web).
	shape string
	// startup measures `sutura serve` start-up and `sutura ask` totals.
	startup  bool
	startups int
	// filesAsIs leaves the page cache as the engines before left it: by
	// default every data file an engine reads is read once before its
	// process starts (warm): a first answer's, and with -startup each
	// sutura serve's and sutura query's.
	filesAsIs bool
	// spawner is the spawn binary (bench/cmd/spawn) every measured process
	// is started by (measured), built into -work at the start of a run.
	spawner string
}

func main() {
	var c config
	var engineList, caseList, child, childCase string
	flag.Int64Var(&c.rows, "rows", 10_000_000, "order rows to generate (100000000 is the scale point)")
	flag.StringVar(&c.work, "work", filepath.Join(os.TempDir(), "sutura-bench"), "directory for the generated data")
	flag.StringVar(&c.repo, "repo", "..", "the workspace root (holds examples/demo/gen)")
	flag.IntVar(&c.runs, "runs", 5, "warm runs per question after the first answer (and one warm-up); 0 measures only the first answer")
	flag.Int64Var(&c.workingSet, "working-set", 0, "sutura's runtime.working_set_max_bytes (0: the default, 1 GiB)")
	flag.DurationVar(&c.timeout, "timeout", 30*time.Minute, "longest one engine may take over one question")
	flag.StringVar(&engineList, "engines", strings.Join(engineOrder, ","), "engines to measure, comma-separated")
	flag.StringVar(&caseList, "cases", "", "questions to run, comma-separated (default: all)")
	flag.StringVar(&child, "child", "", "internal: measure this one engine on -case and print the report as JSON")
	flag.StringVar(&childCase, "case", "", "internal: the question a child measures")
	flag.IntVar(&c.maxLegRows, "max-leg-rows", 1_000_000, "sutura-federated's governance.max_leg_rows (at most 10000000)")
	flag.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of each first answer to this path prefix (+engine.case.pprof), and of its warm runs (+engine.case.warm.pprof)")
	flag.StringVar(&c.shape, "shape", "demo", "data set: demo (the demo generator's orders, sorted by date), demo-shuffled (the same orders in no order, Parquet only: the demo's catalogue, its anchors among them, on data nobody sorted) or web (web events: shuffled timestamps, millions of distinct session ids, a 50k-row pages table)")
	flag.BoolVar(&c.startup, "startup", false, "also measure sutura's start-up: `sutura serve` until ready, and `sutura query` total per question against its first answer (built from -repo)")
	flag.BoolVar(&c.filesAsIs, "files-as-is", false, "do not read an engine's data files before its process starts (a first answer's, and with -startup each sutura serve's and sutura query's): it then reads from the disk whatever the page cache no longer holds")
	flag.IntVar(&c.startups, "startup-runs", 3, "start-ups of `sutura serve` per format with -startup (the median is reported)")
	flag.Parse()
	log.SetFlags(0)
	switch c.shape {
	case "demo":
	case "demo-shuffled":
		for _, e := range strings.Split(engineList, ",") {
			if child == "" && slices.ContainsFunc(engines[e].formats, func(f string) bool { return f != "parquet" }) {
				log.Fatalf("-shape demo-shuffled is Parquet only: engine %s reads %v", e, engines[e].formats)
			}
		}
	case "web":
		cases = web.Cases
	default:
		log.Fatalf("unknown -shape %q (demo, demo-shuffled or web)", c.shape)
	}
	c.engines = strings.Split(engineList, ",")
	if caseList != "" {
		c.cases = strings.Split(caseList, ",")
	}
	for _, e := range c.engines {
		if _, ok := engines[e]; !ok {
			log.Fatalf("unknown engine %q", e)
		}
		if c.shape == "web" && (e == "postgres" || e == "sutura-federated") {
			log.Fatalf("engine %q reads the demo data set only", e)
		}
	}
	if c.runs < 0 {
		log.Fatal("-runs may not be negative")
	}
	ctx := context.Background()
	if child != "" {
		rep, err := measure(ctx, c, child, childCase)
		if err != nil {
			rep.Error = err.Error()
		}
		if err := json.NewEncoder(os.Stdout).Encode(rep); err != nil {
			log.Fatal(err)
		}
		return
	}
	idx, err := selected(c)
	if err != nil {
		log.Fatal(err)
	}
	d := dataSet{work: c.work, rows: c.rows, shape: c.shape}
	if err := ensureData(ctx, c, d); err != nil {
		log.Fatal(err)
	}
	if c.spawner, err = buildSpawner(ctx, c); err != nil {
		log.Fatal(err)
	}
	loadBefore := loadAvg()
	var reports []report
	for _, i := range idx {
		for _, e := range c.engines {
			log.Printf("%s on %s (load %s) …", cases[i].Name, e, loadAvg())
			rep, err := runChild(ctx, c, e, cases[i].Name)
			if err != nil {
				log.Fatalf("%s on %s: %v", cases[i].Name, e, err)
			}
			reports = append(reports, rep)
		}
	}
	ok := printReports(os.Stdout, c, idx, reports, loadBefore)
	if c.startup {
		if !measureStartup(ctx, os.Stdout, c, d, idx, reports) {
			ok = false
		}
	}
	if !ok {
		os.Exit(1)
	}
}

// selected returns the cases the flags ask for.
func selected(c config) ([]int, error) {
	var idx []int
	for i, bc := range cases {
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
	switch d.shape {
	case "web":
		return ensureWebData(ctx, c, d)
	case "demo-shuffled":
		src := dataSet{work: d.work, rows: d.rows, shape: "demo"}
		if err := ensureData(ctx, c, src); err != nil {
			return err
		}
		return shuffleOrders(ctx, src.dir("parquet"), d.dir("parquet"))
	}
	var gen string
	for _, e := range c.engines {
		for _, f := range engines[e].formats {
			if _, err := os.Stat(filepath.Join(d.dir(f), "orders."+f)); err == nil {
				continue
			}
			if f == "ndjson" {
				return fmt.Errorf("%s: the demo generator writes csv and parquet; NDJSON is generated for -shape web", e)
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

// shuffleOrders writes the demo's Parquet tables of src into dst, unless
// its orders file is already there: the orders in an order no column
// follows (DuckDB's hash of the order id; deterministic), in DuckDB's
// row groups, the other tables as they are. The orders file is written
// last, so its presence means the set is whole.
func shuffleOrders(ctx context.Context, src, dst string) error {
	orders := filepath.Join(dst, "orders.parquet")
	if _, err := os.Stat(orders); err == nil {
		return nil
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, t := range []string{"customers", "products", "regions"} {
		b, err := os.ReadFile(filepath.Join(src, t+".parquet"))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, t+".parquet"), b, 0o644); err != nil {
			return err
		}
	}
	log.Printf("shuffling the orders of %s into %s …", src, dst)
	db, err := sql.Open("duckdb", "") // the driver duck registers
	if err != nil {
		return err
	}
	defer db.Close()
	quote := func(p string) string { return "'" + strings.ReplaceAll(p, "'", "''") + "'" }
	tmp := orders + ".tmp"
	stmt := fmt.Sprintf("COPY (SELECT * FROM read_parquet(%s) ORDER BY hash(order_id)) TO %s (FORMAT parquet, COMPRESSION snappy)",
		quote(filepath.Join(src, "orders.parquet")), quote(tmp))
	if _, err := db.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("shuffle the orders: %w", err)
	}
	return os.Rename(tmp, orders)
}

func withoutGOWORK(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "GOWORK=") })
}

// runChild measures one engine on one question in a fresh process (so its
// first answer is cold and its memory peak its own) by re-running this
// binary with -child and -case. The process's lifetime peak comes from
// the kernel's accounting of the child (its ru_maxrss, through a spawner:
// measured).
func runChild(ctx context.Context, c config, engineName, caseName string) (report, error) {
	self, err := os.Executable()
	if err != nil {
		return report{}, err
	}
	args := []string{"-child", engineName, "-case", caseName}
	flag.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "child", "case", "engines", "cases", "startup", "startup-runs":
		default:
			args = append(args, "-"+f.Name+"="+f.Value.String())
		}
	})
	d := dataSet{work: c.work, rows: c.rows, shape: c.shape}
	for _, f := range engines[engineName].formats {
		if err := c.warm(d, f); err != nil {
			return report{}, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Stderr = os.Stderr
	var out bytes.Buffer
	cmd.Stdout = &out
	spawner, err := measured(c.spawner, cmd)
	if err != nil {
		return report{}, err
	}
	runErr := cmd.Run()
	var rep report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		if runErr != nil {
			return report{}, runErr
		}
		return report{}, fmt.Errorf("child report: %w", err)
	}
	sp, err := spawner()
	if err != nil {
		return report{}, err
	}
	rep.ProcessPeakRSS = sp.peak
	return rep, nil
}

// warm reads the files of format f (warmFiles) before a process reads
// them, unless -files-as-is: every first answer, every start of sutura
// serve and every sutura query finds them in the page cache alike.
func (c config) warm(d dataSet, f string) error {
	if c.filesAsIs {
		return nil
	}
	return warmFiles(d.dir(f))
}

// warmFiles reads every file under dir once, so that the first answer of
// the engine measured next reads them from the page cache, as the engine
// measured before it did. Without it a first answer's time depended on
// the run's order: the page cache of this machine does not hold every
// format's files, and pages left cold a while are reclaimed, so the
// first engine to read a format after another's paid the disk (sutura's
// CSV revenue question, first of the run, took 4.3 s against 1.7-2.9 s
// in the runs where DuckDB read the file first: docs/performance.md).
func warmFiles(dir string) error {
	buf := make([]byte, 4<<20)
	return filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.CopyBuffer(io.Discard, struct{ io.Reader }{f}, buf)
		return err
	})
}

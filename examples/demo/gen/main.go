// Command gen writes the demo retailer's data set: one file per table
// (regions, products, customers, orders) in CSV or Parquet.
//
// Run it from the workspace root:
//
//	go run ./examples/demo/gen --rows 12000 --format csv --out examples/demo/data
//
// --rows is the number of order rows; the customer count scales with it
// (one per eight orders, at least 100) and regions and products are fixed.
// Output is deterministic: the same flags always give byte-identical files.
// Rows are streamed and written in batches, so large runs (10,000,000 rows
// and more) need little memory.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"sutura.dev/examples/demo/internal/datagen"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses args, generates the data set and returns the exit code:
// 0 success, 1 generation failed, 2 usage error.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rows := fs.Int64("rows", 0, "number of order rows to generate (required)")
	format := fs.String("format", "csv", "output format: csv or parquet")
	out := fs.String("out", "", "output directory (required; created when missing)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gen --rows N [--format csv|parquet] --out DIR")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 0 || *rows < 1 || *out == "" {
		fs.Usage()
		return 2
	}
	infos, err := datagen.Generate(datagen.Options{Rows: *rows, Format: datagen.Format(*format), Dir: *out})
	if err != nil {
		fmt.Fprintln(stderr, "gen:", err)
		return 1
	}
	for _, ti := range infos {
		fmt.Fprintf(stdout, "%s\t%d rows\n", ti.Path, ti.Rows)
	}
	return 0
}

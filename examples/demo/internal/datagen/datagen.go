// Package datagen generates the tables of the demo retailer, Larch & Loom:
// regions, products, customers and orders.
//
// Generation is deterministic: every random choice comes from a fixed-seed
// math/rand/v2 PCG stream and every piece of arithmetic is integer
// arithmetic, so the same Options produce byte-identical files on every
// platform. The number of order rows is the only size knob; the customer
// count scales with it and the region and product lists are fixed.
//
// Rows are produced one at a time and written in batches, so the memory a
// run needs does not grow with Options.Rows.
package datagen

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Format is an output file format.
type Format string

const (
	// FormatCSV writes one CSV file per table with a header row. An empty
	// field is a null, dates are YYYY-MM-DD and booleans true/false.
	FormatCSV Format = "csv"
	// FormatParquet writes one Parquet file per table with typed columns
	// (int64, date32, bool, utf8) and the Arrow schema stored alongside.
	FormatParquet Format = "parquet"
)

// MaxRows bounds Options.Rows. Order ids are int64 and the per-day
// allocation is exact integer arithmetic, so the bound is generous; it only
// stops a typing accident from filling a disk.
const MaxRows = 1_000_000_000

// Options selects what Generate writes.
type Options struct {
	// Rows is the number of order rows (at least 1, at most MaxRows).
	Rows int64
	// Format is FormatCSV or FormatParquet.
	Format Format
	// Dir is the output directory; it is created when missing. Each table
	// is written to <Dir>/<table>.<format>, replacing any file there.
	Dir string
}

// TableInfo describes one written table.
type TableInfo struct {
	// Name is the table name, which is also the file's base name.
	Name string
	// Path is the file written.
	Path string
	// Rows is the number of data rows written.
	Rows int64
}

// TableNames lists the tables Generate writes, in the order it writes them.
func TableNames() []string {
	return []string{"regions", "products", "customers", "orders"}
}

// Generate writes every table of the demo data set to opts.Dir and reports
// what it wrote.
func Generate(opts Options) ([]TableInfo, error) {
	if opts.Rows < 1 || opts.Rows > MaxRows {
		return nil, fmt.Errorf("datagen: rows must be between 1 and %d", int64(MaxRows))
	}
	if opts.Format != FormatCSV && opts.Format != FormatParquet {
		return nil, fmt.Errorf("datagen: format must be %q or %q", FormatCSV, FormatParquet)
	}
	if opts.Dir == "" {
		return nil, errors.New("datagen: an output directory is required")
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("datagen: %w", err)
	}
	tables := buildTables(opts.Rows)
	infos := make([]TableInfo, 0, len(tables))
	for _, t := range tables {
		path := filepath.Join(opts.Dir, t.name+"."+string(opts.Format))
		n, err := writeTable(t, opts.Format, path)
		if err != nil {
			return infos, fmt.Errorf("datagen: writing %s: %w", path, err)
		}
		infos = append(infos, TableInfo{Name: t.name, Path: path, Rows: n})
	}
	return infos, nil
}

// writeTable streams one table into a new file at path.
func writeTable(t table, format Format, path string) (n int64, err error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	// A bufio.Writer is not an io.Closer, so the Parquet writer cannot
	// close the file behind our back; the deferred Close reports errors.
	w := bufio.NewWriterSize(f, 1<<20)
	var s sink
	switch format {
	case FormatParquet:
		s, err = newParquetSink(w, t.columns)
	default:
		s, err = newCSVSink(w, t.columns)
	}
	if err != nil {
		return 0, err
	}
	err = t.rows(func(row []cell) error {
		n++
		return s.writeRow(row)
	})
	if cerr := s.close(); err == nil {
		err = cerr
	}
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return n, err
}

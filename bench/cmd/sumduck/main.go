// Command sumduck is the DuckDB side of the engine's decimal-sum benchmark
// (docs/performance.md, "Exact numbers (issue 23)"): it writes
// <dir>/amounts.parquet with DuckDB when missing — 10 M rows of a day, a
// DECIMAL(18,2) stored as INT64 and a DOUBLE, as DuckDB writes them — and
// times DuckDB's first answer of the benchmark's monthly sums over two
// years on that file: a new in-process database per run, two threads,
// process CPU from getrusage. It prints each run's wall and CPU time and
// the sums, so the engine's answers on the same file
// (SUTURA_SUM_BENCH_DIR=<dir> with exec-arrow's BenchmarkSum10M) can be
// read beside them; it compares nothing itself.
//
//	cd bench && GOWORK=off go run ./cmd/sumduck /tmp/sumdata
package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
)

// cpu is the process's user and system time so far.
func cpu() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: sumduck <dir>")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "sumduck:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	path := filepath.Join(dir, "amounts.parquet")
	if _, err := os.Stat(path); err != nil {
		if err := write(path); err != nil {
			return err
		}
	}
	for _, c := range []string{"amt_f", "amt_dec"} {
		for i := range 4 {
			c0, t0 := cpu(), time.Now()
			sums, err := first(path, c)
			if err != nil {
				return err
			}
			fmt.Printf("duckdb %s run %d: wall %.1f ms, cpu %.1f ms\n", c, i, float64(time.Since(t0).Microseconds())/1000, float64((cpu()-c0).Microseconds())/1000)
			if i == 0 {
				for _, s := range sums {
					fmt.Println("  ", s)
				}
			}
		}
	}
	return nil
}

// write writes the benchmark's table with DuckDB.
func write(path string) error {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	// The path is the operator's own argument, written into DuckDB's COPY
	// (which takes no parameter for it) with its quotes doubled.
	q := func(p string) string { return "'" + strings.ReplaceAll(filepath.Clean(p), "'", "''") + "'" }
	if _, err := db.Exec(`COPY (SELECT DATE '2023-01-01' + CAST(i*730//10000000 AS INTEGER) AS day,
 CAST(CAST(hash(i) % 100000000 AS BIGINT) - 100000 AS DECIMAL(18,0)) / 100 AS raw FROM range(10000000) t(i)) TO ` + q(path+".tmp") + ` (FORMAT parquet)`); err != nil {
		return err
	}
	defer os.Remove(path + ".tmp")
	_, err = db.Exec(`COPY (SELECT day, CAST(raw AS DECIMAL(18,2)) AS amt_dec, CAST(raw AS DOUBLE) AS amt_f FROM read_parquet(` + q(path+".tmp") + `)) TO ` + q(path) + ` (FORMAT parquet)`)
	return err
}

// first is DuckDB's first answer in a new database: each month's sum of
// column, as text.
func first(path, column string) ([]string, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`SET threads = 2`); err != nil {
		return nil, err
	}
	rows, err := db.Query(`SELECT strftime(date_trunc('month', day), '%Y-%m') AS m, CAST(sum(`+column+`) AS VARCHAR)
 FROM read_parquet(?) WHERE day >= DATE '2023-01-01' AND day < DATE '2025-01-01' GROUP BY 1 ORDER BY 1`, path)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var m, s string
		if err := rows.Scan(&m, &s); err != nil {
			return nil, err
		}
		out = append(out, m+" "+s)
	}
	return out, rows.Err()
}

// Command corpus writes the conformance corpus for sutura's data-system
// ports: one JSON file per question over the demo data set, whose expected
// outcome is computed by DuckDB from the demo CSV files with SQL written by
// hand for that question (see cases_*.go). Nothing in an expected answer
// comes from sutura or is typed by hand.
//
// Usage (from bench/):
//
//	GOWORK=off go run ./cmd/corpus -data ../examples/demo/data -out ../app/conformance/testdata/corpus
//
// With -list it prints the case list as a Markdown table instead.
package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"

	"sutura.dev/bench/canon"
	"sutura.dev/bench/duck"
	"sutura.dev/bench/question"
)

// rowCap is the answer row cap of docs/contract.md §4.1.
const rowCap = 10000

// corpusCase is one question with the SQL that answers it.
type corpusCase struct {
	name      string
	covers    string
	principal string // "" means operator
	q         question.Question
	// refusal is the expected pre-execution refusal code; such a case has
	// no SQL, since sutura must refuse before asking the data system.
	refusal string
	// sql answers the question: columns dimensions…, period, metrics…,
	// rows in answer order. It is the whole oracle for the case.
	sql string
	// failsSQL, for a metric whose ratio has zero_denominator: fails,
	// returns the number of answer groups whose denominator is zero.
	failsSQL string
	// wantTooLarge asserts DuckDB's answer exceeds the row cap, and
	// wantZeroDen that failsSQL found a zero denominator: they check the
	// case covers what it claims, never supply the outcome.
	wantTooLarge, wantZeroDen bool
	// wantNullIn names columns that must hold at least one null.
	wantNullIn []string
}

func main() {
	dataDir := flag.String("data", "../examples/demo/data", "directory of the demo CSV files")
	outDir := flag.String("out", "../app/conformance/testdata/corpus", "directory to write the corpus into")
	list := flag.Bool("list", false, "print the case list as a Markdown table and exit")
	flag.Parse()
	log.SetFlags(0)

	cases := allCases()
	if err := checkNames(cases); err != nil {
		log.Fatal(err)
	}
	if *list {
		fmt.Println("| File | Covers |")
		fmt.Println("| --- | --- |")
		for i, c := range cases {
			fmt.Printf("| `%s` | %s |\n", fileName(i, c), c.covers)
		}
		return
	}
	files, err := generate(cases, *dataDir)
	if err != nil {
		log.Fatal(err)
	}
	if err := replace(*outDir, files); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %d cases to %s", len(files), *outDir)
}

// generate computes every case's expected outcome with DuckDB from the
// demo CSV files in dataDir and returns the corpus files, by name.
func generate(cases []corpusCase, dataDir string) (map[string][]byte, error) {
	db, err := openDemo(dataDir)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	files := make(map[string][]byte, len(cases))
	for i, c := range cases {
		exp, err := c.expect(db)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.name, err)
		}
		body, err := encodeCase(c, exp)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.name, err)
		}
		files[fileName(i, c)] = body
	}
	return files, nil
}

// replace writes files into dir in place of every *.json there, once all
// are computed.
func replace(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func fileName(i int, c corpusCase) string { return fmt.Sprintf("%02d-%s.json", i+1, c.name) }

func checkNames(cases []corpusCase) error {
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.name] {
			return fmt.Errorf("duplicate case name %s", c.name)
		}
		seen[c.name] = true
		if (c.refusal == "") == (c.sql == "") && c.refusal != "result_too_large" {
			return fmt.Errorf("case %s: exactly one of refusal and sql", c.name)
		}
	}
	return nil
}

// openDemo loads the demo CSV files into an in-memory DuckDB with the
// types the catalogue declares, and defines two helper views that do the
// LEFT JOINs every dimension reached through a relationship needs:
// ox (orders + area, customer_segment, product_category, product) and
// cx (customers + area).
func openDemo(dir string) (*sql.DB, error) {
	db, err := duck.Open(context.Background(), duck.Options{Dir: dir, Format: "csv", Load: true})
	if err != nil {
		return nil, err
	}
	views := []string{
		`CREATE VIEW ox AS
		 SELECT o.*, r.region_name AS area, c.segment AS customer_segment,
		        p.category AS product_category, p.product_name AS product
		 FROM orders o
		 LEFT JOIN customers c ON c.customer_id = o.customer_id
		 LEFT JOIN regions r ON r.region_id = c.region_id
		 LEFT JOIN products p ON p.product_id = o.product_id`,
		`CREATE VIEW cx AS
		 SELECT c.*, r.region_name AS area
		 FROM customers c LEFT JOIN regions r ON r.region_id = c.region_id`,
	}
	for _, v := range views {
		if _, err := db.Exec(v); err != nil {
			db.Close()
			return nil, err
		}
	}
	return db, nil
}

// expectation is the "expect" object of a corpus file.
type expectation struct {
	Outcome string      `json:"outcome"`
	Code    string      `json:"code,omitempty"`
	Error   string      `json:"error,omitempty"`
	Columns []string    `json:"columns,omitempty"`
	Rows    [][]*string `json:"rows,omitempty"`
}

func (c corpusCase) expect(db *sql.DB) (expectation, error) {
	if c.sql == "" {
		return expectation{Outcome: "refusal", Code: c.refusal}, nil
	}
	want := slices.Concat(c.q.Dimensions, []string{"period"}, c.q.Metrics)
	cols, raw, err := duck.Query(context.Background(), db, c.sql)
	if err != nil {
		return expectation{}, err
	}
	if !slices.Equal(cols, want) {
		return expectation{}, fmt.Errorf("SQL columns %v, question asks %v", cols, want)
	}
	if c.failsSQL != "" {
		var zero int64
		if err := db.QueryRow(c.failsSQL).Scan(&zero); err != nil {
			return expectation{}, err
		}
		if (zero > 0) != c.wantZeroDen {
			return expectation{}, fmt.Errorf("zero-denominator groups: %d, case expects some: %v", zero, c.wantZeroDen)
		}
		if zero > 0 {
			return expectation{Outcome: "error", Error: "zero_denominator"}, nil
		}
	}
	if (len(raw) > rowCap) != c.wantTooLarge {
		return expectation{}, fmt.Errorf("DuckDB returned %d rows; case expects over the cap: %v", len(raw), c.wantTooLarge)
	}
	if len(raw) > rowCap {
		return expectation{Outcome: "refusal", Code: "result_too_large"}, nil
	}
	keys, topCol, desc := len(c.q.Dimensions)+1, -1, false
	if t := c.q.Top; t != nil {
		topCol, desc = keys, t.Direction == "desc"
		if t.By == "period" {
			topCol = len(c.q.Dimensions)
		}
		if len(raw) > t.N {
			return expectation{}, fmt.Errorf("top %d but %d rows", t.N, len(raw))
		}
	}
	if err := checkOrder(raw, keys, topCol, desc); err != nil {
		return expectation{}, err
	}
	exp := expectation{Outcome: "answer", Columns: cols, Rows: make([][]*string, 0, len(raw))}
	for _, r := range raw {
		out := make([]*string, len(r))
		for j, v := range r {
			if out[j], err = canon.Render(v); err != nil {
				return expectation{}, fmt.Errorf("column %s: %w", cols[j], err)
			}
		}
		exp.Rows = append(exp.Rows, out)
	}
	for _, col := range c.wantNullIn {
		j := slices.Index(cols, col)
		if j < 0 || !slices.ContainsFunc(exp.Rows, func(r []*string) bool { return r[j] == nil }) {
			return expectation{}, fmt.Errorf("column %s holds no null, but the case is meant to show one", col)
		}
	}
	return exp, nil
}

// encodeCase writes a corpus file: stable key order, two-space indent, one
// answer row per line.
func encodeCase(c corpusCase, exp expectation) ([]byte, error) {
	principal := c.principal
	if principal == "" {
		principal = "operator"
	}
	var b bytes.Buffer
	field := func(key string, v any, last bool) error {
		j, err := marshal(v)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "  %q: %s", key, j)
		if !last {
			b.WriteString(",")
		}
		b.WriteString("\n")
		return nil
	}
	b.WriteString("{\n")
	if err := errors.Join(field("name", c.name, false), field("question", c.q, false),
		field("principal", principal, false)); err != nil {
		return nil, err
	}
	if exp.Outcome != "answer" {
		if err := field("expect", exp, true); err != nil {
			return nil, err
		}
		b.WriteString("}\n")
		return b.Bytes(), nil
	}
	cols, err := marshal(exp.Columns)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(&b, "  \"expect\": {\n    \"outcome\": \"answer\",\n    \"columns\": %s,\n    \"rows\": [", cols)
	for i, r := range exp.Rows {
		j, err := marshal(r)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n      %s", j)
	}
	if len(exp.Rows) > 0 {
		b.WriteString("\n    ")
	}
	b.WriteString("]\n  }\n}\n")
	return b.Bytes(), nil
}

// marshal is compact json.Marshal without HTML escaping, so text cells
// appear verbatim.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

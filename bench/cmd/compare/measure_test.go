package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"sutura.dev/bench/web"
)

// TestReportFailsWhenAnswersDiffer: the harness fails (printReports
// returns false, so the command exits 1) when an engine's answer differs
// from the reference engine's, or an engine failed a question; it
// succeeds only when every answer is the reference's.
func TestReportFailsWhenAnswersDiffer(t *testing.T) {
	c := config{rows: 10, runs: 1, engines: []string{"sutura-parquet", "duckdb-parquet", "duckdb-memory"}}
	name := benchCases[0].Name
	rep := func(engine, digest, failure string) report {
		return report{Engine: engine, Case: name, Digest: digest, Error: failure, FirstMS: 10, WarmMS: []float64{1}, Rows: 3}
	}
	over := func(r report) report { r.ProcessPeakRSS = rssBound(0) + 1; return r }
	tests := []struct {
		name string
		reps []report
		ok   bool
		says string
	}{
		{"agree", []report{rep("sutura-parquet", "ab", ""), rep("duckdb-parquet", "ab", ""), rep("duckdb-memory", "ab", "")}, true, "Every engine returned duckdb-parquet's answer"},
		{"sutura differs", []report{rep("sutura-parquet", "ac", ""), rep("duckdb-parquet", "ab", ""), rep("duckdb-memory", "ab", "")}, false, "ANSWERS DIFFER from duckdb-parquet's on: " + name + " (sutura-parquet)"},
		{"a reference differs", []report{rep("sutura-parquet", "ab", ""), rep("duckdb-parquet", "ab", ""), rep("duckdb-memory", "zz", "")}, false, "ANSWERS DIFFER"},
		{"an engine failed", []report{rep("sutura-parquet", "", "refused"), rep("duckdb-parquet", "ab", ""), rep("duckdb-memory", "ab", "")}, false, "FAILED: refused"},
		{"over the memory ceiling", []report{over(rep("sutura-parquet", "ab", "")), rep("duckdb-parquet", "ab", ""), rep("duckdb-memory", "ab", "")}, false, "OVER THE MEMORY CEILING: " + name + " on sutura-parquet"},
		{"DuckDB is not held to it", []report{rep("sutura-parquet", "ab", ""), over(rep("duckdb-parquet", "ab", "")), rep("duckdb-memory", "ab", "")}, true, "Every sutura process stayed under the working set + overhead of 1600 MiB"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			ok := printReports(&out, c, []int{0}, tc.reps, "0 0 0")
			assert.Equal(t, tc.ok, ok)
			assert.Contains(t, out.String(), tc.says)
		})
	}
}

// TestEveryCaseHasReferenceSQL: the harness can check every question
// against DuckDB.
func TestEveryCaseHasReferenceSQL(t *testing.T) {
	seen := map[string]bool{}
	for _, bc := range benchCases {
		assert.NotEmpty(t, bc.ReferenceSQL, bc.Name)
		assert.False(t, seen[bc.Name], "%s twice", bc.Name)
		seen[bc.Name] = true
	}
}

// TestEveryWebCaseHasReferenceSQL: the web data set's questions can be
// checked against DuckDB too, and their names do not clash with the
// demo's.
func TestEveryWebCaseHasReferenceSQL(t *testing.T) {
	seen := map[string]bool{}
	for _, bc := range benchCases {
		seen[bc.Name] = true
	}
	for _, bc := range web.Cases {
		assert.NotEmpty(t, bc.ReferenceSQL, bc.Name)
		assert.False(t, seen[bc.Name], "%s twice", bc.Name)
		seen[bc.Name] = true
	}
}

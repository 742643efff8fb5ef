package importcheck

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
	"github.com/stretchr/testify/require"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/adapters/importread"
	"sutura.dev/domain"
	engine "sutura.dev/exec-arrow"
	"sutura.dev/semantic"
)

// readFixture reads a fixture as the command line does: YAML (and JSON)
// files with their bytes, other files by name only, each text with old
// replaced by new.
func readFixture(t *testing.T, dir string, replace ...string) []importread.File {
	t.Helper()
	r := strings.NewReplacer(replace...)
	var out []importread.File
	root := os.DirFS(dir)
	require.NoError(t, fs.WalkDir(root, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		f := importread.File{Path: p}
		switch path.Ext(p) {
		case ".yml", ".yaml":
			data, err := fs.ReadFile(root, p)
			if err != nil {
				return err
			}
			f.Data = []byte(r.Replace(string(data)))
		}
		out = append(out, f)
		return nil
	}))
	return out
}

// catalogue writes an import with the shared writer and loads what was
// written with the catalogue loader, as a person would.
func catalogue(t *testing.T, imp mdcatalog.Imported) *domain.Bundle {
	t.Helper()
	res, err := mdcatalog.AssembleImport(imp, mdcatalog.ImportOptions{Source: "files", Input: "fixture"})
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "catalogue")
	require.NoError(t, mdcatalog.WriteFiles(dir, res.Files))
	b, err := mdcatalog.LoadDir(dir, "import")
	require.NoError(t, err)
	require.Equal(t, res.Bundle.Digest(), b.Digest(), "the written catalogue pins like the assembled one")
	return b
}

// column generates one column of a generated table.
type column struct {
	name string
	kind string // pk, fk, date, datepk, bool, num, int, cat
	n    int    // fk: keys 1..n; cat: n values; datepk: start offset
	null int    // one value in null is null (0: never)
	vals []string
}

// table is a generated table: its rows and the columns whose kind matters;
// every other column its models declare is categorical text.
type table struct {
	rows int
	cols []column
}

// first is the first day data may fall on; the questions ask about 2024,
// and rows fall on both sides of it.
var first = domain.DateOf(2023, 12, 10)

// generate writes <table>.csv for every table of the bundle's models into
// dir, deterministically, and loads the same files into DuckDB with the
// column types the generators give.
func generate(t *testing.T, b *domain.Bundle, specs map[string]table) (string, *sql.DB) {
	t.Helper()
	dir := t.TempDir()
	db, err := sql.Open("duckdb", "")
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	declared := map[string][]string{}
	for _, m := range b.Definitions().Models {
		for _, c := range m.Columns {
			if !slices.Contains(declared[m.BareTable()], c.Name) {
				declared[m.BareTable()] = append(declared[m.BareTable()], c.Name)
			}
		}
	}
	rng := rand.New(rand.NewPCG(7, 13))
	for name, spec := range specs {
		cols := slices.Clone(spec.cols)
		for _, c := range declared[name] {
			if !slices.ContainsFunc(cols, func(x column) bool { return x.name == c }) {
				cols = append(cols, column{name: c, kind: "cat", n: 4, null: 20})
			}
		}
		var csv strings.Builder
		var duck []string
		for i, c := range cols {
			if i > 0 {
				csv.WriteByte(',')
			}
			csv.WriteString(c.name)
			duck = append(duck, fmt.Sprintf("%q: '%s'", c.name, duckType(c.kind)))
		}
		csv.WriteByte('\n')
		for r := range spec.rows {
			for i, c := range cols {
				if i > 0 {
					csv.WriteByte(',')
				}
				csv.WriteString(value(rng, c, r))
			}
			csv.WriteByte('\n')
		}
		p := filepath.Join(dir, name+".csv")
		require.NoError(t, os.WriteFile(p, []byte(csv.String()), 0o644))
		_, err := db.Exec(fmt.Sprintf(`CREATE TABLE %s AS SELECT * FROM read_csv('%s', header = true, auto_detect = false, nullstr = '', columns = {%s})`,
			name, strings.ReplaceAll(p, "'", "''"), strings.Join(duck, ", ")))
		require.NoError(t, err, "table %s", name)
	}
	return dir, db
}

func duckType(kind string) string {
	switch kind {
	case "pk", "fk", "int":
		return "BIGINT"
	case "date", "datepk":
		return "DATE"
	case "bool":
		return "BOOLEAN"
	case "num":
		return "DOUBLE"
	}
	return "VARCHAR"
}

func value(rng *rand.Rand, c column, row int) string {
	if c.kind == "pk" {
		return strconv.Itoa(row + 1)
	}
	if c.kind == "datepk" {
		return first.AddDays(c.n + row).String()
	}
	if c.null > 0 && rng.IntN(c.null) == 0 {
		return ""
	}
	switch c.kind {
	case "fk":
		return strconv.Itoa(1 + rng.IntN(c.n))
	case "int":
		return strconv.Itoa(rng.IntN(100))
	case "date":
		return first.AddDays(rng.IntN(400)).String()
	case "bool":
		return strconv.FormatBool(rng.IntN(2) == 0)
	case "num":
		return strconv.FormatFloat(float64(rng.IntN(100000))/100, 'f', 2, 64)
	}
	if len(c.vals) > 0 {
		return c.vals[rng.IntN(len(c.vals))]
	}
	return "v" + strconv.Itoa(rng.IntN(max(c.n, 1)))
}

// question is one question of a check: metrics, dimensions, and the SQL a
// person wrote from the input's definition of the metric. The SQL yields
// the dimension columns, then the period (the month's first day), then
// the metric's value, for 2024.
type question struct {
	metric     string
	dimensions []string
	sql        string
}

// answers keys each row of an answer by its dimensions and period.
type answers map[string]float64

// ask answers a question with the embedded engine, through the compiler,
// exactly as a caller's question is answered.
func ask(t *testing.T, b *domain.Bundle, dir string, q question) answers {
	t.Helper()
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.Config{Source: "files", Files: os.DirFS(dir), Models: b.Definitions().Models})
	require.NoError(t, err)
	plan, reason := semantic.Compile(b, domain.LocalOperator, domain.Question{Metrics: []string{q.metric}, Grain: domain.Month,
		Range: domain.TimeSpan{Fixed: &domain.Range{Start: domain.DateOf(2024, 1, 1), End: domain.DateOf(2025, 1, 1)}}, Dimensions: q.dimensions},
		domain.DateOf(2025, 6, 1))
	require.Nil(t, reason, "%s: %v", q.metric, reason)
	rs, err := eng.Execute(ctx, plan)
	require.NoError(t, err, q.metric)
	out := answers{}
	for _, row := range rs.Rows {
		var key []string
		for _, c := range row[:len(row)-1] {
			key = append(key, c.Render())
		}
		out[strings.Join(key, "|")] = number(t, row[len(row)-1].Render())
	}
	return out
}

// reference runs the hand-written SQL in DuckDB.
func reference(t *testing.T, db *sql.DB, q question) answers {
	t.Helper()
	rows, err := db.Query(q.sql)
	require.NoError(t, err, q.metric)
	defer rows.Close()
	cols, err := rows.Columns()
	require.NoError(t, err)
	out := answers{}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		require.NoError(t, rows.Scan(ptrs...))
		var key []string
		for _, v := range vals[:len(vals)-1] {
			key = append(key, render(v))
		}
		out[strings.Join(key, "|")] = number(t, render(vals[len(vals)-1]))
	}
	require.NoError(t, rows.Err())
	return out
}

// render writes a DuckDB value as the engine's canonical text does.
func render(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case interface{ Format(string) string }:
		return x.Format("2006-01-02")
	}
	return fmt.Sprint(v)
}

func number(t *testing.T, s string) float64 {
	if s == "null" {
		return math.NaN()
	}
	f, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err, "a metric's value is a number: %s", s)
	return f
}

// check answers every question both ways and compares, cell for cell.
func check(t *testing.T, b *domain.Bundle, dir string, db *sql.DB, qs []question) {
	for _, q := range qs {
		t.Run(q.metric+strings.Join(append([]string{""}, q.dimensions...), " by "), func(t *testing.T) {
			got, want := ask(t, b, dir, q), reference(t, db, q)
			require.NotEmpty(t, want, "the reference answer has rows")
			require.Len(t, got, len(want), "the same groups")
			for k, w := range want {
				g, ok := got[k]
				require.True(t, ok, "group %s is in sutura's answer", k)
				if math.IsNaN(w) || math.IsNaN(g) {
					require.True(t, math.IsNaN(w) && math.IsNaN(g), "group %s: null on both sides (got %v, want %v)", k, g, w)
					continue
				}
				require.InDelta(t, w, g, 1e-6*math.Max(1, math.Abs(w)), "group %s", k)
			}
		})
	}
}

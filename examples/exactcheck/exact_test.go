package exactcheck

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
	"github.com/stretchr/testify/require"

	"sutura.dev/adapters/clickhouse"
	"sutura.dev/adapters/clickhouse/chdbtest"
	"sutura.dev/adapters/clickhouse/chtest"
	"sutura.dev/adapters/duckdb"
	"sutura.dev/adapters/postgres"
	"sutura.dev/adapters/postgres/pgtest"
	"sutura.dev/domain"
	engine "sutura.dev/exec-arrow"
	"sutura.dev/testtier"
)

// The property test's size: seeds × rows × questions, bounded so the test
// runs in seconds (docs/testing.md).
const (
	seeds     = 4
	rowsPer   = 400
	questions = 40
)

// factsModel is the table's model on source: every decimal column with its
// declared precision and scale, or (declared false) type decimal alone,
// its scale inferred from the data.
func factsModel(source string, declared bool) domain.Model {
	cols := []domain.ModelColumn{{Name: "day", Type: domain.TypeDate}, {Name: "grp", Type: domain.TypeText}, {Name: "region", Type: domain.TypeText}}
	for _, c := range decCols {
		mc := domain.ModelColumn{Name: c.name, Type: domain.TypeDecimal}
		if declared {
			s := c.scale
			mc.Precision, mc.Scale = c.precision, &s
		}
		cols = append(cols, mc)
	}
	cols = append(cols, domain.ModelColumn{Name: "f", Type: domain.TypeFloat})
	return domain.Model{Name: "facts", Source: source, Table: "facts", Columns: cols, Description: "random facts"}
}

// system answers plans on one data system.
type system struct {
	name   string
	source string
	model  domain.Model // the table's model on the system
	exec   func(context.Context, *domain.Plan) (*domain.RowSet, error)
	// sql marks a database: it sums doubles naively, so its float sums and
	// averages are compared with the exact sum only by the engine's.
	sql bool
	// roughAvg marks a database whose average of a decimal column is not
	// always the double nearest to the exact quotient: ClickHouse
	// truncates avg(Decimal) to the column's scale (PostgreSQL, whose
	// AVG(numeric) keeps only about 16 digits, is asked for the exact sum
	// over the count instead, and is compared). roughRatio
	// marks one whose conversion of a decimal to a double is not always
	// the nearest (ClickHouse's toFloat64). Those cells are not compared
	// (docs/reference.md, Numbers).
	roughAvg, roughRatio bool
	// roughReals marks chDB as the suites load it (ClickHouse's CSV reader,
	// read back as JSON): a real may come back one unit in the last place
	// from the nearest double, so its float cells are not compared.
	roughReals bool
}

// term is one metric a question may ask for.
type term struct {
	name string
	m    domain.Measure
	// naive marks a metric whose value depends on a database's order of
	// float additions (a float sum or average).
	naive bool
}

// decimalAvg reports whether the term averages a decimal column.
func (m term) decimalAvg() bool {
	return m.m.Simple != nil && m.m.Simple.Aggregate == domain.Avg && m.m.Simple.Column != "f"
}

func simple(a domain.Aggregate, c string) domain.Measure {
	return domain.Measure{Simple: &domain.Term{Aggregate: a, Column: c}}
}

var terms = []term{
	{"sum_d2", simple(domain.Sum, "d2"), false},
	{"sum_d6", simple(domain.Sum, "d6"), false},
	{"sum_d9", simple(domain.Sum, "d9"), false},
	{"min_d2", simple(domain.Min, "d2"), false},
	{"max_d6", simple(domain.Max, "d6"), false},
	{"min_d9", simple(domain.Min, "d9"), false},
	{"max_d9", simple(domain.Max, "d9"), false},
	{"avg_d2", simple(domain.Avg, "d2"), false},
	{"count_d9", simple(domain.Count, "d9"), false},
	{"min_f", simple(domain.Min, "f"), false},
	{"max_f", simple(domain.Max, "f"), false},
	{"sum_f", simple(domain.Sum, "f"), true},
	{"avg_f", simple(domain.Avg, "f"), true},
	{"d2_per_d6", domain.Measure{Ratio: &domain.Ratio{Numerator: domain.Term{Aggregate: domain.Sum, Column: "d2"},
		Denominator: domain.Term{Aggregate: domain.Sum, Column: "d6"}, ZeroDenominator: domain.YieldsNull}}, false},
}

// question is a random certified question, as the compiler plans it.
type question struct {
	grain      domain.Grain
	rng        domain.Range
	dims       []string
	filter     *domain.FilterRef
	metrics    []term
	exactFloat bool
}

func randomQuestion(rng *rand.Rand) question {
	q := question{grain: []domain.Grain{domain.Month, domain.Quarter, domain.Year}[rng.IntN(3)]}
	start := domain.DateOf(2022, 12, 1) + domain.Date(rng.IntN(760))
	q.rng = domain.Range{Start: start, End: start + domain.Date(30+rng.IntN(800))}
	for _, d := range rng.Perm(2)[:rng.IntN(3)] {
		q.dims = append(q.dims, []string{"grp", "region"}[d])
	}
	if rng.IntN(3) == 0 {
		vals := []string{"alpha", "beta", "gamma"}[:1+rng.IntN(3)]
		op := []domain.Op{domain.OpEq, domain.OpIn, domain.OpNotIn}[rng.IntN(3)]
		if op == domain.OpEq {
			vals = vals[:1]
		}
		q.filter = &domain.FilterRef{Dimension: "grp", Column: domain.ColumnRef{Alias: "t0", Column: "grp"}, Op: op, Values: vals}
	}
	for _, i := range rng.Perm(len(terms))[:1+rng.IntN(4)] {
		q.metrics = append(q.metrics, terms[i])
	}
	return q
}

// plan is q's plan on source.
func (q question) plan(source string, model domain.Model) *domain.Plan {
	leg := domain.Leg{Source: source, Base: domain.Table{Model: model.Name, Path: []string{model.Table}, Alias: "t0", Columns: model.Columns}, TimeColumn: "day"}
	var cols []domain.Column
	for _, d := range q.dims {
		leg.Dimensions = append(leg.Dimensions, domain.DimensionRef{Name: d, Column: domain.ColumnRef{Alias: "t0", Column: d}})
		cols = append(cols, domain.Column{Name: d, Role: domain.RoleDimension})
	}
	cols = append(cols, domain.Column{Name: "period", Role: domain.RolePeriod})
	for _, m := range q.metrics {
		leg.Metrics = append(leg.Metrics, domain.MetricRef{Name: m.name, Measure: m.m})
		cols = append(cols, domain.Column{Name: m.name, Role: domain.RoleMetric})
	}
	if q.filter != nil {
		leg.Filters = []domain.FilterRef{*q.filter}
	}
	return &domain.Plan{Columns: cols, Grain: q.grain, Range: q.rng, Legs: []domain.Leg{leg}, RowCap: domain.MaxRowCap}
}

func (q question) String() string {
	var ms []string
	for _, m := range q.metrics {
		ms = append(ms, m.name)
	}
	f := ""
	if q.filter != nil {
		f = fmt.Sprintf(" filter %s %v", q.filter.Op, q.filter.Values)
	}
	return fmt.Sprintf("%s %s..%s by %v%s: %v", q.grain, q.rng.Start, q.rng.End, q.dims, f, ms)
}

func render(rs *domain.RowSet) [][]string {
	out := [][]string{}
	for _, r := range rs.Rows {
		row := make([]string, len(r))
		for i, c := range r {
			row[i] = c.Render()
		}
		out = append(out, row)
	}
	return out
}

func TestExactNumbersEverywhere(t *testing.T) {
	ctx := context.Background()
	chdb := openChDB(t)
	for seed := uint64(1); seed <= seeds; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			rows := generate(seed, rowsPer)
			dir := t.TempDir()
			csvDir := writeTable(t, dir, "csv", "csv", csvText(rows))
			shuffled := slices.Clone(rows)
			rand.New(rand.NewPCG(seed, 1)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			engines := []struct {
				name     string
				dir      string
				declared bool
				workers  int
			}{
				{"engine csv", csvDir, true, 2},
				{"engine parquet", writeTable(t, dir, "parquet", "parquet", parquetBytes(t, rows)), true, 2},
				{"engine ndjson", writeTable(t, dir, "ndjson", "ndjson", ndjsonText(rows)), true, 2},
				{"engine csv shuffled, 3 workers", writeTable(t, dir, "shuffled", "csv", csvText(shuffled)), true, 3},
				{"engine parquet, 1 worker, scale inferred", filepath.Join(dir, "parquet"), false, 1},
				{"engine csv, scale inferred", csvDir, false, 4},
			}
			var systems []system
			for _, e := range engines {
				m := factsModel("files", e.declared)
				eng, err := engine.New(ctx, engine.Config{Source: "files", Files: os.DirFS(e.dir), Models: []domain.Model{m}, Parallelism: e.workers})
				require.NoError(t, err)
				require.NoError(t, eng.Validate(ctx), e.name)
				systems = append(systems, system{name: e.name, source: "files", model: factsModel("files", true), exec: eng.Execute})
			}
			duck, duckTotals := openDuckDB(t, csvDir)
			systems = append(systems, system{name: "duckdb", source: "duck", model: factsModel("duck", true), exec: duck.Execute, sql: true})
			systems = append(systems, optional(t, csvDir)...)
			if chdb == nil {
				t.Run("chdb", func(t *testing.T) { testtier.Need(t, "chdb", "SUTURA_CHDB_LIB is unset") })
			} else {
				m := factsModel("chdb", true)
				m.Name, m.Table = fmt.Sprint("facts", seed), fmt.Sprint("facts", seed)
				systems = append(systems, system{name: "chdb", source: "chdb", model: m, exec: chdb.Execute, sql: true, roughAvg: true, roughRatio: true, roughReals: true})
			}

			checkTotals(t, ctx, rows, duckTotals, systems[0])
			qr := rand.New(rand.NewPCG(seed, 2))
			for i := range questions {
				q := randomQuestion(qr)
				answers := make([]*domain.RowSet, len(systems))
				for s, sys := range systems {
					rs, err := sys.exec(ctx, q.plan(sys.source, sys.model))
					require.NoError(t, err, "question %d (%s) on %s", i, q, sys.name)
					answers[s] = rs
				}
				compare(t, q, systems, answers, i)
				checkFloatSums(t, q, rows, answers[0], i)
			}
		})
	}
}

// compare requires every system's cells to be the reference's (DuckDB's),
// byte for byte, but a database's float sums and averages, which are
// compared among the engine's answers only.
func compare(t *testing.T, q question, systems []system, answers []*domain.RowSet, i int) {
	t.Helper()
	ref := slices.IndexFunc(systems, func(s system) bool { return s.name == "duckdb" })
	want := render(answers[ref])
	first := render(answers[0])
	naive, decAvg, ratio, real := map[int]bool{}, map[int]bool{}, map[int]bool{}, map[int]bool{}
	for j, m := range q.metrics {
		real[len(q.dims)+1+j] = m.m.Simple != nil && m.m.Simple.Column == "f"
		naive[len(q.dims)+1+j] = m.naive
		decAvg[len(q.dims)+1+j] = m.decimalAvg()
		ratio[len(q.dims)+1+j] = m.m.Ratio != nil
	}
	for s, sys := range systems {
		got := render(answers[s])
		require.Len(t, got, len(want), "question %d (%s): %s rows", i, q, sys.name)
		for r := range got {
			for c := range got[r] {
				switch {
				case decAvg[c] && sys.roughAvg, ratio[c] && sys.roughRatio, real[c] && sys.roughReals:
				case !naive[c]:
					require.Equal(t, want[r][c], got[r][c], "question %d (%s): %s row %d column %s, DuckDB's", i, q, sys.name, r, answers[s].Columns[c].Name)
				case !sys.sql:
					require.Equal(t, first[r][c], got[r][c], "question %d (%s): %s row %d column %s, the engine's on CSV", i, q, sys.name, r, answers[s].Columns[c].Name)
				}
			}
		}
	}
}

// checkFloatSums requires every float sum of the engine's answer to be the
// exact sum of its values rounded once to the nearest double.
func checkFloatSums(t *testing.T, q question, rows []row, rs *domain.RowSet, i int) {
	t.Helper()
	col := -1
	for j, m := range q.metrics {
		if m.name == "sum_f" {
			col = len(q.dims) + 1 + j
		}
	}
	if col < 0 {
		return
	}
	sums := map[string]*big.Rat{}
	for _, r := range rows {
		if r.day < q.rng.Start || r.day >= q.rng.End || r.f == nil || !passes(q.filter, r.grp) {
			continue
		}
		var key []string
		for _, d := range q.dims {
			v := map[string]string{"grp": r.grp, "region": r.region}[d]
			if v == "" {
				v = "null"
			}
			key = append(key, v)
		}
		key = append(key, q.grain.Truncate(r.day).String())
		k := strings.Join(key, "\x00")
		if sums[k] == nil {
			sums[k] = new(big.Rat)
		}
		sums[k].Add(sums[k], new(big.Rat).SetFloat64(*r.f))
	}
	for _, row := range render(rs) {
		k := strings.Join(row[:len(q.dims)+1], "\x00")
		want := "null"
		if s := sums[k]; s != nil {
			f, _ := s.Float64()
			want = domain.Float(f).Render()
		}
		require.Equal(t, want, row[col], "question %d (%s): the float sum of group %q is not the exact sum rounded once", i, q, k)
	}
}

func passes(f *domain.FilterRef, grp string) bool {
	if f == nil {
		return true
	}
	in := grp != "" && slices.Contains(f.Values, grp)
	if f.Op == domain.OpNotIn {
		return !in
	}
	return in
}

// checkTotals compares each year's sums of every decimal column three
// ways: the engine's answer, DuckDB's own SUM(DECIMAL) cast to text, and
// the exact sum of the generated coefficients.
func checkTotals(t *testing.T, ctx context.Context, rows []row, duck [][]string, eng system) {
	t.Helper()
	q := question{grain: domain.Year, rng: domain.Range{Start: firstDay, End: domain.DateOf(2025, 1, 1)},
		metrics: []term{terms[0], terms[1], terms[2]}}
	rs, err := eng.exec(ctx, q.plan(eng.source, eng.model))
	require.NoError(t, err)
	got := render(rs)
	require.Equal(t, duck, got, "the engine's yearly sums and DuckDB's SUM(DECIMAL)")

	exact := map[int][3]*big.Int{}
	for _, r := range rows {
		y, _, _ := r.day.Civil()
		e, ok := exact[y]
		if !ok {
			e = [3]*big.Int{new(big.Int), new(big.Int), new(big.Int)}
			exact[y] = e
		}
		for i := range decCols {
			if r.decs[i] != nil {
				e[i].Add(e[i], r.decs[i])
			}
		}
	}
	for _, row := range got {
		var y int
		_, err := fmt.Sscanf(row[0], "%d-01-01", &y)
		require.NoError(t, err)
		for i, c := range decCols {
			require.Equal(t, domain.DecimalCell(exact[y][i], int32(c.scale)).Render(), row[1+i], "year %d column %s: the exact sum", y, c.name)
		}
	}
}

// openDuckDB loads the CSV table into a DuckDB database file with DECIMAL
// columns of each decimal column's precision and scale, reads DuckDB's own
// yearly SUM(DECIMAL) of every decimal column (as its text, made
// canonical), and opens the duckdb source on the file.
func openDuckDB(t *testing.T, csvDir string) (*duckdb.DB, [][]string) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "facts.duckdb")
	db, err := sql.Open("duckdb", path)
	require.NoError(t, err)
	cols := []string{"'day': 'DATE'", "'grp': 'VARCHAR'", "'region': 'VARCHAR'"}
	for _, c := range decCols {
		cols = append(cols, fmt.Sprintf("'%s': 'DECIMAL(%d,%d)'", c.name, c.precision, c.scale))
	}
	cols = append(cols, "'f': 'DOUBLE'")
	_, err = db.ExecContext(ctx, fmt.Sprintf(`CREATE TABLE facts AS SELECT * FROM read_csv('%s', header = true, columns = {%s})`,
		filepath.Join(csvDir, "facts.csv"), strings.Join(cols, ", ")))
	require.NoError(t, err)
	res, err := db.QueryContext(ctx, `SELECT CAST(year("day") AS VARCHAR), CAST(SUM(d2) AS VARCHAR), CAST(SUM(d6) AS VARCHAR), CAST(SUM(d9) AS VARCHAR) FROM facts GROUP BY 1 ORDER BY 1`)
	require.NoError(t, err)
	var totals [][]string
	for res.Next() {
		var y string
		var s [3]sql.NullString
		require.NoError(t, res.Scan(&y, &s[0], &s[1], &s[2]))
		row := []string{y + "-01-01"}
		for _, v := range s {
			c, ok := domain.DecimalText(v.String)
			if !v.Valid || !ok {
				row = append(row, "null")
				continue
			}
			row = append(row, c.Render())
		}
		totals = append(totals, row)
	}
	require.NoError(t, res.Err())
	require.NoError(t, res.Close())
	require.NoError(t, db.Close())

	src, err := duckdb.New(ctx, duckdb.Config{Source: "duck", Path: path, Models: []domain.Model{factsModel("duck", true)}, Threads: 2})
	require.NoError(t, err)
	t.Cleanup(func() { src.Close() })
	return src, totals
}

// optional opens the PostgreSQL and ClickHouse sources loaded with the
// CSV table where their tiers run (numeric, and ClickHouse's test tables'
// Decimal(38, 9)); where one cannot run, a subtest says NOT RUN.
func optional(t *testing.T, csvDir string) []system {
	t.Helper()
	ctx := context.Background()
	var out []system
	if os.Getenv("SUTURA_PG_URL") == "" {
		t.Run("postgres", func(t *testing.T) { testtier.Need(t, "postgres", "SUTURA_PG_URL is unset") })
	} else {
		d := pgtest.New(t)
		models := []domain.Model{factsModel("pg", true)}
		d.Load(t, os.DirFS(csvDir), models)
		src, err := postgres.New(ctx, d.Config("pg", models))
		require.NoError(t, err)
		t.Cleanup(func() { src.Close() })
		out = append(out, system{name: "postgres", source: "pg", model: models[0], exec: src.Execute, sql: true})
	}
	if os.Getenv("SUTURA_CH_URL") == "" {
		t.Run("clickhouse", func(t *testing.T) { testtier.Need(t, "clickhouse", "SUTURA_CH_URL is unset") })
	} else {
		d := chtest.New(t)
		models := []domain.Model{factsModel("ch", true)}
		d.Load(t, os.DirFS(csvDir), models)
		src, err := clickhouse.New(ctx, d.Config("ch", models))
		require.NoError(t, err)
		t.Cleanup(func() { src.Close() })
		out = append(out, system{name: "clickhouse", source: "ch", model: models[0], exec: src.Execute, sql: true, roughAvg: true, roughRatio: true})
	}
	return out
}

// openChDB loads every seed's table (facts1, facts2, …, in ClickHouse's
// test tables' Decimal(38, 9)) into chDB's engine, where the chdb tier
// runs: the engine is process-wide and read-only once loaded, so it is
// loaded once. Nil where the tier cannot run.
func openChDB(t *testing.T) *chdbtest.System {
	t.Helper()
	lib := os.Getenv(chdbtest.Tier.Env)
	if lib == "" {
		return nil
	}
	dir := t.TempDir()
	var models []domain.Model
	for seed := uint64(1); seed <= seeds; seed++ {
		m := factsModel("chdb", true)
		m.Name, m.Table = fmt.Sprint("facts", seed), fmt.Sprint("facts", seed)
		models = append(models, m)
		require.NoError(t, os.WriteFile(filepath.Join(dir, m.Table+".csv"), csvText(generate(seed, rowsPer)), 0o644))
	}
	e, err := chdbtest.Open(lib, filepath.Join(dir, "engine"))
	require.NoError(t, err)
	sys, err := chdbtest.NewSystem(e, "chdb", "exact", os.DirFS(dir), models)
	require.NoError(t, err)
	return sys
}

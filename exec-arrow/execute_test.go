package engine

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

const salesCSV = `id,day,cust,amount,price,status,paid,qty
1,2025-01-05,1,100,1.5,done,true,2
2,2025-01-20,2,50,2.25,done,false,
3,2025-02-03,1,,0.5,cancelled,true,1
4,2025-02-10,3,70,,done,true,3
5,2025-03-15,9,30,4,done,,1
6,2024-12-31,1,999,1,done,true,1
7,2025-03-01,,20,1,,true,1
`

const customersCSV = `cust_id,name,region_id
1,Ann,10
2,Bob,20
3,Cy,
`

const regionsCSV = `region_id,region
10,North
20,South
`

var salesCols = []domain.ModelColumn{
	col("id", domain.TypeInteger), col("day", domain.TypeDate), col("cust", domain.TypeInteger),
	col("amount", domain.TypeInteger), col("price", domain.TypeFloat), col("status", domain.TypeText),
	col("paid", domain.TypeBoolean), col("qty", domain.TypeInteger),
}

// salesDir writes the three test tables and returns their directory.
func salesDir(t *testing.T) string {
	dir := t.TempDir()
	write(t, dir, "sales.csv", salesCSV)
	write(t, dir, "customers.csv", customersCSV)
	write(t, dir, "regions.csv", regionsCSV)
	return dir
}

func salesLeg(metrics ...domain.MetricRef) domain.Leg {
	return domain.Leg{Base: tbl("sales", "t0", salesCols...), TimeColumn: "day", Metrics: metrics}
}

func TestMeasures(t *testing.T) {
	e := newEngine(t, os.DirFS(salesDir(t)))
	tests := []struct {
		name string
		m    domain.Measure
		want []string // Jan, Feb, Mar 2025
	}{
		{"sum", sum("amount"), []string{"150", "70", "50"}},
		{"sum float", sum("price"), []string{"3.75", "0.5", "5"}},
		{"count", count("amount"), []string{"2", "1", "2"}},
		{"count_distinct", simple(domain.CountDistinct, "cust"), []string{"2", "2", "1"}},
		{"avg", simple(domain.Avg, "price"), []string{"1.875", "0.5", "2.5"}},
		{"avg int", simple(domain.Avg, "amount"), []string{"75", "70", "25"}},
		{"min", simple(domain.Min, "amount"), []string{"50", "70", "20"}},
		{"max", simple(domain.Max, "price"), []string{"2.25", "0.5", "4"}},
		{"min date", simple(domain.Min, "day"), []string{"2025-01-05", "2025-02-03", "2025-03-01"}},
		{"max date", simple(domain.Max, "day"), []string{"2025-01-20", "2025-02-10", "2025-03-15"}},
		{"min text", simple(domain.Min, "status"), []string{"done", "cancelled", "done"}},
		{"max text", simple(domain.Max, "status"), []string{"done", "done", "done"}},
		{"count_if", countIf("paid"), []string{"1", "2", "1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := run(t, e, mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", salesLeg(metric("m", tc.m))))
			require.Equal(t, [][]string{
				{"2025-01-01", tc.want[0]}, {"2025-02-01", tc.want[1]}, {"2025-03-01", tc.want[2]},
			}, got)
		})
	}
}

func TestCellKinds(t *testing.T) {
	e := newEngine(t, os.DirFS(salesDir(t)))
	rs, err := e.Execute(context.Background(), mkPlan(t, domain.Year, "2025-01-01", "2026-01-01",
		salesLeg(metric("s", sum("amount")), metric("f", sum("price")), metric("a", simple(domain.Avg, "amount")),
			metric("d", simple(domain.Max, "day")))))
	require.NoError(t, err)
	require.Len(t, rs.Rows, 1)
	kinds := []domain.Kind{domain.KindDate, domain.KindInt, domain.KindFloat, domain.KindFloat, domain.KindDate}
	for i, c := range rs.Rows[0] {
		assert.Equal(t, kinds[i], c.Kind(), "column %d", i)
	}
	assert.Equal(t, []string{"period", "s", "f", "a", "d"}, []string{rs.Columns[0].Name, rs.Columns[1].Name, rs.Columns[2].Name, rs.Columns[3].Name, rs.Columns[4].Name})
}

func TestJoinsTwoHopsAndUnmatched(t *testing.T) {
	e := newEngine(t, os.DirFS(salesDir(t)))
	leg := salesLeg(metric("amount", sum("amount")))
	leg.Joins = []domain.Join{
		{Relationship: "sale_customer", To: tbl("customers", "t1", col("cust_id", domain.TypeInteger), col("name", domain.TypeText), col("region_id", domain.TypeInteger)), FromAlias: "t0", FromColumn: "cust", ToColumn: "cust_id"},
		{Relationship: "customer_region", To: tbl("regions", "t2", col("region_id", domain.TypeInteger), col("region", domain.TypeText)), FromAlias: "t1", FromColumn: "region_id", ToColumn: "region_id"},
	}
	leg.Dimensions = []domain.DimensionRef{dim("area", "t2", "region")}
	got := run(t, e, mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", leg))
	require.Equal(t, [][]string{
		{"North", "2025-01-01", "100"},
		{"North", "2025-02-01", "null"}, // the only row has a null amount
		{"South", "2025-01-01", "50"},
		{"null", "2025-02-01", "70"}, // customer 3 has no region
		{"null", "2025-03-01", "50"}, // customer 9 is unknown, row 7 has none
	}, got)

	// One hop, grouped by the joined name and a base column.
	leg.Joins = leg.Joins[:1]
	leg.Dimensions = []domain.DimensionRef{dim("customer", "t1", "name"), dim("status", "t0", "status")}
	got = run(t, e, mkPlan(t, domain.Year, "2025-01-01", "2026-01-01", leg))
	require.Equal(t, [][]string{
		{"Ann", "cancelled", "2025-01-01", "null"},
		{"Ann", "done", "2025-01-01", "100"},
		{"Bob", "done", "2025-01-01", "50"},
		{"Cy", "done", "2025-01-01", "70"},
		{"null", "done", "2025-01-01", "30"},
		{"null", "null", "2025-01-01", "20"},
	}, got)
}

func TestDuplicateJoinKeyIsAnError(t *testing.T) {
	dir := salesDir(t)
	write(t, dir, "customers.csv", "cust_id,name,region_id\n1,Ann,10\n1,Dup,20\n")
	e := newEngine(t, os.DirFS(dir))
	leg := salesLeg(metric("amount", sum("amount")))
	leg.Joins = []domain.Join{{Relationship: "sale_customer", To: tbl("customers", "t1", col("cust_id", domain.TypeInteger), col("name", domain.TypeText)), FromAlias: "t0", FromColumn: "cust", ToColumn: "cust_id"}}
	leg.Dimensions = []domain.DimensionRef{dim("customer", "t1", "name")}
	_, err := e.Execute(context.Background(), mkPlan(t, domain.Year, "2025-01-01", "2026-01-01", leg))
	require.ErrorContains(t, err, "cust_id")
}

func TestGrains(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "ev.csv", "day,n\n2025-12-29,1\n2025-12-31,2\n2026-01-01,4\n2026-01-04,8\n2026-01-05,16\n2026-02-14,32\n2026-04-01,64\n")
	e := newEngine(t, os.DirFS(dir))
	leg := domain.Leg{Base: tbl("ev", "t0", col("day", domain.TypeDate), col("n", domain.TypeInteger)), TimeColumn: "day", Metrics: []domain.MetricRef{metric("n", sum("n"))}}
	tests := []struct {
		grain      domain.Grain
		start, end string
		want       [][]string
	}{
		{domain.Day, "2025-12-31", "2026-01-02", [][]string{{"2025-12-31", "2"}, {"2026-01-01", "4"}}},
		// The week of Monday 2025-12-29 spans the year boundary; the range
		// starts inside it, so its bucket starts before the range.
		{domain.Week, "2025-12-31", "2026-01-12", [][]string{{"2025-12-29", "14"}, {"2026-01-05", "16"}}},
		{domain.Week, "2025-12-29", "2026-01-05", [][]string{{"2025-12-29", "15"}}},
		{domain.Month, "2025-12-01", "2026-03-01", [][]string{{"2025-12-01", "3"}, {"2026-01-01", "28"}, {"2026-02-01", "32"}}},
		{domain.Quarter, "2025-10-01", "2026-07-01", [][]string{{"2025-10-01", "3"}, {"2026-01-01", "60"}, {"2026-04-01", "64"}}},
		{domain.Year, "2025-01-01", "2027-01-01", [][]string{{"2025-01-01", "3"}, {"2026-01-01", "124"}}},
	}
	for _, tc := range tests {
		t.Run(tc.grain.String()+" "+tc.start, func(t *testing.T) {
			require.Equal(t, tc.want, run(t, e, mkPlan(t, tc.grain, tc.start, tc.end, leg)))
		})
	}
}

func TestTimestampTimeColumn(t *testing.T) {
	dir := t.TempDir()
	// 23:30 at -02:00 is the next day in UTC; the bucket follows UTC.
	write(t, dir, "ev.csv", "at,n\n2025-01-31T23:30:00-02:00,1\n2025-01-31T12:00:00Z,2\n2025-02-01T00:00:00.5Z,4\n")
	e := newEngine(t, os.DirFS(dir))
	leg := domain.Leg{Base: tbl("ev", "t0", col("at", domain.TypeTimestamp), col("n", domain.TypeInteger)), TimeColumn: "at",
		Metrics: []domain.MetricRef{metric("n", sum("n")), metric("last", simple(domain.Max, "at"))}}
	require.Equal(t, [][]string{
		{"2025-01-31", "2", "2025-01-31T12:00:00Z"},
		{"2025-02-01", "5", "2025-02-01T01:30:00Z"},
	}, run(t, e, mkPlan(t, domain.Day, "2025-01-01", "2025-03-01", leg)))
}

func TestCallerFilters(t *testing.T) {
	e := newEngine(t, os.DirFS(salesDir(t)))
	tests := []struct {
		name string
		f    domain.FilterRef
		want string // the year's sum of amount
	}{
		{"eq text", filter(domain.OpEq, "t0", "status", "done"), "250"},
		{"in text", filter(domain.OpIn, "t0", "status", "done", "cancelled"), "250"},
		{"not_in keeps nulls", filter(domain.OpNotIn, "t0", "status", "done"), "20"},
		{"eq integer", filter(domain.OpEq, "t0", "qty", "2"), "100"},
		{"integer compares by rendering", filter(domain.OpEq, "t0", "qty", "02"), "none"},
		{"not_in integer keeps nulls", filter(domain.OpNotIn, "t0", "qty", "1", "3"), "150"},
		{"eq boolean", filter(domain.OpEq, "t0", "paid", "false"), "50"},
		{"in float", filter(domain.OpIn, "t0", "price", "1.5", "4"), "130"},
		{"eq date", filter(domain.OpEq, "t0", "day", "2025-02-10"), "70"},
		{"unknown value", filter(domain.OpEq, "t0", "status", "nope"), "none"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			leg := salesLeg(metric("amount", sum("amount")))
			leg.Filters = []domain.FilterRef{tc.f}
			got := run(t, e, mkPlan(t, domain.Year, "2025-01-01", "2026-01-01", leg))
			if tc.want == "none" {
				require.Empty(t, got)
				return
			}
			require.Equal(t, [][]string{{"2025-01-01", tc.want}}, got)
		})
	}
}

func TestFilterOnJoinedDimension(t *testing.T) {
	e := newEngine(t, os.DirFS(salesDir(t)))
	leg := salesLeg(metric("amount", sum("amount")))
	leg.Joins = []domain.Join{
		{Relationship: "c", To: tbl("customers", "t1", col("cust_id", domain.TypeInteger), col("region_id", domain.TypeInteger)), FromAlias: "t0", FromColumn: "cust", ToColumn: "cust_id"},
		{Relationship: "r", To: tbl("regions", "t2", col("region_id", domain.TypeInteger), col("region", domain.TypeText)), FromAlias: "t1", FromColumn: "region_id", ToColumn: "region_id"},
	}
	leg.Filters = []domain.FilterRef{filter(domain.OpNotIn, "t2", "region", "North")}
	// South (50) plus every row without a region (70, 30, 20).
	require.Equal(t, [][]string{{"2025-01-01", "170"}}, run(t, e, mkPlan(t, domain.Year, "2025-01-01", "2026-01-01", leg)))
	leg.Filters = []domain.FilterRef{filter(domain.OpEq, "t2", "region", "North")}
	require.Equal(t, [][]string{{"2025-01-01", "100"}}, run(t, e, mkPlan(t, domain.Year, "2025-01-01", "2026-01-01", leg)))
}

func TestRequiredFiltersPerMetric(t *testing.T) {
	e := newEngine(t, os.DirFS(salesDir(t)))
	notCancelled := domain.RequiredFilter{Op: domain.NotEquals, Column: "status", Value: "cancelled"}
	paid := domain.RequiredFilter{Op: domain.IsTrue, Column: "paid"}
	cancelled := domain.RequiredFilter{Op: domain.Equals, Column: "status", Value: "cancelled"}
	hasAmount := domain.RequiredFilter{Op: domain.IsNotNull, Column: "amount"}

	// Rows 5 (paid null) and 7 (status null) fail not_equals/is_true as SQL does.
	got := run(t, e, mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", salesLeg(
		metric("net", sum("amount"), notCancelled, paid),
		metric("cancelled", count("id"), cancelled))))
	require.Equal(t, [][]string{
		{"2025-01-01", "100", "null"},
		{"2025-02-01", "70", "1"},
	}, got)

	// Each metric alone gives the same cells.
	got = run(t, e, mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", salesLeg(metric("cancelled", count("id"), cancelled))))
	require.Equal(t, [][]string{{"2025-02-01", "1"}}, got)

	got = run(t, e, mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", salesLeg(metric("n", count("id"), hasAmount))))
	require.Equal(t, [][]string{{"2025-01-01", "2"}, {"2025-02-01", "1"}, {"2025-03-01", "2"}}, got)

	// A metric without required filters admits every row.
	got = run(t, e, mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", salesLeg(
		metric("all", count("id")), metric("cancelled", count("id"), cancelled))))
	require.Equal(t, [][]string{{"2025-01-01", "2", "null"}, {"2025-02-01", "2", "1"}, {"2025-03-01", "2", "null"}}, got)

	// equals on an integer column compares the rendering.
	got = run(t, e, mkPlan(t, domain.Year, "2025-01-01", "2026-01-01", salesLeg(
		metric("n", count("id"), domain.RequiredFilter{Op: domain.Equals, Column: "qty", Value: "1"}))))
	require.Equal(t, [][]string{{"2025-01-01", "3"}}, got)
}

func TestTop(t *testing.T) {
	e := newEngine(t, os.DirFS(salesDir(t)))
	leg := salesLeg(metric("amount", sum("amount")))
	leg.Dimensions = []domain.DimensionRef{dim("status", "t0", "status")}
	p := mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", leg)
	// Groups: done Jan 150, cancelled Feb null, done Feb 70, done Mar 30, null Mar 20.
	p.Top = &domain.Top{N: 3, By: domain.ByMetric, Direction: "desc"}
	require.Equal(t, [][]string{{"done", "2025-01-01", "150"}, {"done", "2025-02-01", "70"}, {"done", "2025-03-01", "30"}}, run(t, e, p))
	p.Top = &domain.Top{N: 5, By: domain.ByMetric, Direction: "asc"}
	require.Equal(t, [][]string{
		{"null", "2025-03-01", "20"}, {"done", "2025-03-01", "30"}, {"done", "2025-02-01", "70"},
		{"done", "2025-01-01", "150"}, {"cancelled", "2025-02-01", "null"},
	}, run(t, e, p))
	p.Top = &domain.Top{N: 3, By: domain.ByPeriod, Direction: "desc"}
	require.Equal(t, [][]string{{"done", "2025-03-01", "30"}, {"null", "2025-03-01", "20"}, {"cancelled", "2025-02-01", "null"}}, run(t, e, p))
	p.Top = &domain.Top{N: 2, By: domain.ByPeriod, Direction: "asc"}
	require.Equal(t, [][]string{{"done", "2025-01-01", "150"}, {"cancelled", "2025-02-01", "null"}}, run(t, e, p))
}

func TestRatios(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "r.csv", "day,num,den\n2025-01-01,10,2\n2025-01-02,5,2\n2025-02-01,5,0\n2025-03-01,,4\n2025-04-01,3,\n")
	e := newEngine(t, os.DirFS(dir))
	ratio := func(rule domain.ZeroDenominator) domain.Measure {
		return domain.Measure{Ratio: &domain.Ratio{
			Numerator:   domain.Term{Aggregate: domain.Sum, Column: "num"},
			Denominator: domain.Term{Aggregate: domain.Sum, Column: "den"}, ZeroDenominator: rule}}
	}
	leg := func(rule domain.ZeroDenominator) domain.Leg {
		return domain.Leg{Base: tbl("r", "t0", col("day", domain.TypeDate), col("num", domain.TypeInteger), col("den", domain.TypeInteger)),
			TimeColumn: "day", Metrics: []domain.MetricRef{metric("per", ratio(rule))}}
	}
	got := run(t, e, mkPlan(t, domain.Month, "2025-01-01", "2025-05-01", leg(domain.YieldsNull)))
	require.Equal(t, [][]string{{"2025-01-01", "3.75"}, {"2025-02-01", "null"}, {"2025-03-01", "null"}, {"2025-04-01", "null"}}, got)

	_, err := e.Execute(context.Background(), mkPlan(t, domain.Month, "2025-01-01", "2025-05-01", leg(domain.Fails)))
	require.ErrorIs(t, err, domain.ErrZeroDenominator)
	require.ErrorContains(t, err, "per")
	// Without the zero group it answers.
	got = run(t, e, mkPlan(t, domain.Month, "2025-01-01", "2025-02-01", leg(domain.Fails)))
	require.Equal(t, [][]string{{"2025-01-01", "3.75"}}, got)
}

func TestRowCapAndByteBound(t *testing.T) {
	e := newEngine(t, os.DirFS(salesDir(t)))
	p := mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", salesLeg(metric("amount", sum("amount"))))
	p.RowCap = 2
	_, err := e.Execute(context.Background(), p)
	require.Equal(t, domain.ResultTooLarge, refusal(t, err))
	p.RowCap = 3
	require.Len(t, run(t, e, p), 3)
	// Top keeps n rows of more groups than the cap.
	p.RowCap = 2
	p.Top = &domain.Top{N: 2, By: domain.ByMetric, Direction: "desc"}
	require.Len(t, run(t, e, p), 2)

	// 9000 rows of a 1000-byte dimension render to more than 8 MiB.
	dir := t.TempDir()
	f, err := os.Create(dir + "/wide.csv")
	require.NoError(t, err)
	_, _ = f.WriteString("day,label\n")
	pad := make([]byte, 995)
	for i := range pad {
		pad[i] = 'x'
	}
	for i := 0; i < 9000; i++ {
		_, _ = f.WriteString("2025-01-01," + string(pad) + itoa(i) + "\n")
	}
	require.NoError(t, f.Close())
	e = newEngine(t, os.DirFS(dir))
	leg := domain.Leg{Base: tbl("wide", "t0", col("day", domain.TypeDate), col("label", domain.TypeText)), TimeColumn: "day",
		Dimensions: []domain.DimensionRef{dim("label", "t0", "label")}, Metrics: []domain.MetricRef{metric("n", count("label"))}}
	_, err = e.Execute(context.Background(), mkPlan(t, domain.Day, "2025-01-01", "2025-01-02", leg))
	require.Equal(t, domain.ResultTooLarge, refusal(t, err))
}

func itoa(i int) string {
	s := ""
	for {
		s = string(rune('0'+i%10)) + s
		i /= 10
		if i == 0 {
			return s
		}
	}
}

func TestWorkingSet(t *testing.T) {
	dir := salesDir(t)
	e, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), WorkingSetMaxBytes: 64})
	require.NoError(t, err)
	_, err = e.Execute(context.Background(), mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", salesLeg(metric("amount", sum("amount")))))
	require.Equal(t, domain.ResourcesExhausted, refusal(t, err))
	assert.Zero(t, e.cache.Stats().Used, "a refused query holds nothing")

	// A working set that holds one lookup table's columns beside a
	// question evicts the other's when a question joins it: column by
	// column, least recently used first.
	dir = t.TempDir()
	var a, b strings.Builder
	a.WriteString("k,name\n")
	b.WriteString("k,name\n")
	for i := 0; i < 100_000; i++ {
		a.WriteString(itoa(i) + ",a" + itoa(i%7) + "\n")
		b.WriteString(itoa(i) + ",b" + itoa(i%5) + "\n")
	}
	write(t, dir, "a.csv", a.String())
	write(t, dir, "b.csv", b.String())
	write(t, dir, "f.csv", "day,k\n2025-01-01,1\n2025-01-02,2\n2025-01-03,12\n")
	question := func(table string) *domain.Plan {
		return mkPlan(t, domain.Year, "2025-01-01", "2026-01-01", domain.Leg{
			Base:       tbl("f", "t0", col("day", domain.TypeDate), col("k", domain.TypeInteger)),
			Joins:      []domain.Join{{Relationship: "r", To: tbl(table, "t1", col("k", domain.TypeInteger), col("name", domain.TypeText)), FromAlias: "t0", FromColumn: "k", ToColumn: "k"}},
			TimeColumn: "day", Dimensions: []domain.DimensionRef{dim("name", "t1", "name")},
			Metrics: []domain.MetricRef{metric("n", count("k"))}})
	}
	ctx := context.Background()
	probe, err := New(ctx, Config{Source: "files", Files: os.DirFS(dir), NoCacheFill: true})
	require.NoError(t, err)
	run(t, probe, question("a"))
	one := probe.cache.Stats().Used // a's columns and their join index and codes
	limit := probe.cache.Stats().Peak + one/2
	e, err = New(ctx, Config{Source: "files", Files: os.DirFS(dir), WorkingSetMaxBytes: limit, NoCacheFill: true})
	require.NoError(t, err)
	wantA := [][]string{{"a1", "2025-01-01", "1"}, {"a2", "2025-01-01", "1"}, {"a5", "2025-01-01", "1"}}
	require.Equal(t, wantA, run(t, e, question("a")))
	require.Len(t, e.cache.Cached("a"), 2)
	require.Equal(t, [][]string{{"b1", "2025-01-01", "1"}, {"b2", "2025-01-01", "2"}}, run(t, e, question("b")))
	assert.LessOrEqual(t, e.cache.Stats().Peak, limit)
	assert.Less(t, len(e.cache.Cached("a")), 2, "a's columns, least recently used, were evicted, as many as needed")
	assert.Len(t, e.cache.Cached("b"), 2)
	reads := e.cache.Stats().Reads
	require.Equal(t, wantA, run(t, e, question("a")))
	assert.EqualValues(t, reads+2, e.cache.Stats().Reads, "the fact table is streamed and the evicted column read again")
}

func TestPlanShapeErrors(t *testing.T) {
	e := newEngine(t, os.DirFS(salesDir(t)))
	p := mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", salesLeg(metric("amount", sum("status"))))
	_, err := e.Execute(context.Background(), p)
	require.ErrorContains(t, err, "status")

	p = mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", salesLeg(metric("amount", sum("amount"))))
	p.Legs = append(p.Legs, p.Legs[0])
	_, err = e.Execute(context.Background(), p)
	require.Equal(t, domain.FederationNotExecutable, refusal(t, err))

	p = mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", salesLeg(metric("amount", sum("amount"))))
	p.Legs[0].Source = "elsewhere"
	_, err = e.Execute(context.Background(), p)
	require.Error(t, err)

	p = mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", salesLeg(metric("a", sum("amount")), metric("b", count("id"))))
	p.Top = &domain.Top{N: 1, By: domain.ByMetric, Direction: "desc"}
	_, err = e.Execute(context.Background(), p)
	require.Equal(t, domain.MultiMetricTopNotExecutable, refusal(t, err))

	p = mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", salesLeg(metric("n", countIf("status"))))
	_, err = e.Execute(context.Background(), p)
	require.ErrorContains(t, err, "boolean")
}

func TestDeadlineIsARefusal(t *testing.T) {
	e := newEngine(t, os.DirFS(salesDir(t)))
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	_, err := e.Execute(ctx, mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", salesLeg(metric("amount", sum("amount")))))
	require.Equal(t, domain.DeadlineExceeded, refusal(t, err))

	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	_, err = e.Execute(ctx, mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", salesLeg(metric("amount", sum("amount")))))
	require.True(t, errors.Is(err, context.Canceled))
}

package engine

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

// mrrCSV holds amounts whose float64 sum is not their decimal sum
// (0.1 + 0.2), a value past 18 digits, and mixed scales.
const mrrCSV = `day,status,amt
2023-01-02,a,0.1
2023-01-03,a,0.2
2023-01-04,b,15813.75
2023-01-05,b,-0.05
2023-01-06,c,
2023-01-07,d,12345678901234567890.5
2023-01-08,d,1
2023-02-01,a,3
`

func mrrLeg(cols []domain.ModelColumn, metrics ...domain.MetricRef) domain.Leg {
	leg := domain.Leg{Base: tbl("mrr", "t0", cols...), TimeColumn: "day", Metrics: metrics}
	leg.Dimensions = []domain.DimensionRef{dim("status", "t0", "status")}
	return leg
}

var mrrCols = []domain.ModelColumn{col("day", domain.TypeDate), col("status", domain.TypeText), col("amt", domain.TypeDecimal)}

func TestDecimalSumsExactly(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "mrr.csv", mrrCSV)
	for _, cached := range []bool{false, true} {
		e := newEngine(t, os.DirFS(dir))
		leg := mrrLeg(mrrCols, metric("s", sum("amt")), metric("lo", simple(domain.Min, "amt")),
			metric("hi", simple(domain.Max, "amt")), metric("a", simple(domain.Avg, "amt")))
		p := mkPlan(t, domain.Year, "2023-01-01", "2024-01-01", leg)
		if cached {
			run(t, e, p)
			e.Settle(context.Background())
		}
		got := run(t, e, p)
		require.Equal(t, [][]string{
			{"a", "2023-01-01", "3.3", "0.1", "3", "1.1"},
			{"b", "2023-01-01", "15813.7", "-0.05", "15813.75", "7906.85"},
			{"c", "2023-01-01", "null", "null", "null", "null"},
			{"d", "2023-01-01", "12345678901234567891.5", "1", "12345678901234567890.5", "6172839450617284000"}, // avg is a double,
		}, got, "cached=%v", cached)
	}
}

func TestDecimalCellKindAndFilter(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "mrr.csv", mrrCSV)
	e := newEngine(t, os.DirFS(dir))
	leg := mrrLeg(mrrCols, metric("n", count("amt")))
	leg.Dimensions = []domain.DimensionRef{dim("amt", "t0", "amt")}
	leg.Filters = []domain.FilterRef{filter(domain.OpIn, "t0", "amt", "0.1", "1", "1.0", "15813.75")}
	got := run(t, e, mkPlan(t, domain.Year, "2023-01-01", "2024-01-01", leg))
	// "1.0" is not the canonical rendering of 1: it matches nothing.
	assert.Equal(t, [][]string{{"0.1", "2023-01-01", "1"}, {"1", "2023-01-01", "1"}, {"15813.75", "2023-01-01", "1"}}, got)

	rs, err := e.Execute(context.Background(), mkPlan(t, domain.Year, "2023-01-01", "2024-01-01",
		domain.Leg{Base: tbl("mrr", "t0", mrrCols...), TimeColumn: "day", Metrics: []domain.MetricRef{metric("s", sum("amt"))}}))
	require.NoError(t, err)
	assert.Equal(t, domain.KindDecimal, rs.Rows[0][1].Kind())
	assert.Equal(t, "12345678901234583708.5", rs.Rows[0][1].Render())
}

func TestDecimalDeclaredScale(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "mrr.csv", "day,status,amt\n2023-01-02,a,1.50\n2023-01-03,a,2.125\n")
	two := 2
	cols := []domain.ModelColumn{col("day", domain.TypeDate), col("status", domain.TypeText),
		{Name: "amt", Type: domain.TypeDecimal, Precision: 10, Scale: &two}}
	e := newEngine(t, os.DirFS(dir), domain.Model{Name: "mrr", Source: "files", Table: "mrr", Columns: cols})
	err := e.Validate(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "mrr.csv")
	assert.Contains(t, err.Error(), "amt")
	assert.Contains(t, err.Error(), "line 3")
	assert.Contains(t, err.Error(), "scale 2")
	assert.NotContains(t, err.Error(), "2.125")

	write(t, dir, "mrr.csv", "day,status,amt\n2023-01-02,a,1.50\n2023-01-03,a,2.120\n")
	e = newEngine(t, os.DirFS(dir), domain.Model{Name: "mrr", Source: "files", Table: "mrr", Columns: cols})
	require.NoError(t, e.Validate(context.Background()))
	got := run(t, e, mkPlan(t, domain.Year, "2023-01-01", "2024-01-01", mrrLeg(cols, metric("s", sum("amt")))))
	assert.Equal(t, [][]string{{"a", "2023-01-01", "3.62"}}, got)
}

func TestDecimalSumOverflowIsRefusedByName(t *testing.T) {
	dir := t.TempDir()
	big := "99999999999999999999999999999999999999" // 38 nines
	write(t, dir, "mrr.csv", "day,status,amt\n2023-01-02,a,"+big+"\n2023-01-03,a,"+big+"\n")
	e := newEngine(t, os.DirFS(dir))
	_, err := e.Execute(context.Background(), mkPlan(t, domain.Year, "2023-01-01", "2024-01-01", mrrLeg(mrrCols, metric("total", sum("amt")))))
	require.ErrorIs(t, err, domain.ErrDecimalOverflow)
	assert.Contains(t, err.Error(), "total")
}

func TestDecimalParquetExact(t *testing.T) {
	dt := &arrow.Decimal128Type{Precision: 20, Scale: 4}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "day", Type: arrow.FixedWidthTypes.Date32},
		{Name: "status", Type: arrow.BinaryTypes.String},
		{Name: "amt", Type: dt, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	d0, _ := domain.ParseDate("2023-01-02")
	for i, v := range []int64{1000, 2000, 158137500, -512} {
		b.Field(0).(*array.Date32Builder).Append(arrow.Date32(int32(d0) + int32(i)))
		b.Field(1).(*array.StringBuilder).Append("a")
		b.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(v))
	}
	rec := b.NewRecord()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &buf, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	dir := t.TempDir()
	write(t, dir, "mrr.parquet", buf.String())
	// Declared decimal, and undeclared (the Parquet DECIMAL type decides).
	for _, cols := range [][]domain.ModelColumn{mrrCols, {col("day", domain.TypeDate), col("status", domain.TypeText), {Name: "amt"}}} {
		e := newEngine(t, os.DirFS(dir))
		got := run(t, e, mkPlan(t, domain.Year, "2023-01-01", "2024-01-01", mrrLeg(cols, metric("s", sum("amt")))))
		assert.Equal(t, [][]string{{"a", "2023-01-01", "15813.9988"}}, got)
	}
}

// Float sums are compensated: ten times 0.1 is 1 (plain addition gives
// 0.9999999999999999), and 1e16 + 1 + 1 - 1e16 is 2 in every row order.
func TestFloatSumsAreCompensated(t *testing.T) {
	for _, rows := range [][]string{
		{"1e16", "1", "1", "-1e16"},
		{"1", "1e16", "-1e16", "1"},
		{"-1e16", "1", "1e16", "1"},
	} {
		dir := t.TempDir()
		csv := "day,status,f\n"
		for i := range 10 {
			csv += "2023-01-0" + string(rune('1'+i%9)) + ",a,0.1\n"
		}
		for _, v := range rows {
			csv += "2023-02-01,a," + v + "\n"
		}
		write(t, dir, "mrr.csv", csv)
		cols := []domain.ModelColumn{col("day", domain.TypeDate), col("status", domain.TypeText), col("f", domain.TypeFloat)}
		e := newEngine(t, os.DirFS(dir))
		got := run(t, e, mkPlan(t, domain.Month, "2023-01-01", "2023-03-01", mrrLeg(cols, metric("s", sum("f")))))
		assert.Equal(t, [][]string{{"a", "2023-01-01", "1"}, {"a", "2023-02-01", "2"}}, got, "%v", rows)
	}
}

// TestIntegerSumOverflowIsRefusedByName: a sum over an integer column that
// passes int64 is refused naming the metric, never wrapped — grouped or
// not, with nulls or without — and a sum whose running total stays within
// int64 is answered exactly (docs/reference.md "Numbers").
func TestIntegerSumOverflowIsRefusedByName(t *testing.T) {
	const near = "9000000000000000000"
	intCols := []domain.ModelColumn{col("day", domain.TypeDate), col("status", domain.TypeText), col("amt", domain.TypeInteger)}
	for _, tc := range []struct {
		name, rows string
		want       [][]string
	}{
		{"one group", "2023-01-02,a," + near + "\n2023-01-03,a," + near + "\n", nil},
		{"negative", "2023-01-02,a,-" + near + "\n2023-01-03,a,-" + near + "\n", nil},
		{"with a null", "2023-01-02,a," + near + "\n2023-01-03,a,\n2023-01-04,a," + near + "\n", nil},
		{"two groups", "2023-01-02,a," + near + "\n2023-01-03,b,1\n2023-01-04,a," + near + "\n", nil},
		{"many rows", manyRows(20000, "500000000000000"), nil}, // 20,000 × 5e14 = 1e19
		{"within int64", "2023-01-02,a," + near + "\n2023-01-03,a,-" + near + "\n2023-01-04,a," + near + "\n",
			[][]string{{"a", "2023-01-01", near}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "mrr.csv", "day,status,amt\n"+tc.rows)
			e := newEngine(t, os.DirFS(dir))
			plan := mkPlan(t, domain.Year, "2023-01-01", "2024-01-01", mrrLeg(intCols, metric("total", sum("amt"))))
			if tc.want != nil {
				assert.Equal(t, tc.want, run(t, e, plan))
				return
			}
			_, err := e.Execute(context.Background(), plan)
			require.ErrorIs(t, err, domain.ErrIntegerOverflow)
			assert.Contains(t, err.Error(), "total")
		})
	}
}

// TestMaskedSumsWhereAPartOverflows: two sums of one integer column under
// different required filters, in one group, are summed in one pass per
// mask (both metrics' rows, one's only, the other's only); the rows both
// count sum past int64 while neither metric's running total does. The
// question is answered exactly, as one pass per metric would answer it,
// and a sum that does pass int64 is still refused.
func TestMaskedSumsWhereAPartOverflows(t *testing.T) {
	const near = "9000000000000000000"
	cols := []domain.ModelColumn{col("day", domain.TypeDate), col("status", domain.TypeText), col("amt", domain.TypeInteger)}
	rows := "2023-01-02,a," + near + "\n2023-01-03,x,-" + near + "\n2023-01-04,y,-" + near + "\n2023-01-05,a," + near + "\n"
	for i := range 12 {
		rows += fmt.Sprintf("2023-02-%02d,a,0\n", i+1)
	}
	notY := domain.RequiredFilter{Op: domain.NotEquals, Column: "status", Value: "y"}
	notX := domain.RequiredFilter{Op: domain.NotEquals, Column: "status", Value: "x"}
	leg := func(ms ...domain.MetricRef) domain.Leg {
		return domain.Leg{Base: tbl("mrr", "t0", cols...), TimeColumn: "day", Metrics: ms}
	}
	for _, fill := range []bool{false, true} {
		dir := t.TempDir()
		write(t, dir, "mrr.csv", "day,status,amt\n"+rows)
		e := newEngine(t, os.DirFS(dir))
		plan := mkPlan(t, domain.Year, "2023-01-01", "2024-01-01", leg(metric("x side", sum("amt"), notY), metric("y side", sum("amt"), notX)))
		if fill {
			run(t, e, plan) // cached from here on
		}
		assert.Equal(t, [][]string{{"2023-01-01", near, near}}, run(t, e, plan), "cached %t", fill)
		over := mkPlan(t, domain.Year, "2023-01-01", "2024-01-01", leg(metric("x side", sum("amt"), notY), metric("a only", sum("amt"), notX, notY)))
		_, err := e.Execute(context.Background(), over)
		require.ErrorIs(t, err, domain.ErrIntegerOverflow, "cached %t", fill)
		assert.Contains(t, err.Error(), "a only")
	}
}

// manyRows is n CSV rows of v over January 2023, in group a.
func manyRows(n int, v string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "2023-01-%02d,a,%s\n", 1+i%31, v)
	}
	return b.String()
}

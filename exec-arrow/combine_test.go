package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	engine "sutura.dev/exec-arrow"
)

// A federated plan built by hand: sales (base leg on source a) grouped by
// the crossing key store_id and the period, with partials p1 (sum of
// amount) and p2 (count of amount) and p3 (min of label); stores (lookup
// leg on source b) keyed by store_id, with its city.

func combinePlan(dims []domain.LegColumn, filters []domain.CombineFilter, metrics []domain.CombineMetric) *domain.Plan {
	base := domain.Leg{Source: "a", Base: domain.Table{Model: "sales", Path: []string{"sales"}, Alias: "t0",
		Columns: []domain.ModelColumn{{Name: "store_id", Type: domain.TypeInteger}, {Name: "amount", Type: domain.TypeInteger},
			{Name: "label", Type: domain.TypeText}, {Name: "sold_on", Type: domain.TypeDate}}},
		TimeColumn: "sold_on",
		Dimensions: []domain.DimensionRef{{Name: "k1", Column: domain.ColumnRef{Alias: "t0", Column: "store_id"}}},
		Metrics: []domain.MetricRef{
			{Name: "p1", Measure: domain.Measure{Simple: &domain.Term{Aggregate: domain.Sum, Column: "amount"}}},
			{Name: "p2", Measure: domain.Measure{Simple: &domain.Term{Aggregate: domain.Count, Column: "amount"}}},
			{Name: "p3", Measure: domain.Measure{Simple: &domain.Term{Aggregate: domain.Min, Column: "label"}}},
		}}
	lookup := domain.Leg{Source: "b", Kind: domain.LegLookup, Base: domain.Table{Model: "stores", Path: []string{"stores"}, Alias: "t0",
		Columns: []domain.ModelColumn{{Name: "store_id", Type: domain.TypeInteger}, {Name: "city", Type: domain.TypeText}}},
		Dimensions: []domain.DimensionRef{{Name: "k", Column: domain.ColumnRef{Alias: "t0", Column: "store_id"}},
			{Name: "d1", Column: domain.ColumnRef{Alias: "t0", Column: "city"}}}}
	p := &domain.Plan{Grain: domain.Month, Range: domain.Range{Start: domain.DateOf(2025, 1, 10), End: domain.DateOf(2025, 3, 1)},
		RowCap: domain.MaxRowCap, Legs: []domain.Leg{base, lookup},
		Combine: &domain.Combine{
			Links:      []domain.Link{{Relationship: "sale_store", Leg: 1, From: domain.LegColumn{Leg: 0, Column: 0}}},
			Dimensions: dims, Filters: filters, Metrics: metrics,
		}}
	for range dims {
		p.Columns = append(p.Columns, domain.Column{Name: "city", Role: domain.RoleDimension})
	}
	p.Columns = append(p.Columns, domain.Column{Name: "period", Role: domain.RolePeriod})
	for _, m := range metrics {
		p.Columns = append(p.Columns, domain.Column{Name: m.Name, Role: domain.RoleMetric})
	}
	return p
}

var (
	city    = domain.LegColumn{Leg: 1, Column: 1}
	revenue = domain.CombineMetric{Name: "revenue", Measure: domain.Measure{Simple: &domain.Term{Aggregate: domain.Sum, Column: "amount"}}, Partials: [][]int{{2}}}
	average = domain.CombineMetric{Name: "average", Measure: domain.Measure{Simple: &domain.Term{Aggregate: domain.Avg, Column: "amount"}}, Partials: [][]int{{2, 3}}}
	first   = domain.CombineMetric{Name: "first", Measure: domain.Measure{Simple: &domain.Term{Aggregate: domain.Min, Column: "label"}}, Partials: [][]int{{4}}}
)

func ratio(rule domain.ZeroDenominator) domain.CombineMetric {
	return domain.CombineMetric{Name: "per_item", Measure: domain.Measure{Ratio: &domain.Ratio{
		Numerator: domain.Term{Aggregate: domain.Sum, Column: "amount"}, Denominator: domain.Term{Aggregate: domain.Count, Column: "amount"},
		ZeroDenominator: rule}}, Partials: [][]int{{2}, {3}}}
}

func jan() domain.Cell { return domain.DateCell(domain.DateOf(2025, 1, 1)) }
func feb() domain.Cell { return domain.DateCell(domain.DateOf(2025, 2, 1)) }

// legRows are the base partials: per store and month, the sum, count and
// min label; store 9 is in no row of stores, one key is null.
func legRows(p *domain.Plan) []*domain.RowSet {
	i, t, n := domain.Int, domain.Text, domain.Null()
	base := &domain.RowSet{Columns: p.Legs[0].OutputColumns(), Rows: [][]domain.Cell{
		{i(1), jan(), i(10), i(2), t("b")},
		{i(1), feb(), i(5), i(1), t("a")},
		{i(2), jan(), i(7), i(1), t("c")},
		{n, jan(), i(3), i(1), t("z")},
		{i(9), feb(), n, i(0), n},
		{i(2), feb(), i(0), i(0), n},
	}}
	stores := &domain.RowSet{Columns: p.Legs[1].OutputColumns(), Rows: [][]domain.Cell{
		{i(1), t("Paris")}, {i(2), t("Lyon")}, {i(3), t("Nice")}, {i(4), n},
	}}
	return []*domain.RowSet{base, stores}
}

func render(rows [][]domain.Cell) [][]string {
	var out [][]string
	for _, r := range rows {
		var s []string
		for _, c := range r {
			s = append(s, c.Render())
		}
		out = append(out, s)
	}
	return out
}

func combiner(t *testing.T) *engine.Combiner {
	c, err := engine.NewCombiner(context.Background(), engine.CombinerConfig{Parallelism: 2})
	require.NoError(t, err)
	return c
}

func TestCombine(t *testing.T) {
	eq := func(op domain.Op, v ...string) []domain.CombineFilter {
		return []domain.CombineFilter{{Dimension: "city", Column: city, Op: op, Values: v}}
	}
	tests := []struct {
		name    string
		dims    []domain.LegColumn
		filters []domain.CombineFilter
		metrics []domain.CombineMetric
		top     *domain.Top
		want    [][]string
	}{
		{"an unmatched and a null key group as null, last", []domain.LegColumn{city}, nil, []domain.CombineMetric{revenue, average, first}, nil, [][]string{
			{"Lyon", "2025-01-01", "7", "7", "c"}, {"Lyon", "2025-02-01", "0", "null", "null"},
			{"Paris", "2025-01-01", "10", "5", "b"}, {"Paris", "2025-02-01", "5", "5", "a"},
			{"null", "2025-01-01", "3", "3", "z"}, {"null", "2025-02-01", "null", "null", "null"},
		}},
		{"partials re-aggregate by period", nil, nil, []domain.CombineMetric{revenue, average, first}, nil, [][]string{
			{"2025-01-01", "20", "5", "b"}, {"2025-02-01", "5", "5", "a"},
		}},
		{"eq drops unmatched and null keys", []domain.LegColumn{city}, eq(domain.OpEq, "Paris"), []domain.CombineMetric{revenue}, nil, [][]string{
			{"Paris", "2025-01-01", "10"}, {"Paris", "2025-02-01", "5"},
		}},
		{"in without grouping", nil, eq(domain.OpIn, "Paris", "Lyon"), []domain.CombineMetric{revenue}, nil, [][]string{
			{"2025-01-01", "17"}, {"2025-02-01", "5"},
		}},
		{"not_in keeps nulls", []domain.LegColumn{city}, eq(domain.OpNotIn, "Paris"), []domain.CombineMetric{revenue}, nil, [][]string{
			{"Lyon", "2025-01-01", "7"}, {"Lyon", "2025-02-01", "0"}, {"null", "2025-01-01", "3"}, {"null", "2025-02-01", "null"},
		}},
		{"a ratio yields null on a zero denominator", []domain.LegColumn{city}, eq(domain.OpEq, "Lyon"), []domain.CombineMetric{ratio(domain.YieldsNull)}, nil, [][]string{
			{"Lyon", "2025-01-01", "7"}, {"Lyon", "2025-02-01", "null"},
		}},
		{"top by metric, nulls last", []domain.LegColumn{city}, nil, []domain.CombineMetric{revenue}, &domain.Top{N: 3, By: domain.ByMetric, Direction: "asc"}, [][]string{
			{"Lyon", "2025-02-01", "0"}, {"null", "2025-01-01", "3"}, {"Paris", "2025-02-01", "5"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := combinePlan(tc.dims, tc.filters, tc.metrics)
			p.Top = tc.top
			rs, err := combiner(t).Combine(context.Background(), p, legRows(p))
			require.NoError(t, err)
			assert.Equal(t, p.Columns, rs.Columns)
			assert.Equal(t, tc.want, render(rs.Rows))
		})
	}
}

func TestCombineRefusals(t *testing.T) {
	p := combinePlan([]domain.LegColumn{city}, nil, []domain.CombineMetric{revenue})
	legs := legRows(p)
	legs[1].Rows = append(legs[1].Rows, []domain.Cell{domain.Int(2), domain.Text("Lille")})
	_, err := combiner(t).Combine(context.Background(), p, legs)
	var re *domain.RefusalError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, domain.FederatedAnswerNotWellFormed, re.Reason.Code(), "a lookup key held twice")

	p = combinePlan([]domain.LegColumn{city}, nil, []domain.CombineMetric{revenue})
	p.RowCap = 5
	_, err = combiner(t).Combine(context.Background(), p, legRows(p))
	require.ErrorAs(t, err, &re)
	assert.Equal(t, domain.ResultTooLarge, re.Reason.Code(), "six groups over a cap of five")

	p = combinePlan([]domain.LegColumn{city}, nil, []domain.CombineMetric{ratio(domain.Fails)})
	_, err = combiner(t).Combine(context.Background(), p, legRows(p))
	assert.ErrorIs(t, err, domain.ErrZeroDenominator)

	p = combinePlan([]domain.LegColumn{city}, nil, []domain.CombineMetric{revenue})
	legs = legRows(p)
	legs[0].Rows[2] = legs[0].Rows[2][:3]
	_, err = combiner(t).Combine(context.Background(), p, legs)
	require.Error(t, err, "rows that do not fit the plan")
	assert.False(t, errors.As(err, &re))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = combiner(t).Combine(ctx, p, legRows(p))
	assert.ErrorIs(t, err, context.Canceled)
}

// TestCombineTypesFromCells: a leg's column takes its type from its cells
// — integers and reals together are reals (a decimal sum), a timestamp's
// text is a timestamp where the model declares one — so the combine
// compares and renders as the engine does.
func TestCombineTypesFromCells(t *testing.T) {
	p := combinePlan(nil, nil, []domain.CombineMetric{revenue, first})
	p.Legs[0].Base.Columns[2].Type = domain.TypeTimestamp
	legs := legRows(p)
	legs[0].Rows[0][2] = domain.Float(0.5)
	// By their text, .5Z sorts before Z: as timestamps, it is later.
	for i, ts := range []string{"2025-01-01T00:00:00.5Z", "2025-01-04T00:00:00Z", "2025-01-01T00:00:00Z", "2025-01-03T00:00:00Z"} {
		legs[0].Rows[i][4] = domain.Text(ts)
	}
	rs, err := combiner(t).Combine(context.Background(), p, legs)
	require.NoError(t, err)
	assert.Equal(t, [][]string{
		{"2025-01-01", "10.5", "2025-01-01T00:00:00Z"}, {"2025-02-01", "5", "2025-01-04T00:00:00Z"},
	}, render(rs.Rows))
}

// Decimal partials (as PostgreSQL numeric, DuckDB DECIMAL or ClickHouse
// Decimal return them) are re-aggregated exactly: 0.1 + 0.2 is 0.3, a
// partial past 64 bits stays exact, and a whole decimal that came back as
// an integer cell joins them.
func TestCombineDecimalPartialsStayExact(t *testing.T) {
	p := combinePlan(nil, nil, []domain.CombineMetric{revenue, average})
	rows := legRows(p)
	dec := func(s string) domain.Cell {
		c, ok := domain.DecimalText(s)
		require.True(t, ok)
		return c
	}
	i, t2 := domain.Int, domain.Text
	rows[0].Rows = [][]domain.Cell{
		{i(1), jan(), dec("0.1"), i(1), t2("a")},
		{i(2), jan(), dec("0.2"), i(1), t2("b")},
		{i(1), feb(), dec("12345678901234567890.25"), i(2), t2("c")},
		{i(2), feb(), i(3), i(1), t2("d")},
	}
	rs, err := combiner(t).Combine(context.Background(), p, rows)
	require.NoError(t, err)
	assert.Equal(t, [][]string{
		{"2025-01-01", "0.3", "0.15"},
		{"2025-02-01", "12345678901234567893.25", "4115226300411522600"},
	}, render(rs.Rows))
	assert.Equal(t, domain.KindDecimal, rs.Rows[0][1].Kind())
}

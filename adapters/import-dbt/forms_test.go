package dbt

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/adapters/importread"
	"sutura.dev/domain"
)

// timeModel is a semantic model whose one time dimension has expr.
func timeModel(expr, grain string) string {
	return `
semantic_models:
  - name: sales
    node_relation: {schema_name: shop, alias: sales}
    defaults: {agg_time_dimension: sold_at}
    entities:
      - {name: sale, type: primary, expr: sale_id}
    dimensions:
      - name: sold_at
        type: time
        expr: "` + expr + `"
        type_params: {time_granularity: ` + grain + `}
    measures:
      - {name: amount, agg: sum}
      - {name: sale_count, agg: sum, expr: 1}
metrics:
  - {name: amount, type: simple, type_params: {measure: amount}}
`
}

// A time dimension whose expr only casts or truncates one column to a
// date or a day is that column at day granularity; any other expression
// is refused by name (docs/importing.md lists the forms).
func TestTimeDimensionCasts(t *testing.T) {
	for _, tc := range []struct {
		expr, grain, column string // column "" when refused
	}{
		{"sold_at", "day", "sold_at"},
		{"cast(sold_at as DATE)", "day", "sold_at"},
		{"CAST( sold_at AS date )", "day", "sold_at"},
		{`cast(\"sold_at\" as date)`, "day", "sold_at"},
		{"sold_at::date", "day", "sold_at"},
		{"sold_at :: DATE", "month", "sold_at"},
		{"date(sold_at)", "day", "sold_at"},
		{"DATE_TRUNC('day', sold_at)", "day", "sold_at"},
		{"date_trunc('month', sold_at)", "day", ""},
		{"cast(sold_at as timestamp)", "day", ""},
		{"cast(sold_at as date) + 1", "day", ""},
		{"sold_at::date::text", "day", ""},
		{"date(sold_at, 'utc')", "day", ""},
		{`cast(\"sold_at as date)`, "day", ""},
		{"cast(sold_at + 1 as date)", "day", ""},
		{"{{ dbt.cast('sold_at', 'date') }}", "day", ""},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			r, err := readProject(t, map[string]string{"m.yml": timeModel(tc.expr, tc.grain)})
			require.NoError(t, err)
			e := entriesOf(r, "metric")["amount"]
			if tc.column == "" {
				assert.Equal(t, importread.Refused, e.Status)
				assert.Contains(t, e.Reason, "its time dimension sold_at is refused: its expr is SQL, not a column")
				return
			}
			require.Equal(t, importread.Imported, e.Status, e.Reason)
			m := metricOf(t, r, "amount")
			assert.Equal(t, tc.column, m.TimeColumn)
			g, _ := domain.ParseGrain(tc.grain)
			assert.Equal(t, g, m.Grains[0], "the dimension's granularity is the finest grain")
		})
	}
}

// ratioProject is a model with two measures and a derived metric of expr
// over them; inputs are the derived metric's metrics list.
func ratioProject(expr, inputs string) string {
	return timeModel("sold_at", "day") + `  - {name: sales, type: simple, type_params: {measure: sale_count}}
  - {name: big_sales, type: simple, type_params: {measure: sale_count}, filter: "{{ Dimension('sale__sold_at') }} IS NOT NULL"}
  - name: per_sale
    type: derived
    type_params:
      expr: "` + expr + `"
      metrics: ` + inputs + `
`
}

// A derived metric that is exactly one input divided by another becomes a
// ratio: with nullif a zero denominator yields null, without it fails, as
// the division does in SQL. Everything else stays refused by name.
func TestDerivedRatios(t *testing.T) {
	const two = "[amount, sales]"
	for _, tc := range []struct {
		expr, inputs string
		zero         domain.ZeroDenominator // "" when refused
		reason       string
	}{
		{"amount / sales", two, domain.Fails, ""},
		{"amount/nullif(sales, 0)", two, domain.YieldsNull, ""},
		{"amount / NULLIF( sales , 0 )", two, domain.YieldsNull, ""},
		{"amount * 1.0 / sales", two, domain.Fails, ""},
		{"(amount * 1.0) / nullif(sales, 0)", two, domain.YieldsNull, ""},
		{"1.0 * amount / sales", two, domain.Fails, ""},
		{"a / s", "[{name: amount, alias: a}, {name: sales, alias: s}]", domain.Fails, ""},
		{"amount / sales * 100", two, "", "only one input divided by another"},
		{"amount + sales", two, "", "only one input divided by another"},
		{"amount / nullif(sales, 1)", two, "", "only one input divided by another"},
		{"amount / (sales)", two, "", "only one input divided by another"},
		{"amount / other", two, "", "which is not one of its input metrics"},
		{"amount / big_sales", "[amount, big_sales]", "", "its input big_sales has its own filter"},
		{"amount / sales", "[amount, {name: sales, filter: \"{{ Dimension('sale__sold_at') }} IS NOT NULL\"}]", "", "its input sales has its own filter"},
		{"amount / prev", "[amount, {name: sales, alias: prev, offset_window: 1 month}]", "", "an offset (offset_window)"},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			r, err := readProject(t, map[string]string{"m.yml": ratioProject(tc.expr, tc.inputs)})
			require.NoError(t, err)
			e := entriesOf(r, "metric")["per_sale"]
			if tc.zero == "" {
				assert.Equal(t, importread.Refused, e.Status)
				assert.Contains(t, e.Reason, tc.reason)
				return
			}
			require.Equal(t, importread.Imported, e.Status, e.Reason)
			ratio := metricOf(t, r, "per_sale").Measure.Ratio
			require.NotNil(t, ratio)
			assert.Equal(t, domain.Ratio{Numerator: domain.Term{Aggregate: domain.Sum, Column: "amount"},
				Denominator: domain.Term{Aggregate: domain.Count, Column: "sale_id"}, ZeroDenominator: tc.zero}, *ratio)
		})
	}
}

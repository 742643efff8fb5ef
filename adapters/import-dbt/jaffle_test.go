package dbt

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/adapters/importread"
)

// The shapes of dbt's own semantic-layer template (dbt-labs/jaffle-sl-template)
// and of dbt-labs/jaffle-shop, written out here (testdata/SOURCE.md says
// why): every metric that is not cumulative, a median or percentile,
// fill_nulls_with, or built on one of those imports, unless it needs a
// filter or an expression outside the vocabulary; each other metric is
// refused by name.
func TestJaffleProjects(t *testing.T) {
	for _, tc := range []struct {
		dir      string
		imported []string
		refused  map[string]string
	}{
		{
			dir:      "testdata/jaffle-sl-shapes",
			imported: []string{"average_revenue", "customers_with_orders", "food_orders", "order_cost", "order_total", "orders"},
			refused: map[string]string{
				"new_customer":                   "only filters on the metric's own model are imported",
				"large_order":                    "is not one of the forms sutura imports",
				"food_revenue":                   "its expr is SQL, not a column",
				"revenue":                        "fill_nulls_with",
				"median_revenue":                 "percentile is not in the catalogue's vocabulary",
				"food_revenue_pct":               "its input food_revenue is refused",
				"revenue_growth_mom":             "offset",
				"order_gross_profit":             "only one input divided by another",
				"cumulative_revenue":             "a cumulative metric",
				"orders_fill_nulls_with_zero":    "fill_nulls_with",
				"twice_orders_fill_nulls_with_0": "only one input divided by another",
				"orders_last_7_days":             "a cumulative metric",
			},
		},
		{
			dir: "testdata/jaffle-shop-shapes",
			imported: []string{"average_order_value", "count_lifetime_orders", "drink_orders", "food_orders", "lifetime_spend_pretax",
				"order_cost", "order_total", "orders", "revenue"},
			refused: map[string]string{
				"new_customer_orders": "is not one of the forms sutura imports",
				"large_orders":        "is not one of the forms sutura imports",
				"median_revenue":      "median is not in the catalogue's vocabulary",
				"food_revenue":        "its expr is SQL, not a column",
				"drink_revenue":       "its expr is SQL, not a column",
				"food_revenue_pct":    "its input food_revenue is refused",
				"drink_revenue_pct":   "its input drink_revenue is refused",
				"revenue_growth_mom":  "offset",
				"order_gross_profit":  "only one input divided by another",
				"cumulative_revenue":  "a cumulative metric",
			},
		},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			r, err := Read(readDir(t, tc.dir))
			require.NoError(t, err)
			var imported []string
			for _, m := range r.Definitions.Metrics {
				imported = append(imported, m.Name)
			}
			slices.Sort(imported)
			assert.Equal(t, tc.imported, imported)
			metrics := entriesOf(r, "metric")
			assert.Len(t, metrics, len(tc.imported)+len(tc.refused), "every metric has one entry")
			for name, reason := range tc.refused {
				e := metrics[name]
				assert.Equal(t, importread.Refused, e.Status, name)
				assert.Contains(t, e.Reason, reason, name)
			}
		})
	}
}

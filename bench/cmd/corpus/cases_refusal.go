package main

import q "sutura.dev/bench/question"

// year2025 is the range most refusal cases use; everything but the one
// broken rule is valid, so each case provokes exactly its code.
var year2025 = q.Range{Start: "2025-01-01", End: "2026-01-01"}

// refusalCases provoke each refusal code sutura decides before asking the
// data system, plus result_too_large on an answer DuckDB shows to be over
// the row cap.
func refusalCases() []corpusCase {
	return []corpusCase{
		{
			name: "metric-unknown", covers: "`metric_unknown`: no such metric",
			q:       q.Question{Metrics: []string{"profit"}, Grain: "month", Range: year2025},
			refusal: "metric_unknown",
		},
		{
			name: "restricted-refused-for-anonymous", covers: "`metric_unknown`: a restricted metric asked by the anonymous principal is indistinguishable from a missing one",
			principal: "anonymous",
			q:         q.Question{Metrics: []string{"discounts_given"}, Grain: "year", Range: year2025},
			refusal:   "metric_unknown",
		},
		{
			name: "restricted-in-multi-refused-for-anonymous", covers: "`metric_unknown`: an open and a restricted metric together, asked by the anonymous principal",
			principal: "anonymous",
			q:         q.Question{Metrics: []string{"net_sales", "collected_payments"}, Grain: "month", Range: year2025},
			refusal:   "metric_unknown",
		},
		{
			name: "too-many-metrics", covers: "`too_many_metrics`: nine known metrics on one model and time column",
			q: q.Question{Metrics: []string{"net_sales", "gross_sales", "discounts_given", "collected_payments", "order_count",
				"units_sold", "active_customers", "average_order_value", "largest_order_value"}, Grain: "month", Range: year2025},
			refusal: "too_many_metrics",
		},
		{
			name: "duplicate-metric-name", covers: "`duplicate_metric_name`: a metric asked twice",
			q:       q.Question{Metrics: []string{"net_sales", "order_count", "net_sales"}, Grain: "month", Range: year2025},
			refusal: "duplicate_metric_name",
		},
		{
			name: "metrics-on-different-models", covers: "`metrics_span_different_models`: metrics on orders and customers",
			q:       q.Question{Metrics: []string{"net_sales", "new_customers"}, Grain: "month", Range: year2025},
			refusal: "metrics_span_different_models",
		},
		{
			name: "metrics-on-different-time-columns", covers: "`metrics_span_different_models`: one model, time columns order_date and shipped_date",
			q:       q.Question{Metrics: []string{"order_count", "dispatched_orders"}, Grain: "month", Range: year2025},
			refusal: "metrics_span_different_models",
		},
		{
			name: "grain-not-supported-year", covers: "`grain_not_supported`: `active_customers` declares day…quarter, asked by year",
			q:       q.Question{Metrics: []string{"active_customers"}, Grain: "year", Range: year2025},
			refusal: "grain_not_supported",
		},
		{
			name: "grain-not-supported-day", covers: "`grain_not_supported`: `new_customers` declares week…year, asked by day",
			q:       q.Question{Metrics: []string{"new_customers"}, Grain: "day", Range: q.Range{Start: "2025-01-01", End: "2025-01-08"}},
			refusal: "grain_not_supported",
		},
		{
			name: "grain-not-supported-in-multi", covers: "`grain_not_supported`: quarter is declared by `net_sales` but not by `slowest_dispatch_days`",
			q:       q.Question{Metrics: []string{"net_sales", "slowest_dispatch_days"}, Grain: "quarter", Range: year2025},
			refusal: "grain_not_supported",
		},
		{
			name: "time-range-too-long", covers: "`time_range_too_long`: 3654 days, one more than allowed",
			q:       q.Question{Metrics: []string{"order_count"}, Grain: "year", Range: q.Range{Start: "2020-01-01", End: "2030-01-02"}},
			refusal: "time_range_too_long",
		},
		{
			name: "too-many-dimensions", covers: "`too_many_dimensions`: five declared dimensions",
			q: q.Question{Metrics: []string{"net_sales"}, Grain: "year", Range: year2025,
				Dimensions: []string{"area", "channel", "product_category", "product", "customer_segment"}},
			refusal: "too_many_dimensions",
		},
		{
			name: "too-many-filters", covers: "`too_many_filters`: seventeen filters (counted before repeats are looked at)",
			q: q.Question{Metrics: []string{"net_sales"}, Grain: "year", Range: year2025, Filters: []q.Filter{
				q.Eq("area", "East"), q.Eq("area", "North"), q.Eq("area", "South"), q.Eq("area", "West"),
				q.Eq("channel", "online"), q.Eq("channel", "store"),
				q.Eq("product_category", "Garden"), q.Eq("product_category", "Kitchen"), q.Eq("product_category", "Lighting"),
				q.Eq("product_category", "Tableware"), q.Eq("product_category", "Textiles"),
				q.In("area", "East", "West"), q.In("channel", "online"), q.In("product_category", "Garden"),
				q.NotIn("area", "North"), q.NotIn("channel", "store"), q.NotIn("product_category", "Kitchen"),
			}},
			refusal: "too_many_filters",
		},
		{
			name: "duplicate-dimension-grouped", covers: "`duplicate_dimension`: a dimension grouped twice",
			q: q.Question{Metrics: []string{"net_sales"}, Grain: "year", Range: year2025,
				Dimensions: []string{"area", "channel", "area"}},
			refusal: "duplicate_dimension",
		},
		{
			name: "duplicate-dimension-filtered", covers: "`duplicate_dimension`: a dimension filtered twice",
			q: q.Question{Metrics: []string{"net_sales"}, Grain: "year", Range: year2025,
				Filters: []q.Filter{q.Eq("channel", "online"), q.In("channel", "store")}},
			refusal: "duplicate_dimension",
		},
		{
			name: "dimension-not-permitted", covers: "`dimension_not_permitted`: `payment_method` exists on other metrics but not on `net_sales`",
			q: q.Question{Metrics: []string{"net_sales"}, Grain: "year", Range: year2025,
				Dimensions: []string{"payment_method"}},
			refusal: "dimension_not_permitted",
		},
		{
			name: "dimension-not-permitted-unknown-name", covers: "`dimension_not_permitted`: a dimension no metric declares (`region`, a glossary synonym)",
			q: q.Question{Metrics: []string{"net_sales"}, Grain: "year", Range: year2025,
				Dimensions: []string{"region"}},
			refusal: "dimension_not_permitted",
		},
		{
			name: "dimension-not-permitted-in-multi", covers: "`dimension_not_permitted`: `product` is declared by `net_sales` but not by `order_count`",
			q: q.Question{Metrics: []string{"net_sales", "order_count"}, Grain: "year", Range: year2025,
				Dimensions: []string{"product"}},
			refusal: "dimension_not_permitted",
		},
		{
			name: "dimension-not-permitted-filter", covers: "`dimension_not_permitted`: a filter on a dimension `collected_per_paid_order` does not declare",
			q: q.Question{Metrics: []string{"collected_per_paid_order"}, Grain: "year", Range: year2025,
				Filters: []q.Filter{q.Eq("product_category", "Garden")}},
			refusal: "dimension_not_permitted",
		},
		{
			name: "dimension-not-filterable", covers: "`dimension_not_filterable`: `product` is group-by only",
			q: q.Question{Metrics: []string{"net_sales"}, Grain: "year", Range: year2025,
				Filters: []q.Filter{q.Eq("product", "Cedar Planter Box")}},
			refusal: "dimension_not_filterable",
		},
		{
			name: "dimension-not-filterable-segment-on-orders", covers: "`dimension_not_filterable`: `customer_segment` is filterable on `new_customers` but group-by only on `order_count`",
			q: q.Question{Metrics: []string{"order_count"}, Grain: "year", Range: year2025,
				Filters: []q.Filter{q.In("customer_segment", "trade")}},
			refusal: "dimension_not_filterable",
		},
		{
			name: "dimension-value-not-allowed", covers: "`dimension_value_not_allowed`: a well-formed value outside the `area` allowlist",
			q: q.Question{Metrics: []string{"net_sales"}, Grain: "year", Range: year2025,
				Filters: []q.Filter{q.Eq("area", "Central")}},
			refusal: "dimension_value_not_allowed",
		},
		{
			name: "dimension-value-case-differs", covers: "`dimension_value_not_allowed`: allowlist comparison is exact, so `east` in a not_in list is refused",
			q: q.Question{Metrics: []string{"net_sales"}, Grain: "year", Range: year2025,
				Filters: []q.Filter{q.NotIn("area", "West", "east")}},
			refusal: "dimension_value_not_allowed",
		},
		{
			name: "multi-metric-top", covers: "`multi_metric_top_not_executable`: top with two metrics",
			q: q.Question{Metrics: []string{"net_sales", "order_count"}, Grain: "month", Range: year2025,
				Top: &q.Top{N: 5, By: "metric", Direction: "desc"}},
			refusal: "multi_metric_top_not_executable",
		},
		{
			name: "top-n-over-row-cap", covers: "`result_too_large`: top.n 10001 exceeds the row cap, refused before execution",
			q: q.Question{Metrics: []string{"net_sales"}, Grain: "day", Range: year2025,
				Top: &q.Top{N: 10001, By: "metric", Direction: "desc"}},
			refusal: "result_too_large",
		},
		{
			name: "result-too-large", covers: "`result_too_large`: day grain × four dimensions over 3653 days; DuckDB's answer has more than 10 000 rows",
			q: q.Question{Metrics: []string{"gross_sales"}, Grain: "day", Range: q.Range{Start: "2020-01-01", End: "2030-01-01"},
				Dimensions: []string{"area", "channel", "product", "customer_segment"}},
			refusal: "result_too_large",
			sql: `SELECT area, channel, product, customer_segment, order_date AS period, sum(gross_amount_cents) AS gross_sales
FROM ox
WHERE order_date >= DATE '2020-01-01' AND order_date < DATE '2030-01-01' AND status <> 'cancelled'
GROUP BY ALL
ORDER BY area ASC NULLS LAST, channel ASC NULLS LAST, product ASC NULLS LAST, customer_segment ASC NULLS LAST, period`,
			wantTooLarge: true,
		},
	}
}

// allCases is the corpus in file order.
func allCases() []corpusCase {
	return append(append(singleMetricCases(), shapeCases()...), refusalCases()...)
}

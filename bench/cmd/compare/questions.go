package main

import (
	"sutura.dev/bench/engine"
	q "sutura.dev/bench/question"
)

// benchCases are the measured questions. The reference SQL is what a good
// compiler would send DuckDB: required filters per metric, half-open range,
// LEFT JOINs for dimensions reached through relationships, order by every
// key ascending with nulls last. The multi-metric case scans once and uses
// FILTER clauses, with a null cell where a metric has no rows.
var benchCases = []engine.Case{
	{
		Name:     "month-two-years",
		Question: q.Question{Metrics: []string{"net_sales"}, Grain: "month", Range: q.Range{Start: "2024-01-01", End: "2026-01-01"}},
		ReferenceSQL: `SELECT date_trunc('month', order_date)::DATE AS period, sum(net_amount_cents) AS net_sales
FROM orders
WHERE order_date >= DATE '2024-01-01' AND order_date < DATE '2026-01-01' AND status <> 'cancelled' AND is_paid = true
GROUP BY period ORDER BY period`,
	},
	{
		Name: "two-dims-via-joins",
		Question: q.Question{Metrics: []string{"gross_sales"}, Grain: "quarter", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
			Dimensions: []string{"area", "product_category"}},
		ReferenceSQL: `SELECT r.region_name AS area, p.category AS product_category,
       date_trunc('quarter', o.order_date)::DATE AS period, sum(o.gross_amount_cents) AS gross_sales
FROM orders o
LEFT JOIN customers c ON c.customer_id = o.customer_id
LEFT JOIN regions r ON r.region_id = c.region_id
LEFT JOIN products p ON p.product_id = o.product_id
WHERE o.order_date >= DATE '2025-01-01' AND o.order_date < DATE '2026-01-01' AND o.status <> 'cancelled'
GROUP BY ALL ORDER BY area ASC NULLS LAST, product_category ASC NULLS LAST, period`,
	},
	{
		Name: "area-channel-quarter",
		Question: q.Question{Metrics: []string{"gross_sales"}, Grain: "quarter", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
			Dimensions: []string{"area", "channel"}},
		ReferenceSQL: `SELECT r.region_name AS area, o.channel AS channel,
       date_trunc('quarter', o.order_date)::DATE AS period, sum(o.gross_amount_cents) AS gross_sales
FROM orders o
LEFT JOIN customers c ON c.customer_id = o.customer_id
LEFT JOIN regions r ON r.region_id = c.region_id
WHERE o.order_date >= DATE '2025-01-01' AND o.order_date < DATE '2026-01-01' AND o.status <> 'cancelled'
GROUP BY ALL ORDER BY area ASC NULLS LAST, channel ASC NULLS LAST, period`,
	},
	{
		Name: "count-distinct",
		Question: q.Question{Metrics: []string{"active_customers"}, Grain: "month", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
			Dimensions: []string{"channel"}},
		ReferenceSQL: `SELECT channel, date_trunc('month', order_date)::DATE AS period, count(DISTINCT customer_id) AS active_customers
FROM orders
WHERE order_date >= DATE '2025-01-01' AND order_date < DATE '2026-01-01' AND is_paid = true
GROUP BY ALL ORDER BY channel ASC NULLS LAST, period`,
	},
	{
		Name: "ratio-by-area",
		Question: q.Question{Metrics: []string{"return_rate"}, Grain: "month", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
			Dimensions: []string{"area"}},
		ReferenceSQL: `SELECT r.region_name AS area, date_trunc('month', o.order_date)::DATE AS period,
       CAST(count_if(o.is_returned) AS DOUBLE) / NULLIF(CAST(count_if(o.is_paid) AS DOUBLE), 0) AS return_rate
FROM orders o
LEFT JOIN customers c ON c.customer_id = o.customer_id
LEFT JOIN regions r ON r.region_id = c.region_id
WHERE o.order_date >= DATE '2025-01-01' AND o.order_date < DATE '2026-01-01' AND o.status = 'completed'
GROUP BY ALL ORDER BY area ASC NULLS LAST, period`,
	},
	{
		Name: "ratio-by-channel",
		Question: q.Question{Metrics: []string{"return_rate"}, Grain: "month", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
			Dimensions: []string{"channel"}},
		ReferenceSQL: `SELECT channel, date_trunc('month', order_date)::DATE AS period,
       CAST(count_if(is_returned) AS DOUBLE) / NULLIF(CAST(count_if(is_paid) AS DOUBLE), 0) AS return_rate
FROM orders
WHERE order_date >= DATE '2025-01-01' AND order_date < DATE '2026-01-01' AND status = 'completed'
GROUP BY ALL ORDER BY channel ASC NULLS LAST, period`,
	},
	{
		Name:     "day-grain-year",
		Question: q.Question{Metrics: []string{"order_count"}, Grain: "day", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"}},
		ReferenceSQL: `SELECT order_date AS period, count(order_id) AS order_count
FROM orders
WHERE order_date >= DATE '2025-01-01' AND order_date < DATE '2026-01-01' AND status <> 'cancelled'
GROUP BY period ORDER BY period`,
	},
	{
		Name: "multi-metric-week",
		Question: q.Question{Metrics: []string{"net_sales", "order_count", "average_order_value"}, Grain: "week",
			Range: q.Range{Start: "2025-06-30", End: "2026-06-29"}, Dimensions: []string{"channel"}},
		ReferenceSQL: `SELECT channel, date_trunc('week', order_date)::DATE AS period,
       sum(net_amount_cents) FILTER (WHERE status <> 'cancelled' AND is_paid = true) AS net_sales,
       CASE WHEN count(*) FILTER (WHERE status <> 'cancelled') > 0
            THEN count(order_id) FILTER (WHERE status <> 'cancelled') END AS order_count,
       CAST(sum(net_amount_cents) FILTER (WHERE is_paid = true) AS DOUBLE)
         / CAST(count(net_amount_cents) FILTER (WHERE is_paid = true) AS DOUBLE) AS average_order_value
FROM orders
WHERE order_date >= DATE '2025-06-30' AND order_date < DATE '2026-06-29'
  AND ((status <> 'cancelled' AND is_paid = true) OR status <> 'cancelled' OR is_paid = true)
GROUP BY ALL ORDER BY channel ASC NULLS LAST, period`,
	},
	{
		Name: "category-channel-quarter",
		Question: q.Question{Metrics: []string{"gross_sales", "order_count"}, Grain: "quarter", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
			Dimensions: []string{"product_category", "channel"}},
		ReferenceSQL: `SELECT p.category AS product_category, o.channel AS channel,
       date_trunc('quarter', o.order_date)::DATE AS period, sum(o.gross_amount_cents) AS gross_sales, count(o.order_id) AS order_count
FROM orders o
LEFT JOIN products p ON p.product_id = o.product_id
WHERE o.order_date >= DATE '2025-01-01' AND o.order_date < DATE '2026-01-01' AND o.status <> 'cancelled'
GROUP BY ALL ORDER BY product_category ASC NULLS LAST, channel ASC NULLS LAST, period`,
	},
	{
		Name: "top-products",
		Question: q.Question{Metrics: []string{"units_sold"}, Grain: "year", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
			Dimensions: []string{"product"}, Top: &q.Top{N: 5, By: "metric", Direction: "desc"}},
		ReferenceSQL: `SELECT p.product_name AS product, date_trunc('year', o.order_date)::DATE AS period, sum(o.quantity) AS units_sold
FROM orders o LEFT JOIN products p ON p.product_id = o.product_id
WHERE o.order_date >= DATE '2025-01-01' AND o.order_date < DATE '2026-01-01' AND o.status = 'completed'
GROUP BY ALL ORDER BY units_sold DESC NULLS LAST, product ASC NULLS LAST, period LIMIT 5`,
	},
}

// cases are the questions of the run's data set: benchCases, or
// web.Cases with -shape web.
var cases = benchCases

package main

import q "sutura.dev/bench/question"

// Single-metric answers: every measure shape, every grain, the join
// chains, null dimension values and the time columns. Each SQL applies the
// metric's required filters, the half-open range on its time column, and
// orders by every key ascending with nulls last.
func singleMetricCases() []corpusCase {
	return []corpusCase{
		{
			name:   "sum-by-month",
			covers: "sum (`net_sales`, two required filters) at month grain over 2025",
			q:      q.Question{Metrics: []string{"net_sales"}, Grain: "month", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"}},
			sql: `SELECT date_trunc('month', order_date)::DATE AS period, sum(net_amount_cents) AS net_sales
FROM orders
WHERE order_date >= DATE '2025-01-01' AND order_date < DATE '2026-01-01'
  AND status <> 'cancelled' AND is_paid = true
GROUP BY period ORDER BY period`,
		},
		{
			name:   "sum-by-area-two-hop",
			covers: "`area` through the two-hop chain orders → customers → regions, LEFT JOINs giving a null area group (customers without address)",
			q: q.Question{Metrics: []string{"net_sales"}, Grain: "month", Range: q.Range{Start: "2026-01-01", End: "2026-04-01"},
				Dimensions: []string{"area"}},
			sql: `SELECT r.region_name AS area, date_trunc('month', o.order_date)::DATE AS period, sum(o.net_amount_cents) AS net_sales
FROM orders o
LEFT JOIN customers c ON c.customer_id = o.customer_id
LEFT JOIN regions r ON r.region_id = c.region_id
WHERE o.order_date >= DATE '2026-01-01' AND o.order_date < DATE '2026-04-01'
  AND o.status <> 'cancelled' AND o.is_paid = true
GROUP BY area, period ORDER BY area ASC NULLS LAST, period`,
			wantNullIn: []string{"area"},
		},
		{
			name:   "count-by-payment-method-null-group",
			covers: "count (`order_count`) by a group-by-only dimension on the model itself whose null group comes from null column values",
			q: q.Question{Metrics: []string{"order_count"}, Grain: "quarter", Range: q.Range{Start: "2024-10-01", End: "2025-10-01"},
				Dimensions: []string{"payment_method"}},
			sql: `SELECT payment_method, date_trunc('quarter', order_date)::DATE AS period, count(order_id) AS order_count
FROM orders
WHERE order_date >= DATE '2024-10-01' AND order_date < DATE '2025-10-01' AND status <> 'cancelled'
GROUP BY ALL ORDER BY payment_method ASC NULLS LAST, period`,
			wantNullIn: []string{"payment_method"},
		},
		{
			name:   "count-distinct-by-channel",
			covers: "count_distinct (`active_customers`) by `channel` at quarter grain",
			q: q.Question{Metrics: []string{"active_customers"}, Grain: "quarter", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
				Dimensions: []string{"channel"}},
			sql: `SELECT channel, date_trunc('quarter', order_date)::DATE AS period, count(DISTINCT customer_id) AS active_customers
FROM orders
WHERE order_date >= DATE '2025-01-01' AND order_date < DATE '2026-01-01' AND is_paid = true
GROUP BY ALL ORDER BY channel, period`,
		},
		{
			name:   "count-distinct-by-segment",
			covers: "count_distinct by `customer_segment`, a group-by-only dimension one hop away (order_customer)",
			q: q.Question{Metrics: []string{"active_customers"}, Grain: "month", Range: q.Range{Start: "2025-01-01", End: "2025-04-01"},
				Dimensions: []string{"customer_segment"}},
			sql: `SELECT c.segment AS customer_segment, date_trunc('month', o.order_date)::DATE AS period, count(DISTINCT o.customer_id) AS active_customers
FROM orders o LEFT JOIN customers c ON c.customer_id = o.customer_id
WHERE o.order_date >= DATE '2025-01-01' AND o.order_date < DATE '2025-04-01' AND o.is_paid = true
GROUP BY ALL ORDER BY customer_segment ASC NULLS LAST, period`,
		},
		{
			name:   "avg-by-category",
			covers: "avg (`average_order_value`, a real: sum as double / count) by `product_category` at year grain",
			q: q.Question{Metrics: []string{"average_order_value"}, Grain: "year", Range: q.Range{Start: "2024-01-01", End: "2026-07-01"},
				Dimensions: []string{"product_category"}},
			sql: `SELECT product_category, date_trunc('year', order_date)::DATE AS period,
       CAST(sum(net_amount_cents) AS DOUBLE) / CAST(count(net_amount_cents) AS DOUBLE) AS average_order_value
FROM ox
WHERE order_date >= DATE '2024-01-01' AND order_date < DATE '2026-07-01' AND is_paid = true
GROUP BY ALL ORDER BY product_category ASC NULLS LAST, period`,
		},
		{
			name:   "min-by-month",
			covers: "min (`smallest_order_value`) at month grain",
			q:      q.Question{Metrics: []string{"smallest_order_value"}, Grain: "month", Range: q.Range{Start: "2025-07-01", End: "2026-01-01"}},
			sql: `SELECT date_trunc('month', order_date)::DATE AS period, min(net_amount_cents) AS smallest_order_value
FROM orders
WHERE order_date >= DATE '2025-07-01' AND order_date < DATE '2026-01-01' AND is_paid = true
GROUP BY period ORDER BY period`,
		},
		{
			name:   "max-by-area-year",
			covers: "max (`largest_order_value`) by `area` at year grain, null area group included",
			q: q.Question{Metrics: []string{"largest_order_value"}, Grain: "year", Range: q.Range{Start: "2024-01-01", End: "2026-01-01"},
				Dimensions: []string{"area"}},
			sql: `SELECT area, date_trunc('year', order_date)::DATE AS period, max(net_amount_cents) AS largest_order_value
FROM ox
WHERE order_date >= DATE '2024-01-01' AND order_date < DATE '2026-01-01' AND is_paid = true
GROUP BY ALL ORDER BY area ASC NULLS LAST, period`,
			wantNullIn: []string{"area"},
		},
		{
			name:   "count-if-by-product",
			covers: "count_if (`returned_orders`, required filter equals) by `product`, a group-by-only dimension; text in byte order",
			q: q.Question{Metrics: []string{"returned_orders"}, Grain: "year", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
				Dimensions: []string{"product"}},
			sql: `SELECT p.product_name AS product, date_trunc('year', o.order_date)::DATE AS period, count_if(o.is_returned) AS returned_orders
FROM orders o LEFT JOIN products p ON p.product_id = o.product_id
WHERE o.order_date >= DATE '2025-01-01' AND o.order_date < DATE '2026-01-01' AND o.status = 'completed'
GROUP BY ALL ORDER BY product ASC NULLS LAST, period`,
		},
		{
			name:   "ratio-yields-null-outage-2024",
			covers: "ratio yields_null (`return_rate`) at day grain: 2024-11-29 has rows but no paid order, so its cell is null",
			q:      q.Question{Metrics: []string{"return_rate"}, Grain: "day", Range: q.Range{Start: "2024-11-25", End: "2024-12-02"}},
			sql: `SELECT order_date AS period,
       CAST(count_if(is_returned) AS DOUBLE) / NULLIF(CAST(count_if(is_paid) AS DOUBLE), 0) AS return_rate
FROM orders
WHERE order_date >= DATE '2024-11-25' AND order_date < DATE '2024-12-02' AND status = 'completed'
GROUP BY period ORDER BY period`,
			wantNullIn: []string{"return_rate"},
		},
		{
			name:   "ratio-yields-null-outage-2025-by-channel",
			covers: "ratio yields_null by `channel` at day grain around the 2025-08-12 outage (null in both channels)",
			q: q.Question{Metrics: []string{"return_rate"}, Grain: "day", Range: q.Range{Start: "2025-08-10", End: "2025-08-15"},
				Dimensions: []string{"channel"}},
			sql: `SELECT channel, order_date AS period,
       CAST(count_if(is_returned) AS DOUBLE) / NULLIF(CAST(count_if(is_paid) AS DOUBLE), 0) AS return_rate
FROM orders
WHERE order_date >= DATE '2025-08-10' AND order_date < DATE '2025-08-15' AND status = 'completed'
GROUP BY ALL ORDER BY channel, period`,
			wantNullIn: []string{"return_rate"},
		},
		{
			name:   "ratio-fails-week-safe",
			covers: "ratio fails (`collected_per_paid_order`) at week grain over the 2024-11-29 outage: every week has paid orders, so it answers",
			q:      q.Question{Metrics: []string{"collected_per_paid_order"}, Grain: "week", Range: q.Range{Start: "2024-11-18", End: "2024-12-09"}},
			sql: `SELECT date_trunc('week', order_date)::DATE AS period,
       CAST(sum(collected_cents) AS DOUBLE) / CAST(count_if(is_paid) AS DOUBLE) AS collected_per_paid_order
FROM orders
WHERE order_date >= DATE '2024-11-18' AND order_date < DATE '2024-12-09' AND status <> 'cancelled'
GROUP BY period ORDER BY period`,
			failsSQL: `SELECT count(*) FROM (
  SELECT date_trunc('week', order_date) AS period, count_if(is_paid) AS d FROM orders
  WHERE order_date >= DATE '2024-11-18' AND order_date < DATE '2024-12-09' AND status <> 'cancelled'
  GROUP BY period) WHERE d = 0`,
		},
		{
			name:   "ratio-fails-zero-denominator-day",
			covers: "ratio fails at day grain over 2024-11-29: a group with a zero denominator, so the question errors (`zero_denominator`) rather than answers",
			q:      q.Question{Metrics: []string{"collected_per_paid_order"}, Grain: "day", Range: q.Range{Start: "2024-11-27", End: "2024-12-01"}},
			sql: `SELECT order_date AS period,
       CAST(sum(collected_cents) AS DOUBLE) / NULLIF(CAST(count_if(is_paid) AS DOUBLE), 0) AS collected_per_paid_order
FROM orders
WHERE order_date >= DATE '2024-11-27' AND order_date < DATE '2024-12-01' AND status <> 'cancelled'
GROUP BY period ORDER BY period`,
			failsSQL: `SELECT count(*) FROM (
  SELECT order_date, count_if(is_paid) AS d FROM orders
  WHERE order_date >= DATE '2024-11-27' AND order_date < DATE '2024-12-01' AND status <> 'cancelled'
  GROUP BY order_date) WHERE d = 0`,
			wantZeroDen: true,
		},
		{
			name:   "ratio-fails-by-area-month",
			covers: "ratio fails by `area` (null group included) at month grain where no group has a zero denominator",
			q: q.Question{Metrics: []string{"collected_per_paid_order"}, Grain: "month", Range: q.Range{Start: "2025-07-01", End: "2025-10-01"},
				Dimensions: []string{"area"}},
			sql: `SELECT area, date_trunc('month', order_date)::DATE AS period,
       CAST(sum(collected_cents) AS DOUBLE) / NULLIF(CAST(count_if(is_paid) AS DOUBLE), 0) AS collected_per_paid_order
FROM ox
WHERE order_date >= DATE '2025-07-01' AND order_date < DATE '2025-10-01' AND status <> 'cancelled'
GROUP BY ALL ORDER BY area ASC NULLS LAST, period`,
			failsSQL: `SELECT count(*) FROM (
  SELECT area, date_trunc('month', order_date) AS period, count_if(is_paid) AS d FROM ox
  WHERE order_date >= DATE '2025-07-01' AND order_date < DATE '2025-10-01' AND status <> 'cancelled'
  GROUP BY ALL) WHERE d = 0`,
		},
		{
			name:   "week-across-year-boundary",
			covers: "week grain (Monday start) with the week of 2025-12-29 spanning into 2026",
			q:      q.Question{Metrics: []string{"net_sales"}, Grain: "week", Range: q.Range{Start: "2025-12-29", End: "2026-01-12"}},
			sql: `SELECT date_trunc('week', order_date)::DATE AS period, sum(net_amount_cents) AS net_sales
FROM orders
WHERE order_date >= DATE '2025-12-29' AND order_date < DATE '2026-01-12'
  AND status <> 'cancelled' AND is_paid = true
GROUP BY period ORDER BY period`,
		},
		{
			name:   "week-bucket-before-range-start",
			covers: "week grain with a range starting mid-week: the first period is the bucket start 2025-12-29, before the range start, holding only in-range rows",
			q:      q.Question{Metrics: []string{"order_count"}, Grain: "week", Range: q.Range{Start: "2025-12-31", End: "2026-01-08"}},
			sql: `SELECT date_trunc('week', order_date)::DATE AS period, count(order_id) AS order_count
FROM orders
WHERE order_date >= DATE '2025-12-31' AND order_date < DATE '2026-01-08' AND status <> 'cancelled'
GROUP BY period ORDER BY period`,
		},
		{
			name:   "day-grain-christmas-closed",
			covers: "day grain: no row for 2025-12-25 (no orders), and the half-open end excludes 2025-12-28",
			q:      q.Question{Metrics: []string{"units_sold"}, Grain: "day", Range: q.Range{Start: "2025-12-22", End: "2025-12-28"}},
			sql: `SELECT order_date AS period, sum(quantity) AS units_sold
FROM orders
WHERE order_date >= DATE '2025-12-22' AND order_date < DATE '2025-12-28' AND status = 'completed'
GROUP BY period ORDER BY period`,
		},
		{
			name:   "quarter-grain",
			covers: "quarter grain over the whole data set (`gross_sales`)",
			q:      q.Question{Metrics: []string{"gross_sales"}, Grain: "quarter", Range: q.Range{Start: "2024-01-01", End: "2026-07-01"}},
			sql: `SELECT date_trunc('quarter', order_date)::DATE AS period, sum(gross_amount_cents) AS gross_sales
FROM orders
WHERE order_date >= DATE '2024-01-01' AND order_date < DATE '2026-07-01' AND status <> 'cancelled'
GROUP BY period ORDER BY period`,
		},
		{
			name:   "year-grain",
			covers: "year grain, a range reaching past the data (`order_count`)",
			q:      q.Question{Metrics: []string{"order_count"}, Grain: "year", Range: q.Range{Start: "2024-01-01", End: "2027-01-01"}},
			sql: `SELECT date_trunc('year', order_date)::DATE AS period, count(order_id) AS order_count
FROM orders
WHERE order_date >= DATE '2024-01-01' AND order_date < DATE '2027-01-01' AND status <> 'cancelled'
GROUP BY period ORDER BY period`,
		},
		{
			name:   "customers-model-one-hop",
			covers: "a metric on another model (`new_customers` on customers, time column signup_date, no required filter) by `area` one hop away, null group included",
			q: q.Question{Metrics: []string{"new_customers"}, Grain: "quarter", Range: q.Range{Start: "2024-01-01", End: "2026-01-01"},
				Dimensions: []string{"area"}},
			sql: `SELECT r.region_name AS area, date_trunc('quarter', c.signup_date)::DATE AS period, count(c.customer_id) AS new_customers
FROM customers c LEFT JOIN regions r ON r.region_id = c.region_id
WHERE c.signup_date >= DATE '2024-01-01' AND c.signup_date < DATE '2026-01-01'
GROUP BY ALL ORDER BY area ASC NULLS LAST, period`,
			wantNullIn: []string{"area"},
		},
		{
			name:   "shipped-date-time-column",
			covers: "a metric whose time column is shipped_date (`dispatched_orders`, required filter is_not_null) by `channel`",
			q: q.Question{Metrics: []string{"dispatched_orders"}, Grain: "month", Range: q.Range{Start: "2025-10-01", End: "2026-01-01"},
				Dimensions: []string{"channel"}},
			sql: `SELECT channel, date_trunc('month', shipped_date)::DATE AS period, count(order_id) AS dispatched_orders
FROM orders
WHERE shipped_date >= DATE '2025-10-01' AND shipped_date < DATE '2026-01-01' AND shipped_date IS NOT NULL
GROUP BY ALL ORDER BY channel, period`,
		},
		{
			name:   "equals-and-is-not-null-required",
			covers: "max over a nullable column with required filters equals (channel = online) and is_not_null (`slowest_dispatch_days`) by `product_category`",
			q: q.Question{Metrics: []string{"slowest_dispatch_days"}, Grain: "month", Range: q.Range{Start: "2025-10-01", End: "2026-01-01"},
				Dimensions: []string{"product_category"}},
			sql: `SELECT product_category, date_trunc('month', order_date)::DATE AS period, max(dispatch_days) AS slowest_dispatch_days
FROM ox
WHERE order_date >= DATE '2025-10-01' AND order_date < DATE '2026-01-01'
  AND channel = 'online' AND shipped_date IS NOT NULL
GROUP BY ALL ORDER BY product_category ASC NULLS LAST, period`,
		},
		{
			name:   "two-dimensions-join",
			covers: "two dimensions, one through a join (`product_category`) and one on the model (`channel`)",
			q: q.Question{Metrics: []string{"gross_sales"}, Grain: "quarter", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
				Dimensions: []string{"product_category", "channel"}},
			sql: `SELECT p.category AS product_category, o.channel, date_trunc('quarter', o.order_date)::DATE AS period,
       sum(o.gross_amount_cents) AS gross_sales
FROM orders o LEFT JOIN products p ON p.product_id = o.product_id
WHERE o.order_date >= DATE '2025-01-01' AND o.order_date < DATE '2026-01-01' AND o.status <> 'cancelled'
GROUP BY ALL ORDER BY product_category ASC NULLS LAST, channel ASC NULLS LAST, period`,
		},
		{
			name:   "four-dimensions",
			covers: "the maximum of four dimensions, in a question order that differs from the catalogue order",
			q: q.Question{Metrics: []string{"net_sales"}, Grain: "year", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
				Dimensions: []string{"customer_segment", "channel", "area", "product_category"}},
			sql: `SELECT customer_segment, channel, area, product_category, date_trunc('year', order_date)::DATE AS period,
       sum(net_amount_cents) AS net_sales
FROM ox
WHERE order_date >= DATE '2025-01-01' AND order_date < DATE '2026-01-01'
  AND status <> 'cancelled' AND is_paid = true
GROUP BY ALL
ORDER BY customer_segment ASC NULLS LAST, channel ASC NULLS LAST, area ASC NULLS LAST,
         product_category ASC NULLS LAST, period`,
			wantNullIn: []string{"area"},
		},
		{
			name:   "range-exactly-3653-days",
			covers: "a range of exactly 3653 days (the longest allowed) answers",
			q:      q.Question{Metrics: []string{"order_count"}, Grain: "year", Range: q.Range{Start: "2020-01-01", End: "2030-01-01"}},
			sql: `SELECT date_trunc('year', order_date)::DATE AS period, count(order_id) AS order_count
FROM orders
WHERE order_date >= DATE '2020-01-01' AND order_date < DATE '2030-01-01' AND status <> 'cancelled'
GROUP BY period ORDER BY period`,
		},
		{
			name:   "empty-answer",
			covers: "a range with no data: an answer with the columns and no rows",
			q: q.Question{Metrics: []string{"net_sales"}, Grain: "month", Range: q.Range{Start: "2030-01-01", End: "2030-04-01"},
				Dimensions: []string{"area"}},
			sql: `SELECT area, date_trunc('month', order_date)::DATE AS period, sum(net_amount_cents) AS net_sales
FROM ox
WHERE order_date >= DATE '2030-01-01' AND order_date < DATE '2030-04-01'
  AND status <> 'cancelled' AND is_paid = true
GROUP BY ALL ORDER BY area ASC NULLS LAST, period`,
		},
	}
}

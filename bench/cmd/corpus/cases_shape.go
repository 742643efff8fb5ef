package main

import q "sutura.dev/bench/question"

// Multi-metric answers, top, caller filters and audiences. A multi-metric
// SQL computes each metric alone (its own required filters) and joins the
// per-metric groups onto their union, null-safe on the keys, so a metric
// with no rows in a group has a null cell.
func shapeCases() []corpusCase {
	return []corpusCase{
		{
			name:   "multi-three-weekly",
			covers: "three metrics at week grain (sum, count, avg with different required filters): the `weekly_trading` example",
			q: q.Question{Metrics: []string{"net_sales", "order_count", "average_order_value"}, Grain: "week",
				Range: q.Range{Start: "2026-05-04", End: "2026-06-29"}},
			sql: `WITH ns AS (
  SELECT date_trunc('week', order_date)::DATE AS period, sum(net_amount_cents) AS v FROM orders
  WHERE order_date >= DATE '2026-05-04' AND order_date < DATE '2026-06-29' AND status <> 'cancelled' AND is_paid = true
  GROUP BY period),
oc AS (
  SELECT date_trunc('week', order_date)::DATE AS period, count(order_id) AS v FROM orders
  WHERE order_date >= DATE '2026-05-04' AND order_date < DATE '2026-06-29' AND status <> 'cancelled'
  GROUP BY period),
aov AS (
  SELECT date_trunc('week', order_date)::DATE AS period,
         CAST(sum(net_amount_cents) AS DOUBLE) / CAST(count(net_amount_cents) AS DOUBLE) AS v FROM orders
  WHERE order_date >= DATE '2026-05-04' AND order_date < DATE '2026-06-29' AND is_paid = true
  GROUP BY period),
k AS (SELECT period FROM ns UNION SELECT period FROM oc UNION SELECT period FROM aov)
SELECT k.period, ns.v AS net_sales, oc.v AS order_count, aov.v AS average_order_value
FROM k LEFT JOIN ns ON ns.period = k.period LEFT JOIN oc ON oc.period = k.period LEFT JOIN aov ON aov.period = k.period
ORDER BY k.period`,
		},
		{
			name:   "multi-null-count-cell",
			covers: "two metrics by `area` at day grain where `returned_orders` (status = completed) has no rows in a group the other has: its cell is null, not 0",
			q: q.Question{Metrics: []string{"net_sales", "returned_orders"}, Grain: "day",
				Range: q.Range{Start: "2026-06-26", End: "2026-06-30"}, Dimensions: []string{"area"}},
			sql: `WITH ns AS (
  SELECT area, order_date AS period, sum(net_amount_cents) AS v FROM ox
  WHERE order_date >= DATE '2026-06-26' AND order_date < DATE '2026-06-30' AND status <> 'cancelled' AND is_paid = true
  GROUP BY ALL),
ro AS (
  SELECT area, order_date AS period, count_if(is_returned) AS v FROM ox
  WHERE order_date >= DATE '2026-06-26' AND order_date < DATE '2026-06-30' AND status = 'completed'
  GROUP BY ALL),
k AS (SELECT area, period FROM ns UNION SELECT area, period FROM ro)
SELECT k.area, k.period, ns.v AS net_sales, ro.v AS returned_orders
FROM k
LEFT JOIN ns ON ns.area IS NOT DISTINCT FROM k.area AND ns.period = k.period
LEFT JOIN ro ON ro.area IS NOT DISTINCT FROM k.area AND ro.period = k.period
ORDER BY k.area ASC NULLS LAST, k.period`,
			wantNullIn: []string{"returned_orders"},
		},
		{
			name:   "multi-outage-null-sum",
			covers: "three metrics by `channel` at day grain over the 2025-08-12 outage: `net_sales` (is_paid) has no rows that day (null), `order_count` has, `return_rate` yields null",
			q: q.Question{Metrics: []string{"order_count", "net_sales", "return_rate"}, Grain: "day",
				Range: q.Range{Start: "2025-08-11", End: "2025-08-14"}, Dimensions: []string{"channel"}},
			sql: `WITH oc AS (
  SELECT channel, order_date AS period, count(order_id) AS v FROM orders
  WHERE order_date >= DATE '2025-08-11' AND order_date < DATE '2025-08-14' AND status <> 'cancelled'
  GROUP BY ALL),
ns AS (
  SELECT channel, order_date AS period, sum(net_amount_cents) AS v FROM orders
  WHERE order_date >= DATE '2025-08-11' AND order_date < DATE '2025-08-14' AND status <> 'cancelled' AND is_paid = true
  GROUP BY ALL),
rr AS (
  SELECT channel, order_date AS period,
         CAST(count_if(is_returned) AS DOUBLE) / NULLIF(CAST(count_if(is_paid) AS DOUBLE), 0) AS v FROM orders
  WHERE order_date >= DATE '2025-08-11' AND order_date < DATE '2025-08-14' AND status = 'completed'
  GROUP BY ALL),
k AS (SELECT channel, period FROM oc UNION SELECT channel, period FROM ns UNION SELECT channel, period FROM rr)
SELECT k.channel, k.period, oc.v AS order_count, ns.v AS net_sales, rr.v AS return_rate
FROM k
LEFT JOIN oc ON oc.channel IS NOT DISTINCT FROM k.channel AND oc.period = k.period
LEFT JOIN ns ON ns.channel IS NOT DISTINCT FROM k.channel AND ns.period = k.period
LEFT JOIN rr ON rr.channel IS NOT DISTINCT FROM k.channel AND rr.period = k.period
ORDER BY k.channel ASC NULLS LAST, k.period`,
			wantNullIn: []string{"net_sales", "return_rate"},
		},
		{
			name:   "multi-with-dimension-and-filter",
			covers: "three metrics (one restricted, seen by the operator) by `product_category` with an eq filter on `channel` applied to every metric",
			q: q.Question{Metrics: []string{"gross_sales", "units_sold", "discounts_given"}, Grain: "quarter",
				Range: q.Range{Start: "2025-01-01", End: "2025-07-01"}, Dimensions: []string{"product_category"},
				Filters: []q.Filter{q.Eq("channel", "store")}},
			sql: `WITH gs AS (
  SELECT product_category, date_trunc('quarter', order_date)::DATE AS period, sum(gross_amount_cents) AS v FROM ox
  WHERE order_date >= DATE '2025-01-01' AND order_date < DATE '2025-07-01' AND status <> 'cancelled' AND channel = 'store'
  GROUP BY ALL),
us AS (
  SELECT product_category, date_trunc('quarter', order_date)::DATE AS period, sum(quantity) AS v FROM ox
  WHERE order_date >= DATE '2025-01-01' AND order_date < DATE '2025-07-01' AND status = 'completed' AND channel = 'store'
  GROUP BY ALL),
dg AS (
  SELECT product_category, date_trunc('quarter', order_date)::DATE AS period, sum(discount_cents) AS v FROM ox
  WHERE order_date >= DATE '2025-01-01' AND order_date < DATE '2025-07-01' AND status <> 'cancelled' AND channel = 'store'
  GROUP BY ALL),
k AS (SELECT product_category, period FROM gs UNION SELECT product_category, period FROM us
      UNION SELECT product_category, period FROM dg)
SELECT k.product_category, k.period, gs.v AS gross_sales, us.v AS units_sold, dg.v AS discounts_given
FROM k
LEFT JOIN gs ON gs.product_category IS NOT DISTINCT FROM k.product_category AND gs.period = k.period
LEFT JOIN us ON us.product_category IS NOT DISTINCT FROM k.product_category AND us.period = k.period
LEFT JOIN dg ON dg.product_category IS NOT DISTINCT FROM k.product_category AND dg.period = k.period
ORDER BY k.product_category ASC NULLS LAST, k.period`,
		},
		{
			name:   "top-metric-desc",
			covers: "top 5 by metric, descending: the `top_products` example (units by product)",
			q: q.Question{Metrics: []string{"units_sold"}, Grain: "year", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
				Dimensions: []string{"product"}, Top: &q.Top{N: 5, By: "metric", Direction: "desc"}},
			sql: `SELECT product, date_trunc('year', order_date)::DATE AS period, sum(quantity) AS units_sold
FROM ox
WHERE order_date >= DATE '2025-01-01' AND order_date < DATE '2026-01-01' AND status = 'completed'
GROUP BY ALL
ORDER BY units_sold DESC NULLS LAST, product ASC NULLS LAST, period
LIMIT 5`,
		},
		{
			name:   "top-metric-asc",
			covers: "top 3 by metric, ascending (the three weakest products by net sales)",
			q: q.Question{Metrics: []string{"net_sales"}, Grain: "year", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
				Dimensions: []string{"product"}, Top: &q.Top{N: 3, By: "metric", Direction: "asc"}},
			sql: `SELECT product, date_trunc('year', order_date)::DATE AS period, sum(net_amount_cents) AS net_sales
FROM ox
WHERE order_date >= DATE '2025-01-01' AND order_date < DATE '2026-01-01' AND status <> 'cancelled' AND is_paid = true
GROUP BY ALL
ORDER BY net_sales ASC NULLS LAST, product ASC NULLS LAST, period
LIMIT 3`,
		},
		{
			name:   "top-period-desc",
			covers: "top 3 by period, descending (the latest three months)",
			q: q.Question{Metrics: []string{"net_sales"}, Grain: "month", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
				Top: &q.Top{N: 3, By: "period", Direction: "desc"}},
			sql: `SELECT date_trunc('month', order_date)::DATE AS period, sum(net_amount_cents) AS net_sales
FROM orders
WHERE order_date >= DATE '2025-01-01' AND order_date < DATE '2026-01-01' AND status <> 'cancelled' AND is_paid = true
GROUP BY period ORDER BY period DESC LIMIT 3`,
		},
		{
			name:   "top-period-asc-ties",
			covers: "top 5 by period, ascending, with a dimension: ties on the period are broken by the keys ascending",
			q: q.Question{Metrics: []string{"order_count"}, Grain: "month", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
				Dimensions: []string{"channel"}, Top: &q.Top{N: 5, By: "period", Direction: "asc"}},
			sql: `SELECT channel, date_trunc('month', order_date)::DATE AS period, count(order_id) AS order_count
FROM orders
WHERE order_date >= DATE '2025-01-01' AND order_date < DATE '2026-01-01' AND status <> 'cancelled'
GROUP BY ALL ORDER BY period ASC, channel ASC NULLS LAST LIMIT 5`,
		},
		{
			name:   "top-metric-desc-nulls-last",
			covers: "top by metric, descending, over a ratio with null cells (2024-11-29): nulls sort last whatever the direction",
			q: q.Question{Metrics: []string{"return_rate"}, Grain: "day", Range: q.Range{Start: "2024-11-27", End: "2024-12-01"},
				Dimensions: []string{"channel"}, Top: &q.Top{N: 10, By: "metric", Direction: "desc"}},
			sql: `SELECT channel, order_date AS period,
       CAST(count_if(is_returned) AS DOUBLE) / NULLIF(CAST(count_if(is_paid) AS DOUBLE), 0) AS return_rate
FROM orders
WHERE order_date >= DATE '2024-11-27' AND order_date < DATE '2024-12-01' AND status = 'completed'
GROUP BY ALL
ORDER BY return_rate DESC NULLS LAST, channel ASC NULLS LAST, period
LIMIT 10`,
			wantNullIn: []string{"return_rate"},
		},
		{
			name:   "filter-eq-two",
			covers: "two eq filters (`channel`, `area` through the two-hop chain) on dimensions not grouped: the `online_return_rate_north` example",
			q: q.Question{Metrics: []string{"return_rate"}, Grain: "month", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
				Filters: []q.Filter{q.Eq("channel", "online"), q.Eq("area", "North")}},
			sql: `SELECT date_trunc('month', order_date)::DATE AS period,
       CAST(count_if(is_returned) AS DOUBLE) / NULLIF(CAST(count_if(is_paid) AS DOUBLE), 0) AS return_rate
FROM ox
WHERE order_date >= DATE '2025-01-01' AND order_date < DATE '2026-01-01' AND status = 'completed'
  AND channel = 'online' AND area = 'North'
GROUP BY period ORDER BY period`,
		},
		{
			name:   "filter-in",
			covers: "an in filter on a grouped dimension (`product_category` in Garden, Lighting)",
			q: q.Question{Metrics: []string{"net_sales"}, Grain: "quarter", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
				Dimensions: []string{"product_category"}, Filters: []q.Filter{q.In("product_category", "Lighting", "Garden")}},
			sql: `SELECT product_category, date_trunc('quarter', order_date)::DATE AS period, sum(net_amount_cents) AS net_sales
FROM ox
WHERE order_date >= DATE '2025-01-01' AND order_date < DATE '2026-01-01' AND status <> 'cancelled' AND is_paid = true
  AND product_category IN ('Lighting', 'Garden')
GROUP BY ALL ORDER BY product_category ASC NULLS LAST, period`,
		},
		{
			name:   "filter-not-in-keeps-null",
			covers: "a not_in filter on a grouped dimension: non-matching rows and the null area group are kept",
			q: q.Question{Metrics: []string{"order_count"}, Grain: "quarter", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
				Dimensions: []string{"area"}, Filters: []q.Filter{q.NotIn("area", "East", "North")}},
			sql: `SELECT area, date_trunc('quarter', order_date)::DATE AS period, count(order_id) AS order_count
FROM ox
WHERE order_date >= DATE '2025-01-01' AND order_date < DATE '2026-01-01' AND status <> 'cancelled'
  AND (area NOT IN ('East', 'North') OR area IS NULL)
GROUP BY ALL ORDER BY area ASC NULLS LAST, period`,
			wantNullIn: []string{"area"},
		},
		{
			name:   "filter-not-in-ungrouped",
			covers: "a not_in filter on a dimension not grouped: rows with a null area still count in the totals",
			q: q.Question{Metrics: []string{"net_sales"}, Grain: "month", Range: q.Range{Start: "2026-01-01", End: "2026-04-01"},
				Filters: []q.Filter{q.NotIn("area", "East")}},
			sql: `SELECT date_trunc('month', order_date)::DATE AS period, sum(net_amount_cents) AS net_sales
FROM ox
WHERE order_date >= DATE '2026-01-01' AND order_date < DATE '2026-04-01' AND status <> 'cancelled' AND is_paid = true
  AND (area NOT IN ('East') OR area IS NULL)
GROUP BY period ORDER BY period`,
		},
		{
			name:   "filter-eq-on-grouped-dimension",
			covers: "a dimension both grouped and filtered (not a repeat): `channel` grouped, eq online",
			q: q.Question{Metrics: []string{"units_sold"}, Grain: "month", Range: q.Range{Start: "2025-01-01", End: "2025-04-01"},
				Dimensions: []string{"channel"}, Filters: []q.Filter{q.Eq("channel", "online")}},
			sql: `SELECT channel, date_trunc('month', order_date)::DATE AS period, sum(quantity) AS units_sold
FROM orders
WHERE order_date >= DATE '2025-01-01' AND order_date < DATE '2025-04-01' AND status = 'completed' AND channel = 'online'
GROUP BY ALL ORDER BY channel, period`,
		},
		{
			name:   "filter-in-excludes-null",
			covers: "an in filter on a two-hop dimension not grouped, with count_distinct by `channel`: null-area rows are dropped",
			q: q.Question{Metrics: []string{"active_customers"}, Grain: "quarter", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
				Dimensions: []string{"channel"}, Filters: []q.Filter{q.In("area", "South", "West")}},
			sql: `SELECT channel, date_trunc('quarter', order_date)::DATE AS period, count(DISTINCT customer_id) AS active_customers
FROM ox
WHERE order_date >= DATE '2025-01-01' AND order_date < DATE '2026-01-01' AND is_paid = true
  AND area IN ('South', 'West')
GROUP BY ALL ORDER BY channel, period`,
		},
		{
			name:   "filter-eq-customers-model",
			covers: "an eq filter on a dimension of the customers model (`customer_segment` = trade on `new_customers`) grouped by `area`",
			q: q.Question{Metrics: []string{"new_customers"}, Grain: "year", Range: q.Range{Start: "2023-01-01", End: "2027-01-01"},
				Dimensions: []string{"area"}, Filters: []q.Filter{q.Eq("customer_segment", "trade")}},
			sql: `SELECT area, date_trunc('year', signup_date)::DATE AS period, count(customer_id) AS new_customers
FROM cx
WHERE signup_date >= DATE '2023-01-01' AND signup_date < DATE '2027-01-01' AND segment = 'trade'
GROUP BY ALL ORDER BY area ASC NULLS LAST, period`,
		},
		{
			name:   "restricted-seen-by-operator",
			covers: "a restricted (finance) metric answered for the operator: `discounts_given` by `customer_segment`",
			q: q.Question{Metrics: []string{"discounts_given"}, Grain: "year", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
				Dimensions: []string{"customer_segment"}},
			sql: `SELECT customer_segment, date_trunc('year', order_date)::DATE AS period, sum(discount_cents) AS discounts_given
FROM ox
WHERE order_date >= DATE '2025-01-01' AND order_date < DATE '2026-01-01' AND status <> 'cancelled'
GROUP BY ALL ORDER BY customer_segment ASC NULLS LAST, period`,
		},
		{
			name:   "restricted-collected-by-payment-method",
			covers: "the other restricted metric for the operator: `collected_payments` by `payment_method` at quarter grain",
			q: q.Question{Metrics: []string{"collected_payments"}, Grain: "quarter", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
				Dimensions: []string{"payment_method"}},
			sql: `SELECT payment_method, date_trunc('quarter', order_date)::DATE AS period, sum(collected_cents) AS collected_payments
FROM orders
WHERE order_date >= DATE '2025-01-01' AND order_date < DATE '2026-01-01' AND is_paid = true
GROUP BY ALL ORDER BY payment_method ASC NULLS LAST, period`,
		},
		{
			name:      "anonymous-open-metric",
			covers:    "the anonymous principal asking an open metric is answered",
			principal: "anonymous",
			q: q.Question{Metrics: []string{"net_sales"}, Grain: "year", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
				Dimensions: []string{"channel"}},
			sql: `SELECT channel, date_trunc('year', order_date)::DATE AS period, sum(net_amount_cents) AS net_sales
FROM orders
WHERE order_date >= DATE '2025-01-01' AND order_date < DATE '2026-01-01' AND status <> 'cancelled' AND is_paid = true
GROUP BY ALL ORDER BY channel, period`,
		},
	}
}

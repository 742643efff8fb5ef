package web

import (
	"sutura.dev/bench/engine"
	q "sutura.dev/bench/question"
)

// Cases are the questions asked of the web data set, each with the
// DuckDB SQL a good compiler would send (required filters, half-open
// range on the timestamp, LEFT JOINs for dimensions reached through
// relationships, every key ascending with nulls last).
var Cases = []engine.Case{
	{
		Name:     "web-revenue-month-two-years",
		Question: q.Question{Metrics: []string{"revenue"}, Grain: "month", Range: q.Range{Start: "2024-01-01", End: "2026-01-01"}},
		ReferenceSQL: `SELECT date_trunc('month', event_time)::DATE AS period, sum(revenue_cents) AS revenue
FROM events
WHERE event_time >= TIMESTAMP '2024-01-01' AND event_time < TIMESTAMP '2026-01-01' AND event_type = 'purchase'
GROUP BY period ORDER BY period`,
	},
	{
		Name:     "web-events-day-quarter",
		Question: q.Question{Metrics: []string{"event_count"}, Grain: "day", Range: q.Range{Start: "2025-04-01", End: "2025-07-01"}},
		ReferenceSQL: `SELECT date_trunc('day', event_time)::DATE AS period, count(event_id) AS event_count
FROM events
WHERE event_time >= TIMESTAMP '2025-04-01' AND event_time < TIMESTAMP '2025-07-01'
GROUP BY period ORDER BY period`,
	},
	{
		Name: "web-top-countries",
		Question: q.Question{Metrics: []string{"event_count"}, Grain: "year", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
			Dimensions: []string{"country"}, Top: &q.Top{N: 10, By: "metric", Direction: "desc"}},
		ReferenceSQL: `SELECT country, date_trunc('year', event_time)::DATE AS period, count(event_id) AS event_count
FROM events
WHERE event_time >= TIMESTAMP '2025-01-01' AND event_time < TIMESTAMP '2026-01-01'
GROUP BY ALL ORDER BY event_count DESC NULLS LAST, country ASC NULLS LAST, period LIMIT 10`,
	},
	{
		Name: "web-device-event-type",
		Question: q.Question{Metrics: []string{"event_count"}, Grain: "quarter", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
			Dimensions: []string{"device", "event_type"}},
		ReferenceSQL: `SELECT device, event_type, date_trunc('quarter', event_time)::DATE AS period, count(event_id) AS event_count
FROM events
WHERE event_time >= TIMESTAMP '2025-01-01' AND event_time < TIMESTAMP '2026-01-01'
GROUP BY ALL ORDER BY device ASC NULLS LAST, event_type ASC NULLS LAST, period`,
	},
	{
		Name: "web-section-month",
		Question: q.Question{Metrics: []string{"event_count"}, Grain: "day", Range: q.Range{Start: "2025-03-01", End: "2025-04-01"},
			Filters: []q.Filter{q.Eq("section", "tech")}},
		ReferenceSQL: `SELECT date_trunc('day', e.event_time)::DATE AS period, count(e.event_id) AS event_count
FROM events e
LEFT JOIN pages p ON p.page_id = e.page_id
LEFT JOIN sections s ON s.section_id = p.section_id
WHERE e.event_time >= TIMESTAMP '2025-03-01' AND e.event_time < TIMESTAMP '2025-04-01' AND s.section_name = 'tech'
GROUP BY period ORDER BY period`,
	},
	{
		Name:     "web-sessions-week",
		Question: q.Question{Metrics: []string{"sessions"}, Grain: "week", Range: q.Range{Start: "2024-12-30", End: "2025-12-29"}},
		ReferenceSQL: `SELECT date_trunc('week', event_time)::DATE AS period, count(DISTINCT session_id) AS sessions
FROM events
WHERE event_time >= TIMESTAMP '2024-12-30' AND event_time < TIMESTAMP '2025-12-29'
GROUP BY period ORDER BY period`,
	},
	{
		Name: "web-purchasers-country",
		Question: q.Question{Metrics: []string{"purchasers"}, Grain: "quarter", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
			Dimensions: []string{"country"}},
		ReferenceSQL: `SELECT country, date_trunc('quarter', event_time)::DATE AS period, count(DISTINCT user_id) AS purchasers
FROM events
WHERE event_time >= TIMESTAMP '2025-01-01' AND event_time < TIMESTAMP '2026-01-01' AND event_type = 'purchase'
GROUP BY ALL ORDER BY country ASC NULLS LAST, period`,
	},
	{
		Name:     "web-two-metrics-month",
		Question: q.Question{Metrics: []string{"revenue", "event_count"}, Grain: "month", Range: q.Range{Start: "2024-01-01", End: "2026-01-01"}},
		ReferenceSQL: `SELECT date_trunc('month', event_time)::DATE AS period,
       sum(revenue_cents) FILTER (WHERE event_type = 'purchase') AS revenue,
       count(event_id) AS event_count
FROM events
WHERE event_time >= TIMESTAMP '2024-01-01' AND event_time < TIMESTAMP '2026-01-01'
GROUP BY period ORDER BY period`,
	},
	{
		Name: "web-conversion-device-month",
		Question: q.Question{Metrics: []string{"conversion_rate"}, Grain: "month", Range: q.Range{Start: "2025-01-01", End: "2026-01-01"},
			Dimensions: []string{"device"}},
		ReferenceSQL: `SELECT device, date_trunc('month', event_time)::DATE AS period,
       CAST(count_if(is_purchase) AS DOUBLE) / NULLIF(CAST(count_if(is_view) AS DOUBLE), 0) AS conversion_rate
FROM events
WHERE event_time >= TIMESTAMP '2025-01-01' AND event_time < TIMESTAMP '2026-01-01'
GROUP BY ALL ORDER BY device ASC NULLS LAST, period`,
	},
}

// Package semantic is sutura's compiler: it resolves a question against a
// pinned bundle in the order of docs/contract.md §3.2, plans it onto data systems
// and renders a plan to SQL for each dialect with every value bound as a
// parameter.
//
// # Two steps
//
// Compile resolves a question and plans it: it returns a *domain.Plan, or
// the first *domain.Reason a question fails on. Render turns a plan into one
// Statement (SQL text and its bound parameters) for a Dialect. The embedded
// engine (exec-arrow) executes the plan itself and must give the same
// answer as the statement Render writes for it; the contracts below are the
// ones both sides honour.
//
// # Resolution order
//
// The first failure wins, in this order (docs/contract.md §3.2):
//
//  1. metrics: more than domain.MaxMetrics → too_many_metrics; a name twice
//     → duplicate_metric_name; then each name in question order, unknown or
//     not visible to the principal → metric_unknown. Counting and
//     duplicates come first because they depend on the question alone, so
//     they reveal nothing about the catalogue. A metric the principal may
//     not see gets the very detail a missing one gets.
//  2. every metric on the first metric's model and time column →
//     metrics_span_different_models.
//  3. the grain declared by every metric → grain_not_supported.
//  4. the resolved range at most domain.MaxSpanDays days → time_range_too_long.
//  5. at most domain.MaxDimensions dimensions → too_many_dimensions.
//  6. at most domain.MaxFilters filters → too_many_filters.
//  7. top.n at most domain.MaxRowCap → result_too_large.
//  8. each dimension in question order: declared by every metric asked
//     (and meaning the same column through the same via chain for all of
//     them) → dimension_not_permitted; not repeated → duplicate_dimension.
//  9. each filter in question order: its dimension not filtered before →
//     duplicate_dimension; declared by every metric → dimension_not_permitted;
//     filterable (declared with values) for every metric →
//     dimension_not_filterable; every value on every metric's allowlist
//     (exact match) → dimension_value_not_allowed.
//  10. planning: top with several metrics → multi_metric_top_not_executable.
//     A question whose tables all live in the metrics' source: a metric
//     given as authored SQL → federation_not_executable; two different
//     tables with one bare name → plan_tables_share_an_identifier. A
//     federated question (a dimension, grouped or only filtered, read
//     through a crossing relationship), in the order of docs/contract.md §11:
//     a count_distinct term in any metric → measure_does_not_federate; one
//     model read by two lookup legs → federation_link_ambiguous; more
//     lookup legs than Ceilings.LookupLegs →
//     plan_needs_too_many_lookup_legs; more sources than Ceilings.Sources
//     → plan_spans_too_many_sources; a metric given as authored SQL →
//     federation_not_executable; two different tables with one bare name
//     in one leg → plan_tables_share_an_identifier.
//
// source_unavailable and every execution refusal are raised later, by the
// application and the executors. Details name metrics, dimensions and
// grains but never a value the caller sent. A question built by hand that
// breaks a rule domain.ParseQuestion enforces (no metric, an invalid grain,
// an empty or missing range, a filter without values or with an unknown
// operator, a top with n < 1 or an unknown key) is refused with the
// nearest code rather than compiled.
//
// # Plan
//
// A question whose tables all live in the metrics' source has one Leg
// (all metrics share one model). Leg.Base is the
// metric's model aliased "t0". Leg.Joins hold one LEFT JOIN per step of the
// via chain of every dimension used, grouped or only filtered; a chain
// prefix shared by two dimensions is joined once, and aliases t1, t2... are
// given in order of first use (grouped dimensions in question order, then
// filtered-only dimensions in filter order). A step may follow a
// relationship from origin to target or backwards (domain.Step); FromColumn
// is the relationship column on the side already joined. Dimensions and
// Filters are in question order; Metrics are in question order, each with
// its own RequiredFilters over columns of the base table. Columns are the
// dimensions, then "period", then the metrics.
//
// # Federated plans
//
// A relationship whose two models live in different sources is a
// crossing. When a question's dimension chain crosses, CompileWith plans
// in legs (domain.Combine documents the combine):
//
//   - Legs[0], the base leg, on the metrics' source: the metrics' model
//     and the joins whose chains stay in that source, the range, the
//     required filters and the filters on its own dimensions, grouped by
//     its grouped dimensions (labelled d1, d2 ...), the origin column of
//     each crossing it starts (k1, k2 ...) and the period. Its metrics are
//     partials (p1, p2 ...), each with its metric's required filters:
//     the term itself for sum, count, count_if, min and max; a sum and a
//     count of the column for avg; each term of a ratio.
//   - one lookup leg (domain.LegLookup) per crossing, on the source it
//     reaches, in order of first use (grouped dimensions in question
//     order, then filters): its first column is the crossing's key (k),
//     then the columns of the dimensions read in it (d1 ...) and the
//     origin column of each further crossing (k1 ...); chains that stay in
//     its source are its joins. eq and in filters on its dimensions are
//     bound in it; every filter on a remote dimension is applied again by
//     the combine, after the joins, where not_in keeps the nulls of
//     unmatched keys.
//
// A leg is executed alone, as domain.Plan.LegPlan makes it, and rendered
// by Render like any plan: the base leg as the usual statement without
// ORDER BY; a lookup leg as SELECT of its columns FROM its table and
// joins WHERE the key IS NOT NULL AND its filters, without grouping.
// Each fetches its row cap plus one row.
//
// # Null semantics
//
// A null never equals a value. So:
//   - eq and in keep only rows whose value is one of the listed values:
//     null rows are dropped.
//   - not_in drops only rows whose value is listed: null rows are kept,
//     rendered as (col IS NULL OR col NOT IN (...)).
//   - the required filter equals keeps rows equal to its value (nulls
//     dropped); not_equals keeps rows whose value is present and differs
//     (nulls dropped, as SQL's col <> v does: a required filter states a
//     fact about each row it keeps); is_true keeps rows whose
//     boolean is true (null and false dropped); is_not_null drops nulls.
//   - a dimension whose join finds no row, or whose column is null, groups
//     as a null key.
//
// # Several metrics
//
// Required filters common to every metric asked go to WHERE. A metric's
// remaining (residual) filters are applied inside its aggregates:
// AGG(CASE WHEN residual THEN col END), and WHERE also requires that at
// least one metric's residual holds. So the answer holds exactly the groups
// at least one metric has when asked alone, and each cell equals that
// metric's single-metric answer. A count-like aggregate (count,
// count_distinct, count_if) of a metric with a residual is null, not 0, in
// a group where none of its rows pass.
//
// # Measures
//
// sum, min and max keep the column's type; count counts non-null values;
// count_distinct counts distinct non-null values; count_if counts rows
// whose boolean column is true; avg and every ratio are cast to a 64-bit
// float. A ratio whose zero_denominator is yields_null is null where the
// denominator is zero; one that fails makes the statement fail with a
// division-by-zero error on every dialect (explicitly where the data system
// would otherwise yield null or infinity).
//
// # Time
//
// A timestamp time column is first converted to a date (in the data
// system's session time zone); buckets start on the first day of the
// period, weeks on Monday. The range is start ≤ time column < end, both
// bound as date parameters.
//
// # Order and collation
//
// Rows are ordered by every group key ascending, nulls last: dimensions in
// question order, then period; with top, by the metric value (or period)
// in top's direction, nulls last, first. Text dimension keys (declared
// text, or undeclared) order by their bytes: COLLATE "C" on postgres,
// NLSSORT(..., 'NLS_SORT=BINARY') on oracle; duckdb (binary by default),
// clickhouse and bigquery compare bytes natively. A dimension column that is
// not text must declare its type, or postgres and oracle would treat it as
// text. The statement fetches the plan's row cap plus one row, or top.n
// rows with top.
//
// # Dialect notes
//
//   - Placeholders: $1 on postgres and duckdb, :1 on oracle, @p1 on
//     bigquery, and server-side typed parameters {p1:Date} / {p1:String} on
//     clickhouse. RenderClickHouseLegacy is the clickhouse dialect for
//     servers whose native protocol has no query parameters (before 22.8):
//     the same SQL with ? and toDate(?) placeholders, which the driver binds
//     client-side, escaping each value; it is chosen by the server's
//     version, never for a server that has parameters. Parameters are numbered
//     in the order they appear and each appears once, because oracle binds
//     by occurrence; a value used twice is two parameters.
//   - Oracle: no AS before a table alias, FETCH FIRST n ROWS ONLY, booleans
//     as NUMBER(1) (is_true is col = 1), buckets with TRUNC(x, 'IW'|'MM'|'Q'|
//     'YYYY'); a failing ratio raises through a NUMBER 1 / 0.
//   - ClickHouse: SETTINGS join_use_nulls = 1 whenever there is a join, so
//     an unmatched LEFT JOIN reads null rather than an empty string or 0; toFloat64
//     instead of CAST (which fails on null); a failing ratio raises with
//     throwIf; booleans compare with = 1.
//   - DuckDB: a failing ratio raises with error(), since DuckDB divides by
//     zero to null.
//   - BigQuery: the range compares CAST(col AS DATE) unless the time column
//     is declared date, since bigquery does not compare a timestamp with a
//     date; weeks are DATE_TRUNC(x, ISOWEEK).
//   - Caller filter values are bound as text; a filterable dimension should
//     be a text column (other types rely on the data system's coercion).
//
// # Identifiers and values
//
// Every identifier (table path segments, aliases, columns, answer labels)
// is quoted: double quotes on postgres, oracle and duckdb, backticks on
// clickhouse and bigquery, each path segment separately. Quoted names match
// exactly as the catalogue spells them (on oracle, a table created without
// quotes is upper case and must be spelt so). Every value is a bound
// parameter; the only literals in a statement are structural constants of
// this package (0, 1, NULL, date-part names, the limit).
package semantic

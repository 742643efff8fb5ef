package importcheck

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/adapters/import-cube"
	"sutura.dev/adapters/import-dbt"
	"sutura.dev/adapters/import-osi"
	"sutura.dev/adapters/importread"
)

// imported hands an importer's result to the shared writer, as the cli
// does.
func imported(t *testing.T, format string, r *importread.Result, err error) mdcatalog.Imported {
	t.Helper()
	require.NoError(t, err)
	imp := mdcatalog.Imported{Format: format, Definitions: r.Definitions, Glossary: r.Glossary}
	for _, d := range r.Dimensions {
		imp.Dimensions = append(imp.Dimensions, mdcatalog.ImportedDimension(d))
	}
	for _, e := range r.Entries {
		imp.Entries = append(imp.Entries, mdcatalog.ImportEntry(e))
	}
	return imp
}

// monthly is the reference SQL of one metric by month over 2024: value is
// the aggregate as the input defines it, from is the FROM clause, where
// any condition the input's filter adds, and dims the dimension columns.
func monthly(value, timeCol, from, where string, dims ...string) string {
	sel, group := "", ""
	for i, d := range dims {
		sel += d + ", "
		group += itoa(i+1) + ", "
	}
	if where != "" {
		where = " AND (" + where + ")"
	}
	return "SELECT " + sel + "date_trunc('month', " + timeCol + ")::DATE AS period, " + value + " FROM " + from +
		" WHERE " + timeCol + " >= DATE '2024-01-01' AND " + timeCol + " < DATE '2025-01-01'" + where +
		" GROUP BY " + group + itoa(len(dims)+1)
}

func itoa(i int) string { return string(rune('0' + i)) }

// The dbt-semantic-interfaces fixture: every imported metric answers, on
// generated data, what MetricFlow's definition of it computes, written by
// hand as SQL (sum_boolean as SUM(CASE WHEN ... THEN 1 ELSE 0 END), a sum
// of 1 as COUNT(*), dimensions reached through entities as LEFT JOINs).
func TestDBTMetricsKeepTheirMeaning(t *testing.T) {
	r, err := dbt.Read(readFixture(t, "../../adapters/import-dbt/testdata/simple_semantic_manifest", "$source_schema", "analytics"))
	b := catalogue(t, imported(t, "dbt", r, err))
	require.Len(t, b.Definitions().Metrics, 16)

	dir, db := generate(t, b, map[string]table{
		"fct_bookings": {rows: 600, cols: []column{{name: "ds", kind: "date", null: 40}, {name: "booking_paid_at", kind: "date", null: 30},
			{name: "ds_partitioned", kind: "date"}, {name: "booking_value", kind: "num", null: 25}, {name: "is_instant", kind: "bool", null: 15},
			{name: "guest_id", kind: "fk", n: 90, null: 30}, {name: "host_id", kind: "fk", n: 30}, {name: "listing_id", kind: "fk", n: 70, null: 20},
			{name: "referrer_id", kind: "fk", n: 50, null: 3}}},
		"dim_listings_latest": {rows: 60, cols: []column{{name: "listing_id", kind: "pk"}, {name: "created_at", kind: "date", null: 20},
			{name: "capacity", kind: "int", null: 10}, {name: "country", kind: "cat", n: 5, null: 12}, {name: "is_lux", kind: "bool", null: 8},
			{name: "user_id", kind: "fk", n: 45, null: 10}}},
		"dim_users_latest": {rows: 40, cols: []column{{name: "user_id", kind: "pk"}, {name: "ds", kind: "date"}, {name: "home_state_latest", kind: "cat", n: 6, null: 9}}},
		"dim_users": {rows: 40, cols: []column{{name: "user_id", kind: "pk"}, {name: "created_at", kind: "date"}, {name: "ds_source_date", kind: "date"},
			{name: "ds_partitioned", kind: "date"}, {name: "home_state", kind: "cat", n: 6}}},
		"fct_views": {rows: 500, cols: []column{{name: "user_id", kind: "pk"}, {name: "ds", kind: "date", null: 30}, {name: "ds_partitioned", kind: "date"},
			{name: "listing_id", kind: "fk", n: 70}}},
		"fct_revenue":                {rows: 400, cols: []column{{name: "created_at", kind: "date", null: 20}, {name: "revenue", kind: "num", null: 20}, {name: "user_id", kind: "fk", n: 45}}},
		"dim_lux_listing_id_mapping": {rows: 60, cols: []column{{name: "listing_id", kind: "pk"}, {name: "lux_listing_id", kind: "fk", n: 10}}},
	})
	const bookings = "fct_bookings"
	withListing := "fct_bookings b LEFT JOIN dim_listings_latest l ON b.listing_id = l.listing_id"
	check(t, b, dir, db, []question{
		{metric: "booking_value", sql: monthly("SUM(booking_value)", "ds", bookings, "")},
		{metric: "average_booking_value", sql: monthly("AVG(booking_value)", "ds", bookings, "")},
		{metric: "instant_bookings", sql: monthly("SUM(CASE WHEN is_instant THEN 1 ELSE 0 END)", "ds", bookings, "")},
		{metric: "max_booking_value", sql: monthly("MAX(booking_value)", "ds", bookings, "")},
		{metric: "min_booking_value", sql: monthly("MIN(booking_value)", "ds", bookings, "")},
		{metric: "instant_booking_value", sql: monthly("SUM(booking_value)", "ds", bookings, "is_instant")},
		{metric: "average_instant_booking_value", sql: monthly("AVG(booking_value)", "ds", bookings, "is_instant")},
		{metric: "bookers", sql: monthly("COUNT(DISTINCT guest_id)", "ds", bookings, "")},
		{metric: "booking_payments", sql: monthly("SUM(booking_value)", "booking_paid_at", bookings, "")},
		{metric: "referred_bookings", sql: monthly("COUNT(referrer_id)", "ds", bookings, "")},
		{metric: "views", sql: monthly("SUM(1)", "ds", "fct_views", "")},
		{metric: "listings", sql: monthly("SUM(1)", "created_at", "dim_listings_latest", "")},
		{metric: "lux_listings", sql: monthly("SUM(1)", "created_at", "dim_listings_latest", "is_lux")},
		{metric: "smallest_listing", sql: monthly("MIN(capacity)", "created_at", "dim_listings_latest", "")},
		{metric: "largest_listing", sql: monthly("MAX(capacity)", "created_at", "dim_listings_latest", "")},
		{metric: "revenue", sql: monthly("SUM(revenue)", "created_at", "fct_revenue", "")},
		{metric: "booking_value", dimensions: []string{"is_instant"}, sql: monthly("SUM(booking_value)", "ds", bookings, "", "is_instant")},
		{metric: "instant_booking_value", dimensions: []string{"country_latest"},
			sql: monthly("SUM(b.booking_value)", "b.ds", withListing, "b.is_instant", "l.country")},
		{metric: "bookers", dimensions: []string{"home_state_latest"},
			sql: monthly("COUNT(DISTINCT b.guest_id)", "b.ds", withListing+" LEFT JOIN dim_users_latest u ON l.user_id = u.user_id", "", "u.home_state_latest")},
		{metric: "lux_listings", dimensions: []string{"home_state"},
			sql: monthly("SUM(1)", "l.created_at", "dim_listings_latest l LEFT JOIN dim_users u ON l.user_id = u.user_id", "l.is_lux", "u.home_state")},
	})
}

// Cube's own fixtures: a count without sql is COUNT(*) of the cube, a
// measure filter is a WHERE, and a join is a LEFT JOIN on its columns.
func TestCubeMetricsKeepTheirMeaning(t *testing.T) {
	r, err := cube.Read(readFixture(t, "../../adapters/import-cube/testdata/schema-compiler"))
	b := catalogue(t, imported(t, "cube", r, err))
	require.Len(t, b.Definitions().Metrics, 2)

	dir, db := generate(t, b, map[string]table{
		"orders": {rows: 500, cols: []column{{name: "id", kind: "pk"}, {name: "created_at", kind: "date", null: 25},
			{name: "status", kind: "cat", vals: []string{"completed", "pending", "cancelled"}, null: 10}, {name: "user_id", kind: "fk", n: 40}}},
		"custom_calendar": {rows: 380, cols: []column{{name: "date_val", kind: "datepk", n: 5}}},
	})
	withCalendar := "orders o LEFT JOIN custom_calendar c ON o.created_at = c.date_val"
	check(t, b, dir, db, []question{
		{metric: "calendar_orders_count", sql: monthly("COUNT(*)", "created_at", "orders", "")},
		{metric: "calendar_orders_completed_count", sql: monthly("COUNT(*)", "created_at", "orders", "status = 'completed'")},
		{metric: "calendar_orders_count", dimensions: []string{"status"}, sql: monthly("COUNT(*)", "created_at", "orders", "", "status")},
		{metric: "calendar_orders_completed_count", dimensions: []string{"retail_year"},
			sql: monthly("COUNT(*)", "o.created_at", withCalendar, "o.status = 'completed'", "c.retail_year_name")},
	})
}

// An OSI model: each ANSI_SQL expression, run as it is written, against
// the imported metric.
func TestOSIMetricsKeepTheirMeaning(t *testing.T) {
	data, err := os.ReadFile("../../adapters/import-osi/testdata/shop/shop.yaml")
	require.NoError(t, err)
	r, err := osi.Read([]importread.File{{Path: "shop.yaml", Data: data}})
	b := catalogue(t, imported(t, "osi", r, err))
	require.Len(t, b.Definitions().Metrics, 8)

	dir, db := generate(t, b, map[string]table{
		"orders": {rows: 700, cols: []column{{name: "order_id", kind: "pk"}, {name: "order_date", kind: "date", null: 30},
			{name: "shipped_date", kind: "date", null: 5}, {name: "channel", kind: "cat", n: 3, null: 10}, {name: "is_paid", kind: "bool", null: 10},
			{name: "customer_id", kind: "fk", n: 30, null: 25}, {name: "amount", kind: "num", null: 20}}},
		"customers": {rows: 25, cols: []column{{name: "customer_id", kind: "pk"}, {name: "region", kind: "cat", n: 4, null: 8}, {name: "segment", kind: "cat", n: 3}}},
	})
	// The expressions are the model's own, with the dataset name as the alias.
	const orders = "orders"
	withCustomer := "orders LEFT JOIN customers ON orders.customer_id = customers.customer_id"
	check(t, b, dir, db, []question{
		{metric: "revenue", sql: monthly("SUM(orders.amount)", "order_date", orders, "")},
		{metric: "order_count", sql: monthly("COUNT(orders.order_id)", "order_date", orders, "")},
		{metric: "buyers", sql: monthly("COUNT(DISTINCT orders.customer_id)", "order_date", orders, "")},
		{metric: "average_order", sql: monthly("AVG(orders.amount)", "order_date", orders, "")},
		{metric: "largest_order", sql: monthly("max( orders.amount )", "order_date", orders, "")},
		{metric: "smallest_order", sql: monthly("MIN(orders.amount)", "order_date", orders, "")},
		{metric: "revenue_per_buyer", sql: monthly("SUM(orders.amount) / COUNT(DISTINCT orders.customer_id)", "order_date", orders, "")},
		{metric: "paid_orders", sql: monthly("COUNT(DISTINCT order_id)", "order_date", orders, "")},
		{metric: "revenue", dimensions: []string{"channel"}, sql: monthly("SUM(orders.amount)", "order_date", orders, "", "channel")},
		{metric: "revenue_per_buyer", dimensions: []string{"region"},
			sql: monthly("SUM(orders.amount) / COUNT(DISTINCT orders.customer_id)", "orders.order_date", withCustomer, "", "customers.region")},
	})
}

// The shapes of cube-js/cube-workshop's 2-data-modeling model (written out
// in adapters/import-cube/testdata/workshop-shapes): the cubes that extend
// others, expression members and a composite primary key are refused by
// name, the rest imports, validates, and answers what Cube's definitions
// compute: a count without sql is COUNT(*), {a} / {b} divides the two
// aggregates, a join is a LEFT JOIN on its columns.
func TestCubeWorkshopKeepsItsMeaning(t *testing.T) {
	r, err := cube.Read(readFixture(t, "../../adapters/import-cube/testdata/workshop-shapes"))
	b := catalogue(t, imported(t, "cube", r, err))
	var metrics []string
	for _, m := range b.Definitions().Metrics {
		metrics = append(metrics, m.Name)
	}
	require.Equal(t, []string{"orders_average_order_value", "orders_count", "orders_total_revenue"}, metrics)

	dir, db := generate(t, b, map[string]table{
		"orders": {rows: 600, cols: []column{{name: "o_orderkey", kind: "pk"}, {name: "o_orderdate", kind: "date", null: 30},
			{name: "o_totalprice", kind: "num", null: 25}, {name: "o_orderstatus", kind: "cat", vals: []string{"F", "O", "P"}, null: 12},
			{name: "o_custkey", kind: "fk", n: 50, null: 20}}},
		"customer": {rows: 45, cols: []column{{name: "c_custkey", kind: "pk"}, {name: "c_mktsegment", kind: "cat", n: 5, null: 9}}},
	})
	const orders = "orders"
	withCustomer := "orders o LEFT JOIN customer c ON o.o_custkey = c.c_custkey"
	check(t, b, dir, db, []question{
		{metric: "orders_count", sql: monthly("COUNT(*)", "o_orderdate", orders, "")},
		{metric: "orders_total_revenue", sql: monthly("SUM(o_totalprice)", "o_orderdate", orders, "")},
		{metric: "orders_average_order_value", sql: monthly("SUM(o_totalprice) / COUNT(*)", "o_orderdate", orders, "")},
		{metric: "orders_total_revenue", dimensions: []string{"status"}, sql: monthly("SUM(o_totalprice)", "o_orderdate", orders, "", "o_orderstatus")},
		{metric: "orders_average_order_value", dimensions: []string{"segment"},
			sql: monthly("SUM(o.o_totalprice) / COUNT(*)", "o.o_orderdate", withCustomer, "", "c.c_mktsegment")},
	})
}

// The shapes of dbt-labs/jaffle-shop (written out in
// adapters/import-dbt/testdata/jaffle-shop-shapes): a derived metric that
// divides one metric by another answers what the division computes, and a
// filter "= true" keeps the rows where the dimension is true.
func TestJaffleShopKeepsItsMeaning(t *testing.T) {
	r, err := dbt.Read(readFixture(t, "../../adapters/import-dbt/testdata/jaffle-shop-shapes"))
	b := catalogue(t, imported(t, "dbt", r, err))
	// Nine metrics import; the writer's catalogue check then refuses
	// orders by name, since it is also the bare name of a table.
	require.Len(t, b.Definitions().Metrics, 8)

	dir, db := generate(t, b, map[string]table{
		"customers": {rows: 400, cols: []column{{name: "customer_id", kind: "pk"}, {name: "first_ordered_at", kind: "date", null: 30},
			{name: "lifetime_spend_pretax", kind: "num", null: 25}, {name: "count_lifetime_orders", kind: "int", null: 20},
			{name: "customer_type", kind: "cat", vals: []string{"new", "returning"}}}},
		"orders": {rows: 500, cols: []column{{name: "order_id", kind: "pk"}, {name: "ordered_at", kind: "date", null: 30},
			{name: "is_food_order", kind: "bool", null: 10}, {name: "order_total", kind: "num", null: 20}}},
	})
	check(t, b, dir, db, []question{
		{metric: "average_order_value", sql: monthly("SUM(lifetime_spend_pretax) / SUM(count_lifetime_orders)", "first_ordered_at", "customers", "")},
		{metric: "average_order_value", dimensions: []string{"customer_type"},
			sql: monthly("SUM(lifetime_spend_pretax) / SUM(count_lifetime_orders)", "first_ordered_at", "customers", "", "customer_type")},
		{metric: "food_orders", sql: monthly("SUM(1)", "ordered_at", "orders", "is_food_order = true")},
		{metric: "order_total", sql: monthly("SUM(order_total)", "ordered_at", "orders", "")},
	})
}

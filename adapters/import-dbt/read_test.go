package dbt

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"sutura.dev/adapters/importread"
	"sutura.dev/domain"
)

// inputMetrics counts the metrics of YAML files independently of Read: a
// metric: document or an item of a metrics: list.
func inputMetrics(t *testing.T, files []importread.File) []string {
	t.Helper()
	var names []string
	for _, f := range files {
		if !strings.HasSuffix(f.Path, ".yaml") && !strings.HasSuffix(f.Path, ".yml") {
			continue
		}
		dec := yaml.NewDecoder(strings.NewReader(string(f.Data)))
		for {
			var doc map[string]any
			if err := dec.Decode(&doc); err != nil {
				break
			}
			if m, ok := doc["metric"].(map[string]any); ok {
				names = append(names, m["name"].(string))
			}
			if ms, ok := doc["metrics"].([]any); ok {
				for _, m := range ms {
					names = append(names, m.(map[string]any)["name"].(string))
				}
			}
		}
	}
	return names
}

func entriesOf(r *importread.Result, kind string) map[string]importread.Entry {
	out := map[string]importread.Entry{}
	for _, e := range r.Entries {
		if e.Kind == kind {
			out[e.Name] = e
		}
	}
	return out
}

func metricOf(t *testing.T, r *importread.Result, name string) domain.Metric {
	t.Helper()
	for _, m := range r.Definitions.Metrics {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no metric %s; entries: %+v", name, entriesOf(r, "metric")[name])
	return domain.Metric{}
}

// Every metric of the fixture is in the report exactly once, the ones the
// vocabulary holds are imported exactly, and each other one is refused for
// its own reason.
func TestReadFixture(t *testing.T) {
	files := fixture(t)
	r, err := Read(files)
	require.NoError(t, err)

	want := inputMetrics(t, files)
	require.Len(t, want, 59)
	var got []string
	for _, e := range r.Entries {
		if e.Kind == "metric" {
			got = append(got, e.Name)
			assert.Contains(t, []string{importread.Imported, importread.Refused}, e.Status, e.Name)
		}
	}
	assert.ElementsMatch(t, want, got, "every metric once")

	var imported []string
	for _, m := range r.Definitions.Metrics {
		imported = append(imported, m.Name)
	}
	assert.ElementsMatch(t, []string{"average_booking_value", "instant_bookings", "booking_value", "max_booking_value", "min_booking_value",
		"instant_booking_value", "average_instant_booking_value", "bookers", "booking_payments", "views", "listings", "lux_listings",
		"smallest_listing", "largest_listing", "revenue", "referred_bookings"}, imported)

	m := metricOf(t, r, "instant_booking_value")
	assert.Equal(t, domain.Metric{Name: "instant_booking_value", Model: "bookings_source", TimeColumn: "ds",
		Measure:         &domain.Measure{Simple: &domain.Term{Aggregate: domain.Sum, Column: "booking_value"}},
		Grains:          []domain.Grain{domain.Day, domain.Week, domain.Month, domain.Quarter, domain.Year},
		RequiredFilters: []domain.RequiredFilter{{Op: domain.IsTrue, Column: "is_instant"}}, Description: "booking value of instant bookings"}, m)
	assert.Equal(t, &domain.Term{CountIf: "is_instant"}, metricOf(t, r, "instant_bookings").Measure.Simple, "sum_boolean is count_if")
	assert.Equal(t, &domain.Term{Aggregate: domain.Count, Column: "listing_id"}, metricOf(t, r, "listings").Measure.Simple,
		"sum of 1 counts the primary entity's column")
	assert.Equal(t, "booking_paid_at", metricOf(t, r, "booking_payments").TimeColumn, "a measure's own agg_time_dimension")
	assert.Equal(t, "created_at", metricOf(t, r, "listings").TimeColumn, "the time dimension's expr is its column")

	metrics := entriesOf(r, "metric")
	for name, reason := range map[string]string{
		"bookings":                              "no primary entity with a column",
		"trailing_2_months_revenue":             "a cumulative metric",
		"booking_fees":                          "a derived metric",
		"median_booking_value":                  "median is not in the catalogue's vocabulary",
		"booking_value_p99":                     "percentile is not in the catalogue's vocabulary",
		"total_account_balance_first_day":       "non_additive_dimension",
		"identity_verifications":                "finer than a day",
		"booking_value_for_non_null_listing_id": "is not one of the forms sutura imports",
		"instant_booking_value_ratio":           "has its own filter",
		"bookings_per_booker":                   "its input bookings is refused",
	} {
		e := metrics[name]
		assert.Equal(t, importread.Refused, e.Status, name)
		assert.Contains(t, e.Reason, reason, name)
	}

	rels := map[string]domain.Relationship{}
	for _, rel := range r.Definitions.Relationships {
		rels[rel.Name] = rel
	}
	assert.Equal(t, domain.Relationship{Name: "bookings_source_listing_listings_latest", JoinType: domain.ManyToOne,
		Origin: domain.Endpoint{Model: "bookings_source", Column: "listing_id"}, Target: domain.Endpoint{Model: "listings_latest", Column: "listing_id"}},
		rels["bookings_source_listing_listings_latest"], "a foreign entity joins the primary entity many_to_one")
	assert.Equal(t, domain.OneToOne, rels["companies_user_users_latest"].JoinType, "a unique entity joins the primary entity one_to_one")

	again, err := Read(fixture(t))
	require.NoError(t, err)
	assert.Equal(t, r, again, "the same input reads the same")
}

// The fixture as committed names its schema $source_schema, a placeholder:
// no table path can be made of it, so every model is refused by name.
func TestReadFixtureWithPlaceholder(t *testing.T) {
	r, err := Read(readDir(t, "testdata/simple_semantic_manifest"))
	require.NoError(t, err)
	assert.Empty(t, r.Definitions.Models)
	assert.Empty(t, r.Definitions.Metrics)
	for _, e := range entriesOf(r, "semantic_model") {
		assert.Equal(t, importread.Refused, e.Status)
		assert.Contains(t, e.Reason, "not an identifier")
	}
	assert.Contains(t, entriesOf(r, "metric")["booking_value"].Reason, "its semantic model bookings_source is not imported")
}

// readProject reads a project made of the given files.
func readProject(t *testing.T, files map[string]string) (*importread.Result, error) {
	t.Helper()
	var fs []importread.File
	for p, text := range files {
		fs = append(fs, importread.File{Path: p, Data: []byte(text)})
	}
	return Read(fs)
}

const ordersModel = `
semantic_models:
  - name: orders
    description: One row per order.
    node_relation: {schema_name: shop, alias: orders}
    defaults: {agg_time_dimension: ordered_at}
    entities:
      - {name: order, type: primary, expr: order_id}
      - {name: customer, type: foreign, expr: customer_id}
    dimensions:
      - {name: ordered_at, type: time, type_params: {time_granularity: week}}
      - {name: status, type: categorical}
      - {name: is_paid, type: categorical}
      - {name: channel_upper, type: categorical, expr: "upper(channel)"}
    measures:
      - {name: order_total, agg: sum, expr: amount}
      - {name: order_count, agg: sum, expr: 1}
      - {name: row_count, agg: count, expr: "*"}
      - {name: paid_orders, agg: sum_boolean, expr: is_paid}
      - {name: buyers, agg: count_distinct, expr: customer_id}
      - {name: avg_total, agg: average, expr: amount}
      - {name: max_total, agg: max, expr: amount}
      - {name: min_total, agg: min, expr: amount}
      - {name: gross, agg: sum, expr: "amount + tax"}
      - {name: med, agg: median, expr: amount}
    dimensions_extra: ignored
`

const customersModel = `
semantic_model:
  name: customers
  model: ref('dim_customers')
  entities:
    - {name: customer, type: primary, expr: customer_id}
    - {name: account, type: unique, expr: account_id}
    - {name: person, type: natural}
  dimensions:
    - {name: region, type: categorical}
    - {name: signed_up, type: time, type_params: {time_granularity: day}}
  measures:
    - {name: customer_count, agg: count_distinct, expr: customer_id, agg_time_dimension: signed_up, create_metric: true}
---
semantic_model:
  name: accounts
  node_relation: {schema_name: shop, alias: accounts}
  primary_entity: account
  entities:
    - {name: account, type: primary, expr: account_id}
  dimensions:
    - {name: tier, type: categorical}
`

func simple(name, measure, filter string) string {
	s := "  - name: " + name + "\n    type: simple\n    type_params: {measure: " + measure + "}\n"
	if filter != "" {
		s += "    filter: " + filter + "\n"
	}
	return s
}

// Each measure, metric type and filter form of product §12 maps or is
// refused by name, in a project whose metrics use measures of other files.
func TestReadMapping(t *testing.T) {
	metrics := "metrics:\n" +
		simple("total", "order_total", "") +
		simple("orders", "order_count", "") +
		simple("rows", "row_count", "") +
		simple("paid", "paid_orders", "") +
		simple("buyers_n", "buyers", "") +
		simple("avg_order", "avg_total", "") +
		simple("biggest", "max_total", "") +
		simple("smallest", "min_total", "") +
		simple("gross_total", "gross", "") +
		simple("median_total", "med", "") +
		simple("completed", "order_total", `"{{ Dimension('order__status') }} = 'it''s done'"`) +
		simple("not_cancelled", "order_total", `"{{Dimension('order__status')}} != 'cancelled'"`) +
		simple("not_test", "order_total", `"{{ Dimension(\"order__status\") }} <> 'test'"`) +
		simple("paid_total", "order_total", `"{{ Dimension('order__is_paid') }} IS TRUE"`) +
		simple("paid_bare", "order_total", `"{{ Dimension('order__is_paid') }}"`) +
		simple("with_status", "order_total", `"{{ Dimension('order__status') }} is not null"`) +
		simple("two_filters", "order_total", `["{{ Dimension('order__status') }} = 'a'", "{{ Dimension('order__is_paid') }}"]`) +
		simple("in_list", "order_total", `"{{ Dimension('order__status') }} IN ('a', 'b')"`) +
		simple("joined_filter", "order_total", `"{{ Dimension('customer__region') }} = 'east'"`) +
		simple("path_filter", "order_total", `"{{ Dimension('order__customer__region') }} = 'east'"`) +
		simple("entity_path", "order_total", `"{{ Dimension('region', entity_path=['customer']) }} = 'east'"`) +
		simple("time_filter", "order_total", `"{{ TimeDimension('order__ordered_at', 'day') }} >= '2024-01-01'"`) +
		`  - name: avg_ratio
    type: ratio
    type_params: {numerator: total, denominator: orders}
  - name: filtered_ratio
    type: ratio
    type_params: {numerator: total, denominator: orders}
    filter: "{{ Dimension('order__status') }} = 'done'"
  - name: cross_ratio
    type: ratio
    type_params: {numerator: total, denominator: customer_count}
  - name: input_filter_ratio
    type: ratio
    type_params: {numerator: {name: total, filter: "{{ Dimension('order__is_paid') }}"}, denominator: orders}
  - name: filtered_input_ratio
    type: ratio
    type_params: {numerator: completed, denominator: orders}
  - name: spelled_out
    type: simple
    type_params: {measure: {name: order_total, fill_nulls_with: 0}}
  - name: timespine
    type: simple
    type_params: {measure: {name: order_total, join_to_timespine: true}}
  - name: conv
    type: conversion
    type_params: {conversion_type_params: {entity: customer, base_measure: order_count, conversion_measure: order_count}}
  - name: cumul
    type: cumulative
    type_params: {measure: order_total, window: 7 days}
  - name: derived_total
    type: derived
    type_params: {expr: total * 2, metrics: [{name: total}]}
  - name: new_style
    type: simple
    type_params:
      expr: amount
      metric_aggregation_params: {semantic_model: orders, agg: max}
`
	r, err := readProject(t, map[string]string{"models/orders.yml": ordersModel, "models/customers.yaml": customersModel, "metrics.yml": metrics})
	require.NoError(t, err)
	entries := entriesOf(r, "metric")
	term := func(name string) domain.Term {
		m := metricOf(t, r, name)
		require.NotNil(t, m.Measure.Simple, name)
		return *m.Measure.Simple
	}
	assert.Equal(t, domain.Term{Aggregate: domain.Sum, Column: "amount"}, term("total"))
	assert.Equal(t, domain.Term{Aggregate: domain.Count, Column: "order_id"}, term("orders"), "sum of 1 counts the primary entity's column")
	assert.Equal(t, domain.Term{Aggregate: domain.Count, Column: "order_id"}, term("rows"), "a count of rows too")
	assert.Equal(t, domain.Term{CountIf: "is_paid"}, term("paid"))
	assert.Equal(t, domain.Term{Aggregate: domain.CountDistinct, Column: "customer_id"}, term("buyers_n"))
	assert.Equal(t, domain.Term{Aggregate: domain.Avg, Column: "amount"}, term("avg_order"))
	assert.Equal(t, domain.Term{Aggregate: domain.Max, Column: "amount"}, term("biggest"))
	assert.Equal(t, domain.Term{Aggregate: domain.Min, Column: "amount"}, term("smallest"))
	assert.Equal(t, domain.Term{Aggregate: domain.Max, Column: "amount"}, term("new_style"))
	assert.Equal(t, domain.Term{Aggregate: domain.CountDistinct, Column: "customer_id"}, term("customer_count"), "create_metric")
	assert.Equal(t, []domain.Grain{domain.Week, domain.Month, domain.Quarter, domain.Year}, metricOf(t, r, "total").Grains,
		"the granularity and every coarser grain")
	assert.Equal(t, "signed_up", metricOf(t, r, "customer_count").TimeColumn)

	filters := func(name string) []domain.RequiredFilter { return metricOf(t, r, name).RequiredFilters }
	assert.Equal(t, []domain.RequiredFilter{{Op: domain.Equals, Column: "status", Value: "it's done"}}, filters("completed"))
	assert.Equal(t, []domain.RequiredFilter{{Op: domain.NotEquals, Column: "status", Value: "cancelled"}}, filters("not_cancelled"))
	assert.Equal(t, []domain.RequiredFilter{{Op: domain.NotEquals, Column: "status", Value: "test"}}, filters("not_test"))
	assert.Equal(t, []domain.RequiredFilter{{Op: domain.IsTrue, Column: "is_paid"}}, filters("paid_total"))
	assert.Equal(t, []domain.RequiredFilter{{Op: domain.IsTrue, Column: "is_paid"}}, filters("paid_bare"))
	assert.Equal(t, []domain.RequiredFilter{{Op: domain.IsNotNull, Column: "status"}}, filters("with_status"))
	assert.Len(t, filters("two_filters"), 2)

	ratio := metricOf(t, r, "avg_ratio").Measure.Ratio
	require.NotNil(t, ratio)
	assert.Equal(t, domain.Ratio{Numerator: domain.Term{Aggregate: domain.Sum, Column: "amount"},
		Denominator: domain.Term{Aggregate: domain.Count, Column: "order_id"}, ZeroDenominator: domain.YieldsNull}, *ratio,
		"dbt's ratio yields null on a zero denominator, as MetricFlow renders it")
	assert.Equal(t, []domain.RequiredFilter{{Op: domain.Equals, Column: "status", Value: "done"}}, filters("filtered_ratio"))

	for name, reason := range map[string]string{
		"gross_total":          "SQL, not a column",
		"median_total":         "median",
		"in_list":              "not one of the forms",
		"time_filter":          "not one of the forms",
		"joined_filter":        "joined model",
		"path_filter":          "path of entities",
		"entity_path":          "not one of the forms",
		"cross_ratio":          "different semantic models",
		"input_filter_ratio":   "has its own filter",
		"filtered_input_ratio": "has its own filter",
		"spelled_out":          "fill_nulls_with",
		"timespine":            "join_to_timespine",
		"conv":                 "conversion metric",
		"cumul":                "cumulative metric",
		"derived_total":        "derived metric",
	} {
		assert.Equal(t, importread.Refused, entries[name].Status, name)
		assert.Contains(t, entries[name].Reason, reason, name)
	}
	assert.NotContains(t, entries["completed"].Became, "done", "what a metric became never quotes a filter value")

	models := map[string]domain.Model{}
	for _, m := range r.Definitions.Models {
		models[m.Name] = m
	}
	assert.Equal(t, "dim_customers", models["customers"].Table, "ref('x') names the table x")
	assert.Equal(t, "shop.orders", models["orders"].Table, "node_relation's schema and alias")
	assert.Equal(t, []string{"order_id"}, models["orders"].PrimaryKey)
	parts := entriesOf(r, "entity")
	assert.Equal(t, importread.Refused, parts["customers.person"].Status)
	assert.Contains(t, parts["customers.person"].Reason, "natural entity")
	dims := entriesOf(r, "dimension")
	assert.Contains(t, dims["orders.channel_upper"].Reason, "SQL, not a column")
	assert.Contains(t, entriesOf(r, "semantic_model")["orders"].Notes, "key dimensions_extra is not read")

	var rels []string
	for _, rel := range r.Definitions.Relationships {
		rels = append(rels, rel.Name+" "+string(rel.JoinType))
	}
	assert.ElementsMatch(t, []string{"orders_customer many_to_one", "customers_account one_to_one"}, rels)
	var dimNames []string
	for _, d := range r.Dimensions {
		dimNames = append(dimNames, d.Model+"."+d.Name)
	}
	assert.ElementsMatch(t, []string{"orders.status", "orders.is_paid", "customers.region", "accounts.tier"}, dimNames)
}

// An input dbt itself would reject fails as a whole, with an error that
// names the file and line and never quotes the input; no input panics.
func TestReadMalformed(t *testing.T) {
	const planted = "ZZ-planted-77"
	ok := "semantic_models:\n  - name: m\n    node_relation: {schema_name: s, alias: t}\n    measures: [{name: x, agg: sum}]\n"
	for _, tc := range []struct {
		name, file, text, want string
	}{
		{"truncated YAML", "a.yml", "semantic_models:\n  - name: m\n    node_relation: {schema_name: s", "not valid YAML"},
		{"tab indentation", "a.yml", "semantic_models:\n\t- name: " + planted, "not valid YAML"},
		{"models not a list", "a.yml", "semantic_models: " + planted, "must be a list"},
		{"measures not a list", "a.yml", "semantic_models:\n  - name: m\n    node_relation: {schema_name: s, alias: t}\n    measures: " + planted, "must be a list"},
		{"name not text", "a.yml", "semantic_models:\n  - name: [" + planted + "]\n", "must be a text value"},
		{"model without name", "a.yml", "semantic_models:\n  - description: " + planted, "has no name"},
		{"duplicate model", "a.yml", ok + "  - name: m\n    node_relation: {schema_name: s, alias: u}\n", "names a semantic model again (first at a.yml:2)"},
		{"duplicate measure", "a.yml", ok + "  - name: n\n    node_relation: {schema_name: s, alias: u}\n    measures: [{name: x, agg: sum}]\n", "names a measure again"},
		{"duplicate metric", "a.yml", ok + "metrics:\n" + simple("q", "x", "") + simple("q", "x", ""), "names a metric again"},
		{"metric over a missing measure", "a.yml", ok + "metrics:\n" + simple("q", planted, ""), "names a measure that no semantic model defines"},
		{"ratio over a missing metric", "a.yml", ok + "metrics:\n  - {name: r, type: ratio, type_params: {numerator: " + planted + ", denominator: x}}\n", "names a metric that does not exist"},
		{"agg_time_dimension names nothing", "a.yml", "semantic_models:\n  - name: m\n    node_relation: {schema_name: s, alias: t}\n    measures: [{name: x, agg: sum, agg_time_dimension: " + planted + "}]\n" +
			"metrics:\n" + simple("q", "x", ""), "names no dimension of the model"},
		{"unknown metric type", "a.yml", ok + "metrics:\n  - {name: r, type: " + planted + ", type_params: {}}\n", "type must be simple"},
		{"manifest of an older shape", "semantic_manifest.json", `{"semantic_models": [], "metrics": []}`, "not a dbt semantic manifest of the current shape"},
		{"manifest not an object", "semantic_manifest.json", `["` + planted + `"]`, "expected one JSON object"},
		{"manifest truncated", "semantic_manifest.json", `{"semantic_models": [`, "not valid YAML or JSON"},
		{"no definitions", "a.yml", "models: []\n", "no file holds semantic_models"},
		{"alias bomb, never expanded", "a.yml", bomb(), "needs a name and an agg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := readProject(t, map[string]string{tc.file: tc.text})
			require.Error(t, err)
			assert.Nil(t, r)
			assert.ErrorIs(t, err, ErrMalformed)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), planted, "an error never quotes the input")
			var e *importread.Error
			if errors.As(err, &e) {
				assert.True(t, strings.HasPrefix(err.Error(), tc.file), "errors name the file: %s", err)
			}
		})
	}
}

// bomb is a small YAML file whose aliases expand to billions of values.
func bomb() string {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 10; i++ {
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	b.WriteString("semantic_models:\n  - name: m\n    node_relation: {schema_name: s, alias: t}\n    measures: *a9\n")
	return b.String()
}

// Files that hold no definitions are listed, not read; saved queries and
// the project configuration are listed with their reasons.
func TestReadListsOtherConstructs(t *testing.T) {
	r, err := readProject(t, map[string]string{
		"models/orders.yml":  ordersModel,
		"models/schema.yml":  "version: 2\nmodels:\n  - name: orders\n",
		"dbt_project.yml":    "name: shop\nmetrics:\n  +enabled: true\n",
		"saved_queries.yml":  "saved_query:\n  name: weekly\n  query_params: {metrics: [total]}\n",
		"project_config.yml": "project_configuration:\n  time_spines: []\n",
	})
	require.NoError(t, err)
	kinds := map[string]importread.Entry{}
	for _, e := range r.Entries {
		kinds[e.Kind] = e
	}
	assert.Equal(t, importread.Ignored, kinds["file"].Status)
	assert.Equal(t, "models/schema.yml", kinds["file"].File)
	assert.Equal(t, importread.Refused, kinds["saved_query"].Status)
	assert.Equal(t, importread.Ignored, kinds["project_configuration"].Status)
	assert.False(t, slices.ContainsFunc(r.Entries, func(e importread.Entry) bool { return e.File == "dbt_project.yml" }), "dbt_project.yml holds no definitions")
}

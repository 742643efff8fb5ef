package osi

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"sutura.dev/adapters/importread"
	"sutura.dev/domain"
)

func readFile(t *testing.T, path string) (*importread.Result, error) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return Read([]importread.File{{Path: path[strings.LastIndex(path, "/")+1:], Data: data}})
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
	t.Fatalf("no metric %s: %+v", name, entriesOf(r, "metric")[name])
	return domain.Metric{}
}

// inputMetrics lists the metrics of an OSI file independently of Read.
func inputMetrics(t *testing.T, path string) []string {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		SemanticModel []struct {
			Datasets []struct {
				Name    string
				Metrics []struct{ Name string }
			}
			Metrics []struct{ Name string }
		} `yaml:"semantic_model"`
	}
	require.NoError(t, yaml.Unmarshal(data, &doc))
	var out []string
	for _, m := range doc.SemanticModel {
		for _, x := range m.Metrics {
			out = append(out, x.Name)
		}
		for _, d := range m.Datasets {
			for _, x := range d.Metrics {
				out = append(out, d.Name+"."+x.Name)
			}
		}
	}
	return out
}

func metricEntries(r *importread.Result) []string {
	var out []string
	for _, e := range r.Entries {
		if e.Kind == "metric" {
			out = append(out, e.Name)
		}
	}
	return out
}

// The TPC-DS example of the OSI repository (spec 1.0): every metric is in
// the report exactly once, and none is imported, each for its own reason.
func TestReadTPCDS(t *testing.T) {
	const path = "testdata/tpcds_semantic_model.yaml"
	r, err := readFile(t, path)
	require.NoError(t, err)
	assert.ElementsMatch(t, inputMetrics(t, path), metricEntries(r), "every metric once")
	assert.Empty(t, r.Definitions.Metrics)
	m := entriesOf(r, "metric")
	assert.Contains(t, m["total_sales"].Reason, "dataset store_sales has no field with dimension.is_time")
	assert.Contains(t, m["customer_lifetime_value"].Reason, "different datasets (store_sales and customer)")
	assert.Contains(t, m["store_productivity"].Reason, "not one aggregate over one column")
	assert.Len(t, r.Definitions.Models, 5)
	assert.Len(t, r.Definitions.Relationships, 4)
	assert.Contains(t, entriesOf(r, "field")["customer.customer_full_name"].Reason, "computed")
	for _, d := range r.Definitions.Models {
		if d.Name == "date_dim" {
			assert.Equal(t, "tpcds.public.date_dim", d.Table)
		}
	}
}

// The shop (spec 0.x): each expression form, datatype, time rule and
// ai_context form of product §12 maps or is refused by name.
func TestReadShop(t *testing.T) {
	const path = "testdata/shop/shop.yaml"
	r, err := readFile(t, path)
	require.NoError(t, err)
	assert.ElementsMatch(t, inputMetrics(t, path), metricEntries(r), "every metric once")

	grains := []domain.Grain{domain.Day, domain.Week, domain.Month, domain.Quarter, domain.Year}
	assert.Equal(t, domain.Metric{Name: "revenue", Model: "orders", TimeColumn: "order_date", Grains: grains,
		Measure:     &domain.Measure{Simple: &domain.Term{Aggregate: domain.Sum, Column: "amount"}},
		Description: "Order amounts.\n\nRevenue is before refunds."}, metricOf(t, r, "revenue"))
	simple := func(name string) domain.Term { return *metricOf(t, r, name).Measure.Simple }
	assert.Equal(t, domain.Term{Aggregate: domain.Count, Column: "order_id"}, simple("order_count"))
	assert.Equal(t, domain.Term{Aggregate: domain.CountDistinct, Column: "customer_id"}, simple("buyers"))
	assert.Equal(t, domain.Term{Aggregate: domain.Avg, Column: "amount"}, simple("average_order"))
	assert.Equal(t, domain.Term{Aggregate: domain.Max, Column: "amount"}, simple("largest_order"))
	assert.Equal(t, domain.Term{Aggregate: domain.Min, Column: "amount"}, simple("smallest_order"))
	assert.Equal(t, domain.Term{Aggregate: domain.CountDistinct, Column: "order_id"}, simple("paid_orders"), "a dataset's metric, unqualified")
	assert.Equal(t, &domain.Ratio{Numerator: domain.Term{Aggregate: domain.Sum, Column: "amount"},
		Denominator: domain.Term{Aggregate: domain.CountDistinct, Column: "customer_id"}, ZeroDenominator: domain.Fails},
		metricOf(t, r, "revenue_per_buyer").Measure.Ratio, "a / b is plain SQL division: it fails on zero")
	assert.Equal(t, "orders placed", metricOf(t, r, "order_count").Description, "ai_context as a string")

	m := entriesOf(r, "metric")
	for name, reason := range map[string]string{
		"rows":                 "COUNT(*) in a model's metric names no dataset",
		"median_order":         "not one aggregate over one column",
		"taxed_revenue":        "its field orders.amount_with_tax is refused: its expression is computed",
		"net_revenue":          "not one aggregate",
		"tableau_only":         "only the ANSI_SQL dialect is read",
		"customers_per_region": "different datasets",
	} {
		assert.Equal(t, importread.Refused, m[name].Status, name)
		assert.Contains(t, m[name].Reason, reason, name)
	}
	assert.Contains(t, strings.Join(m["revenue"].Notes, " "), "examples")

	assert.Equal(t, []domain.Glossary{
		{Term: "sales", Synonyms: []string{"turnover", "Revenue"}, Means: domain.Meaning{Metric: "revenue"}},
		{Term: "customers who bought", Means: domain.Meaning{Metric: "buyers"}},
	}, r.Glossary, "a metric's synonyms become one glossary entry; a phrase already taken is left out")
	assert.Contains(t, strings.Join(entriesOf(r, "synonyms")["buyers"].Notes, " "), "already means metric revenue")

	models := map[string]*domain.Model{}
	for i := range r.Definitions.Models {
		models[r.Definitions.Models[i].Name] = &r.Definitions.Models[i]
	}
	col := func(model, name string) domain.ColumnType {
		c, ok := models[model].Column(name)
		require.True(t, ok, name)
		return c.Type
	}
	assert.Equal(t, domain.TypeDate, col("orders", "order_date"), "the datatype is the column's type")
	assert.Equal(t, domain.TypeDecimal, col("orders", "amount"))
	assert.Equal(t, domain.TypeBoolean, col("orders", "is_paid"))
	assert.Equal(t, domain.TypeText, col("customers", "region"))
	assert.Equal(t, "shop.orders", models["orders"].Table)
	assert.Equal(t, []domain.Relationship{{Name: "orders_customer", JoinType: domain.ManyToOne,
		Origin: domain.Endpoint{Model: "orders", Column: "customer_id"}, Target: domain.Endpoint{Model: "customers", Column: "customer_id"}}},
		r.Definitions.Relationships)
	var dims []string
	for _, d := range r.Dimensions {
		dims = append(dims, d.Model+"."+d.Name+"("+d.Column+")")
	}
	assert.Equal(t, []string{"orders.shipped_on(shipped_date)", "orders.channel(channel)", "orders.is_paid(is_paid)",
		"customers.region(region)", "customers.segment(segment)"}, dims, "is_time: false opts a date out of being the time column")
}

// The time rule: the one field with dimension.is_time, explicit or (0.x)
// implied by a temporal datatype; none, several, or a time of day is
// refused by name.
func TestReadTimeColumn(t *testing.T) {
	model := func(fields string) string {
		return "version: '0.1'\nsemantic_model:\n  - name: s\n    datasets:\n      - name: d\n        source: x.d\n        fields:\n" + fields +
			"          - {name: v, expression: v}\n    metrics:\n      - {name: m, expression: 'SUM(d.v)'}\n"
	}
	field := func(name, extra string) string {
		return "          - {name: " + name + ", expression: " + name + extra + "}\n"
	}
	for _, tc := range []struct{ name, fields, column, refused string }{
		{"explicit", field("t", ", dimension: {is_time: true}"), "t", ""},
		{"implied by datatype", field("t", ", datatype: DateTimeTz, dimension: {}"), "t", ""},
		{"opted out", field("t", ", datatype: Date, dimension: {is_time: false}"), "", "no field with dimension.is_time"},
		{"none", field("t", ""), "", "no field with dimension.is_time"},
		{"two", field("t", ", dimension: {is_time: true}") + field("u", ", dimension: {is_time: true}"), "", "has 2 fields with dimension.is_time (t, u)"},
		{"time of day", field("t", ", datatype: Time, dimension: {}"), "", "a time of day"},
		{"a year number", field("t", ", datatype: Integer, dimension: {is_time: true}"), "", "neither a date nor a timestamp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Read([]importread.File{{Path: "m.yaml", Data: []byte(model(tc.fields))}})
			require.NoError(t, err)
			if tc.refused != "" {
				assert.Contains(t, entriesOf(r, "metric")["m"].Reason, tc.refused)
				return
			}
			assert.Equal(t, tc.column, metricOf(t, r, "m").TimeColumn)
		})
	}
}

// Expression shapes of the specification's versions: {dialects: [...]},
// a bare list of dialect entries, and a string.
func TestReadExpressionShapes(t *testing.T) {
	doc := `semantic_model:
  - name: s
    datasets:
      - name: d
        source: d
        fields:
          - {name: t, expression: [{dialect: ANSI_SQL, expression: t}], dimension: {is_time: true}}
          - {name: v, expression: v}
    metrics:
      - {name: a, expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(d.v)}]}}
      - {name: b, expression: [{dialect: ANSI_SQL, expression: AVG(d.v)}]}
      - {name: c, expression: MIN(d.v)}
      - {name: e, expression: [{dialect: ANSI_SQL, aggregation_type: SUM, input_expr: d.v}]}
`
	r, err := Read([]importread.File{{Path: "m.yml", Data: []byte(doc)}})
	require.NoError(t, err)
	assert.Equal(t, domain.Sum, metricOf(t, r, "a").Measure.Simple.Aggregate)
	assert.Equal(t, domain.Avg, metricOf(t, r, "b").Measure.Simple.Aggregate)
	assert.Equal(t, domain.Min, metricOf(t, r, "c").Measure.Simple.Aggregate)
	assert.Equal(t, domain.Sum, metricOf(t, r, "e").Measure.Simple.Aggregate)
	assert.Equal(t, "d", r.Definitions.Models[0].Table)
}

func TestReadMalformed(t *testing.T) {
	const planted = "ZZ-planted-77"
	ds := "semantic_model:\n  - name: s\n    datasets:\n      - {name: d, source: d, fields: [{name: t, expression: t, dimension: {is_time: true}}]}\n"
	for _, tc := range []struct{ name, text, want string }{
		{"truncated", "semantic_model:\n  - name: s\n    datasets: [{name: d", "not valid YAML"},
		{"other version", "version: '" + planted + "'\n" + ds, "a spec version sutura does not read"},
		{"version 2", "version: '2.0'\n" + ds, "a spec version sutura does not read"},
		{"not a list", "semantic_model: " + planted, "must be a list"},
		{"dataset without source", "semantic_model:\n  - name: s\n    datasets: [{name: " + planted + "}]\n", "needs a name and a source"},
		{"duplicate dataset", ds + "      - {name: d, source: e}\n", "names a dataset again"},
		{"duplicate field", "semantic_model:\n  - name: s\n    datasets:\n      - {name: d, source: d, fields: [{name: f, expression: f}, {name: f, expression: g}]}\n", "names a field of dataset d again"},
		{"bad datatype", "semantic_model:\n  - name: s\n    datasets:\n      - {name: d, source: d, fields: [{name: f, expression: f, datatype: " + planted + "}]}\n", "not one of the specification's data types"},
		{"metric over a missing dataset", ds + "    metrics: [{name: m, expression: 'SUM(nope.v)'}]\n", "names a dataset that does not exist"},
		{"metric over a missing field", ds + "    metrics: [{name: m, expression: 'SUM(d.nope)'}]\n", "names a field dataset d does not declare"},
		{"relationship to a missing dataset", ds + "    relationships: [{name: r, from: d, to: nope, from_columns: [a], to_columns: [b]}]\n", "must name datasets"},
		{"relationship without columns", ds + "    relationships: [{name: r, from: d, to: d, from_columns: [], to_columns: [b]}]\n", "must list at least one column"},
		{"metric without expression", ds + "    metrics: [{name: m}]\n", "has no expression"},
		{"no semantic model", "datasets: []\n", "no YAML file holds semantic_model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Read([]importread.File{{Path: "m.yaml", Data: []byte(tc.text)}})
			require.Error(t, err)
			assert.Nil(t, r)
			assert.ErrorIs(t, err, ErrMalformed)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), planted)
		})
	}
}

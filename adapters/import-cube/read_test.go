package cube

import (
	"io/fs"
	"os"
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"sutura.dev/adapters/importread"
	"sutura.dev/domain"
)

// fixtureFiles reads the fixture as the caller of Read would: YAML files
// with their bytes, other files listed without.
func fixtureFiles(t *testing.T) []importread.File {
	return dirFiles(t, "testdata/schema-compiler")
}

// dirFiles reads a model directory as the caller of Read would.
func dirFiles(t *testing.T, dir string) []importread.File {
	t.Helper()
	var files []importread.File
	root := os.DirFS(dir)
	require.NoError(t, fs.WalkDir(root, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		f := importread.File{Path: p}
		if x := path.Ext(p); x == ".yml" || x == ".yaml" {
			f.Data, err = fs.ReadFile(root, p)
		}
		files = append(files, f)
		return err
	}))
	return files
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
	t.Fatalf("no metric %s", name)
	return domain.Metric{}
}

// Every measure of the fixture's YAML cubes is in the report exactly once;
// the two the vocabulary holds are imported exactly.
func TestReadFixture(t *testing.T) {
	files := fixtureFiles(t)
	r, err := Read(files)
	require.NoError(t, err)

	var want, got []string
	for _, f := range files {
		if f.Data == nil {
			continue
		}
		var doc struct {
			Cubes []struct {
				Name     string
				Measures []struct{ Name string }
			}
		}
		require.NoError(t, yaml.Unmarshal(f.Data, &doc))
		for _, c := range doc.Cubes {
			for _, m := range c.Measures {
				want = append(want, c.Name+"."+m.Name)
			}
		}
	}
	for _, e := range r.Entries {
		if e.Kind == "measure" {
			got = append(got, e.Name)
		}
	}
	assert.ElementsMatch(t, want, got, "every measure once")
	require.Len(t, want, 12)

	assert.Equal(t, domain.Metric{Name: "calendar_orders_completed_count", Model: "calendar_orders", TimeColumn: "created_at",
		Measure:         &domain.Measure{Simple: &domain.Term{Aggregate: domain.Count, Column: "id"}},
		Grains:          []domain.Grain{domain.Day, domain.Week, domain.Month, domain.Quarter, domain.Year},
		RequiredFilters: []domain.RequiredFilter{{Op: domain.Equals, Column: "status", Value: "completed"}}},
		metricOf(t, r, "calendar_orders_completed_count"))
	assert.Len(t, r.Definitions.Metrics, 2)

	m := entriesOf(r, "measure")
	for name, reason := range map[string]string{
		"calendar_orders.count_shifted":        "multi-stage",
		"calendar_orders.completed_percentage": "only {a} / {b}",
		"calendar_orders.total":                "rolling_window",
		"custom_calendar.count":                "time dimensions over columns",
		"orders.total_revenue":                 "no time dimension",
	} {
		assert.Equal(t, importread.Refused, m[name].Status, name)
		assert.Contains(t, m[name].Reason, reason, name)
	}
	assert.Contains(t, entriesOf(r, "join")["calendar_orders.custom_calendar_js"].Reason, "not among the YAML cubes read")
	assert.Equal(t, importread.Refused, entriesOf(r, "file")[""].Status)
	assert.Equal(t, "data-model.yml.jinja", entriesOf(r, "file")[""].File)
	assert.Equal(t, importread.Ignored, entriesOf(r, "view")["sp"].Status)
	assert.Equal(t, importread.Ignored, entriesOf(r, "hierarchy")["custom_calendar.Fiscal_Calendar_Hierarchy"].Status)
	assert.Contains(t, entriesOf(r, "dimension")["customers.genger"].Reason, "expression")

	rels := map[string]domain.Relationship{}
	for _, rel := range r.Definitions.Relationships {
		rels[rel.Name] = rel
	}
	assert.Equal(t, domain.Relationship{Name: "calendar_orders_custom_calendar", JoinType: domain.ManyToOne,
		Origin: domain.Endpoint{Model: "calendar_orders", Column: "created_at"}, Target: domain.Endpoint{Model: "custom_calendar", Column: "date_val"}},
		rels["calendar_orders_custom_calendar"], "{CUBE}.x = {other.member} joins the member's column")
	assert.Equal(t, domain.Endpoint{Model: "customers", Column: "id"}, rels["orders_customers"].Target, "{other}.y names a column")
}

func read(t *testing.T, files map[string]string) (*importread.Result, error) {
	t.Helper()
	var fs []importread.File
	for p, text := range files {
		fs = append(fs, importread.File{Path: p, Data: []byte(text)})
	}
	return Read(fs)
}

const shop = `cubes:
  - name: orders
    sqlTable: '"shop"."orders"'
    description: One row per order.
    joins:
      - {name: customers, sql: "{CUBE}.customer_id = {customers}.id", relationship: belongs_to}
      - {name: products, sql: "{CUBE.product_id} = {products.id}", relationship: many_to_one}
      - {name: stores, sql: '{stores}."id" = {CUBE}."store_id"', relationship: belongsTo}
      - {name: invoices, sql: "${CUBE}.id = ${invoices.order_id}", relationship: one_to_one}
      - {name: lines, sql: "{CUBE}.id = {lines}.order_id", relationship: has_many}
      - {name: notes, sql: "{CUBE}.id = {notes}.order_id AND {notes}.kind = 'x'", relationship: has_one}
      - {name: ghosts, sql: "{CUBE}.id = {ghosts}.id", relationship: many_to_one}
    dimensions:
      - {name: id, sql: id, type: number, primaryKey: true}
      - {name: customer_id, sql: customer_id, type: number}
      - {name: product_id, sql: "{CUBE}.product_id", type: number}
      - {name: store_id, sql: store_id, type: number}
      - {name: status, sql: "{CUBE}.status", type: string}
      - {name: state, sql: "{status}", type: string}
      - {name: is_paid, sql: paid, type: boolean}
      - {name: created_at, sql: created_at, type: time}
      - {name: label, sql: "upper(status)", type: string}
      - {name: where, sql: location, type: geo}
      - {name: lifetime, sql: "{lines.total}", type: number, sub_query: true}
    measures:
      - {name: count, type: count}
      - {name: counted_ids, sql: "{CUBE}.id", type: count}
      - {name: buyers, sql: "{CUBE.customer_id}", type: count_distinct}
      - {name: revenue, sql: amount, type: sum}
      - {name: avg_amount, sql: "{CUBE}.amount", type: avg}
      - {name: smallest, sql: amount, type: min}
      - {name: largest, sql: amount, type: max}
      - {name: completed, type: count, filters: [{sql: "{CUBE}.status = 'completed'"}, {sql: "{CUBE.state} = 'it''s'"}]}
      - {name: completed_revenue, sql: amount, type: sum, filters: [{sql: "{status} = 'completed'"}]}
      - {name: big, sql: amount, type: sum, filters: [{sql: "{CUBE}.amount > 100"}]}
      - {name: average, sql: "{revenue} / {count}", type: number}
      - {name: average_q, sql: "{CUBE.revenue} / {CUBE.count}", type: number}
      - {name: share, sql: "{completed} / {count}", type: number}
      - {name: pct, sql: "100.0 * {revenue} / {count}", type: number}
      - {name: other, sql: "{revenue} / {customers.count}", type: number}
      - {name: gross, sql: "amount + tax", type: sum}
      - {name: approx, sql: customer_id, type: count_distinct_approx}
      - {name: running, sql: amount, type: running_total}
      - {name: rolling, sql: amount, type: sum, rollingWindow: {trailing: 7 day}}
      - {name: staged, sql: "{revenue}", type: sum, multi_stage: true}
      - {name: lines_total, sql: "{lines.total}", type: sum}
    segments:
      - {name: sf, sql: "{CUBE}.city = 'SF'"}
    pre_aggregations:
      - {name: main, measures: [count]}
    access_policy:
      - {role: "*"}
  - name: customers
    sql: SELECT * FROM shop.customers
    dimensions:
      - {name: id, sql: id, type: number, primary_key: true}
      - {name: status, sql: status, type: string}
      - {name: signed_up, sql: signed_up, type: time}
      - {name: updated, sql: updated, type: time}
    measures:
      - {name: count, type: count}
  - name: products
    sql_table: shop.products
    dimensions: [{name: id, sql: id, type: number, primary_key: true}, {name: category, sql: category, type: string}]
  - name: stores
    sql_table: shop.stores
    dimensions: [{name: id, sql: id, type: number}]
  - name: invoices
    sql_table: shop.invoices
    dimensions: [{name: order_id, sql: order_id, type: number}]
  - name: lines
    sql_table: shop.lines
    dimensions: [{name: order_id, sql: order_id, type: number}]
    measures: [{name: total, sql: amount, type: sum}]
  - name: notes
    sql_table: shop.notes
    dimensions: [{name: order_id, sql: order_id, type: number}]
  - name: queried
    sql: SELECT id FROM shop.x WHERE y
views:
  - name: shop_view
    cubes: [{join_path: orders, includes: "*"}]
`

// Each measure type, filter form, join spelling and refusal of product
// §12 maps or is refused by name.
func TestReadMapping(t *testing.T) {
	r, err := read(t, map[string]string{"model/shop.yml": shop})
	require.NoError(t, err)
	term := func(name string) domain.Term {
		m := metricOf(t, r, "orders_"+name)
		require.NotNil(t, m.Measure.Simple, name)
		return *m.Measure.Simple
	}
	assert.Equal(t, domain.Term{Aggregate: domain.Count, Column: "id"}, term("count"), "count of the primary key")
	assert.Equal(t, domain.Term{Aggregate: domain.Count, Column: "id"}, term("counted_ids"))
	assert.Equal(t, domain.Term{Aggregate: domain.CountDistinct, Column: "customer_id"}, term("buyers"), "{CUBE.dim} is the dimension's column")
	assert.Equal(t, domain.Term{Aggregate: domain.Sum, Column: "amount"}, term("revenue"))
	assert.Equal(t, domain.Term{Aggregate: domain.Avg, Column: "amount"}, term("avg_amount"))
	assert.Equal(t, domain.Term{Aggregate: domain.Min, Column: "amount"}, term("smallest"))
	assert.Equal(t, domain.Term{Aggregate: domain.Max, Column: "amount"}, term("largest"))
	assert.Equal(t, []domain.RequiredFilter{{Op: domain.Equals, Column: "status", Value: "completed"}, {Op: domain.Equals, Column: "status", Value: "it's"}},
		metricOf(t, r, "orders_completed").RequiredFilters)
	assert.Equal(t, []domain.RequiredFilter{{Op: domain.Equals, Column: "status", Value: "completed"}}, metricOf(t, r, "orders_completed_revenue").RequiredFilters)
	for _, name := range []string{"orders_average", "orders_average_q"} {
		assert.Equal(t, &domain.Ratio{Numerator: domain.Term{Aggregate: domain.Sum, Column: "amount"}, Denominator: domain.Term{Aggregate: domain.Count, Column: "id"},
			ZeroDenominator: domain.Fails}, metricOf(t, r, name).Measure.Ratio, "{a} / {b} is a ratio that fails on zero, as SQL division does")
	}
	assert.Equal(t, "created_at", metricOf(t, r, "orders_count").TimeColumn)

	measures := entriesOf(r, "measure")
	for name, reason := range map[string]string{
		"orders.big":         "its filter is not <column> = 'value'",
		"orders.share":       "has its own filters",
		"orders.pct":         "only {a} / {b}",
		"orders.other":       "another cube",
		"orders.gross":       "expression",
		"orders.approx":      "approximate",
		"orders.running":     "running total",
		"orders.rolling":     "rolling_window",
		"orders.staged":      "multi-stage",
		"orders.lines_total": "another cube",
		"customers.count":    "2 time dimensions over columns (signed_up, updated)",
	} {
		assert.Equal(t, importread.Refused, measures[name].Status, name)
		assert.Contains(t, measures[name].Reason, reason, name)
	}
	dims := entriesOf(r, "dimension")
	assert.Contains(t, dims["orders.label"].Reason, "expression")
	assert.Contains(t, dims["orders.where"].Reason, "geo")
	assert.Contains(t, dims["orders.lifetime"].Reason, "sub_query")
	assert.Equal(t, importread.Imported, dims["orders.state"].Status, "a dimension over another dimension is its column")
	assert.Equal(t, importread.Refused, entriesOf(r, "segment")["orders.sf"].Status)
	assert.Equal(t, importread.Refused, entriesOf(r, "access_policy")["orders"].Status)
	assert.Equal(t, importread.Ignored, entriesOf(r, "pre_aggregation")["orders.main"].Status)
	assert.Equal(t, importread.Ignored, entriesOf(r, "view")["shop_view"].Status)
	assert.Contains(t, entriesOf(r, "cube")["queried"].Reason, "SQL query")

	rels := map[string]domain.Relationship{}
	for _, rel := range r.Definitions.Relationships {
		rels[rel.Name] = rel
	}
	ep := func(m, c string) domain.Endpoint { return domain.Endpoint{Model: m, Column: c} }
	assert.Equal(t, domain.Relationship{Name: "orders_customers", JoinType: domain.ManyToOne, Origin: ep("orders", "customer_id"), Target: ep("customers", "id")}, rels["orders_customers"])
	assert.Equal(t, domain.Relationship{Name: "orders_products", JoinType: domain.ManyToOne, Origin: ep("orders", "product_id"), Target: ep("products", "id")}, rels["orders_products"])
	assert.Equal(t, domain.Relationship{Name: "orders_stores", JoinType: domain.ManyToOne, Origin: ep("orders", "store_id"), Target: ep("stores", "id")}, rels["orders_stores"],
		"quoted identifiers, sides swapped, the legacy belongsTo")
	assert.Equal(t, domain.Relationship{Name: "orders_invoices", JoinType: domain.OneToOne, Origin: ep("orders", "id"), Target: ep("invoices", "order_id")}, rels["orders_invoices"])
	assert.Equal(t, domain.Relationship{Name: "orders_lines", JoinType: domain.ManyToOne, Origin: ep("lines", "order_id"), Target: ep("orders", "id")}, rels["orders_lines"],
		"has_many is read from the other side")
	joins := entriesOf(r, "join")
	assert.Contains(t, joins["orders.notes"].Reason, "not an equality of two columns")
	assert.Contains(t, joins["orders.ghosts"].Reason, "not among the YAML cubes read")

	models := map[string]*domain.Model{}
	for i := range r.Definitions.Models {
		models[r.Definitions.Models[i].Name] = &r.Definitions.Models[i]
	}
	assert.Equal(t, "shop.orders", models["orders"].Table, "a quoted sql_table")
	assert.Equal(t, "shop.customers", models["customers"].Table, "SELECT * FROM t is the table t")
	assert.Equal(t, []string{"id"}, models["orders"].PrimaryKey)
	col, _ := models["orders"].Column("status")
	assert.Equal(t, domain.TypeText, col.Type)
	paid, _ := models["orders"].Column("paid")
	assert.Equal(t, domain.TypeBoolean, paid.Type)
	var dimNames []string
	for _, d := range r.Dimensions {
		if d.Model == "orders" {
			dimNames = append(dimNames, d.Name)
		}
	}
	assert.Equal(t, []string{"id", "customer_id", "product_id", "store_id", "status", "state", "is_paid"}, dimNames)
}

// A file that is not plain YAML is refused as a whole, by name, and
// nothing of it is read.
func TestReadRefusesTemplatedFiles(t *testing.T) {
	r, err := read(t, map[string]string{
		"model/a.yml":         "cubes:\n  - name: a\n    sql_table: t\n    dimensions: [{name: d, sql: d, type: time}]\n    measures: [{name: n, sql: x, type: sum}]\n",
		"model/b.yml":         "cubes:\n{% for c in cubes %}\n  - name: {{ c }}\n{% endfor %}\n",
		"model/c.yml.jinja":   "cubes: []\n",
		"model/d.js":          "cube(`d`, {})\n",
		"model/globals.py":    "x = 1\n",
		"model/README.md":     "# notes\n",
		"model/e.yml":         "title: not a model\n",
		"model/views/f.yaml":  "views: [{name: v, cubes: []}]\n",
		"model/g.yml":         "cubes:\n  - name: g\n    sql_table: t\n    dimensions: [{name: x, sql: '{# comment #}', type: string}]\n",
		"model/h.yaml.jinja2": "cubes: []\n",
	})
	require.NoError(t, err)
	files := map[string]importread.Entry{}
	for _, e := range r.Entries {
		if e.Kind == "file" {
			files[e.File] = e
		}
	}
	assert.Contains(t, files["model/b.yml"].Reason, "templated (Jinja")
	assert.Contains(t, files["model/c.yml.jinja"].Reason, "templated (Jinja)")
	assert.Contains(t, files["model/d.js"].Reason, "JavaScript")
	assert.Contains(t, files["model/globals.py"].Reason, "Python")
	assert.Contains(t, files["model/g.yml"].Reason, "templated")
	assert.Equal(t, importread.Ignored, files["model/e.yml"].Status)
	assert.NotContains(t, files, "model/README.md")
	assert.Len(t, r.Definitions.Metrics, 1)
	for _, e := range r.Entries {
		if e.File == "model/b.yml" {
			assert.Equal(t, "file", e.Kind, "nothing of a refused file is read")
		}
	}
}

// Only an input that cannot be read at all fails as a whole.
func TestReadMalformed(t *testing.T) {
	const planted = "ZZ-planted-77"
	for _, tc := range []struct{ name, text, want string }{
		{"truncated", "cubes:\n  - name: a\n    sql_table: [t", "not valid YAML"},
		{"cubes not a list", "cubes: " + planted, "must be a list"},
		{"no cubes", "title: x\n", "no YAML file holds cubes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := read(t, map[string]string{"m.yml": tc.text})
			require.Error(t, err)
			assert.Nil(t, r)
			assert.ErrorIs(t, err, ErrMalformed)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), planted)
			assert.False(t, strings.Contains(err.Error(), "\x00"))
		})
	}
}

// Every problem that belongs to one cube, view, member or join refuses
// that construct by name in the report, and the import goes on: the good
// cube beside it still imports its metric.
func TestReadRefusesEachConstruct(t *testing.T) {
	const planted = "ZZ-planted-77"
	good := "cubes:\n  - name: good\n    sql_table: t\n    dimensions: [{name: d, sql: d, type: time}, {name: id, sql: id, type: number, primary_key: true}]\n" +
		"    measures: [{name: n, type: count}]\n"
	ok := "  - name: a\n    sql_table: t\n    dimensions: [{name: d, sql: d, type: time}]\n"
	for _, tc := range []struct{ name, text, kind, entry, want string }{
		{"cube without name", "  - sql_table: " + planted + "\n", "cube", "", "it has no name"},
		{"cube not a mapping", "  - " + planted + "\n", "cube", "", "not a mapping with a name"},
		{"cube without table", "  - name: a\n", "cube", "a", "has neither sql_table nor sql"},
		{"extends", "  - name: a\n    extends: good\n", "cube", "a", "it extends another cube"},
		{"duplicate cube", "  - name: good\n    sql_table: t\n", "cube", "good", "names a cube again (first at m.yml:2)"},
		{"bad text", "  - name: a\n    sql_table: {x: " + planted + "}\n", "cube", "a", "must be a text value"},
		{"duplicate measure", ok + "    measures: [{name: n, type: count}, {name: n, type: count}]\n", "measure", "a.n", "names a measure of cube a again"},
		{"measure without type", ok + "    measures: [{name: n, sql: d}]\n", "measure", "a.n", "it has no type"},
		{"bad dimension type", "  - name: a\n    sql_table: t\n    dimensions: [{name: d, sql: d, type: " + planted + "}]\n", "dimension", "a.d", "its type is not"},
		{"bad measure type", ok + "    measures: [{name: n, sql: d, type: " + planted + "}]\n", "measure", "a.n", "not a measure type"},
		{"missing member", ok + "    measures: [{name: n, sql: '{nope}', type: sum}]\n", "measure", "a.n", "references a member cube a does not define"},
		{"bad relationship", ok + "    joins: [{name: good, sql: x, relationship: " + planted + "}]\n", "join", "a.good", "its relationship is not"},
		{"join without name", ok + "    joins: [{sql: x, relationship: many_to_one}]\n", "join", "", "it has no name"},
		{"view without name", "views:\n  - cubes: []\n", "view", "", "it has no name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := read(t, map[string]string{"m.yml": good + tc.text})
			require.NoError(t, err)
			var found bool
			for _, e := range r.Entries {
				assert.NotContains(t, e.Reason, planted, "a reason never quotes the input")
				if e.Kind == tc.kind && e.Name == tc.entry && e.Status == importread.Refused && strings.Contains(e.Reason, tc.want) {
					found = true
				}
			}
			assert.True(t, found, "a %s %q refused because %s, in %v", tc.kind, tc.entry, tc.want, r.Entries)
			require.NotEmpty(t, r.Definitions.Metrics)
			assert.Equal(t, "good_n", r.Definitions.Metrics[0].Name, "the rest is imported")
		})
	}
}

// A composite primary key is recorded as such; the cube is still
// measured, and a relationship to one of its columns is refused by name.
func TestCompositePrimaryKey(t *testing.T) {
	r, err := read(t, map[string]string{"m.yml": `
cubes:
  - name: stock
    sql_table: shop.stock
    measures: [{name: count, type: count}, {name: units, type: sum, sql: units}]
    dimensions:
      - {name: part, sql: part_id, type: number, primary_key: true}
      - {name: supplier, sql: supplier_id, type: number, primary_key: true}
      - {name: counted_on, sql: counted_on, type: time}
    joins:
      - {name: parts, relationship: many_to_one, sql: "{CUBE}.part_id = {parts}.part_id"}
  - name: parts
    sql_table: shop.parts
    dimensions: [{name: id, sql: part_id, type: number, primary_key: true}]
    joins:
      - {name: stock, relationship: one_to_many, sql: "{CUBE}.part_id = {stock}.part_id"}
      - {name: stock, relationship: one_to_one, sql: "{CUBE}.part_id = {stock.part}"}
`})
	require.NoError(t, err)
	models := map[string]domain.Model{}
	for _, m := range r.Definitions.Models {
		models[m.Name] = m
	}
	assert.Equal(t, []string{"part_id", "supplier_id"}, models["stock"].PrimaryKey)
	var metrics []string
	for _, m := range r.Definitions.Metrics {
		metrics = append(metrics, m.Name)
	}
	assert.Equal(t, []string{"stock_count", "stock_units"}, metrics, "a cube with a composite key is still measured")
	require.Len(t, r.Definitions.Relationships, 1)
	assert.Equal(t, "stock_parts", r.Definitions.Relationships[0].Name, "a relationship from it to a single key stands")
	var refused []string
	for _, e := range r.Entries {
		if e.Kind == "join" && e.Status == importread.Refused {
			refused = append(refused, e.Name+": "+e.Reason)
		}
	}
	assert.Equal(t, []string{"parts.stock: cube stock has a composite primary key (part_id, supplier_id), so one of its columns is no key this relationship can join to"}, refused)
}

// The shapes of cube-js/cube-workshop's 2-data-modeling model
// (testdata/SOURCE.md says why they are written out): every cube that
// does not extend another imports, each refused construct is refused by
// name, and the import goes on.
func TestReadWorkshop(t *testing.T) {
	r, err := Read(dirFiles(t, "testdata/workshop-shapes"))
	require.NoError(t, err)
	status := func(kind string) map[string]string {
		out := map[string]string{}
		for name, e := range entriesOf(r, kind) {
			out[name] = e.Status
			if e.Status != importread.Imported {
				out[name] += ": " + e.Reason
			}
		}
		return out
	}
	const extends = "refused: it extends another cube; inheritance is not read, so write the cube out in full"
	assert.Equal(t, map[string]string{"customers": "imported", "line_items": "imported", "nations": "imported", "orders": "imported",
		"part_suppliers": "imported", "parts": "imported", "regions": "imported", "suppliers": "imported",
		"customer_nations": extends, "supplier_nations": extends, "customer_regions": extends, "supplier_regions": extends}, status("cube"))
	var metrics []string
	for _, m := range r.Definitions.Metrics {
		metrics = append(metrics, m.Name)
	}
	assert.Equal(t, []string{"orders_count", "orders_total_revenue", "orders_average_order_value"}, metrics)
	measures := status("measure")
	for name, why := range map[string]string{
		"line_items.total_sales_amount":    "its sql is an expression",
		"line_items.discount_rate":         "only {a} / {b} over two plain measures",
		"customers.average_customer_value": "it references dimension lifetime_value, which is refused",
		"line_items.count":                 "no time dimension over a column",
		"part_suppliers.count":             "no time dimension over a column",
	} {
		assert.Contains(t, measures[name], why, name)
	}
	assert.Contains(t, status("dimension")["orders.items_in_order"], "sub_query")
	assert.Contains(t, status("join")["customers.customer_nations"], "the cube it joins, customer_nations, is not imported: it extends another cube")
	for _, m := range r.Definitions.Models {
		if m.Name == "part_suppliers" {
			assert.Equal(t, []string{"ps_partkey", "ps_suppkey"}, m.PrimaryKey, "a composite primary key is recorded as such")
		}
	}
}

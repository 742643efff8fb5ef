package engine

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

// demoDir is the committed demo data set.
const demoDir = "../examples/demo/data"

// demoModels are the demo catalogue's models, transcribed from
// examples/demo/catalog/models.
var demoModels = []domain.Model{
	{Name: "orders", Source: "demo", Table: "orders", Columns: []domain.ModelColumn{
		col("order_id", domain.TypeInteger), col("order_date", domain.TypeDate), col("customer_id", domain.TypeInteger),
		col("product_id", domain.TypeInteger), col("channel", domain.TypeText), col("status", domain.TypeText),
		col("payment_method", domain.TypeText), col("is_paid", domain.TypeBoolean), col("quantity", domain.TypeInteger),
		col("gross_amount_cents", domain.TypeInteger), col("discount_cents", domain.TypeInteger),
		col("net_amount_cents", domain.TypeInteger), col("collected_cents", domain.TypeInteger),
		col("shipped_date", domain.TypeDate), col("dispatch_days", domain.TypeInteger), col("is_returned", domain.TypeBoolean),
	}},
	{Name: "customers", Source: "demo", Table: "customers", Columns: []domain.ModelColumn{
		col("customer_id", domain.TypeInteger), col("region_id", domain.TypeInteger), col("segment", domain.TypeText), col("signup_date", domain.TypeDate),
	}},
	{Name: "regions", Source: "demo", Table: "regions", Columns: []domain.ModelColumn{
		col("region_id", domain.TypeInteger), col("region_name", domain.TypeText),
	}},
	{Name: "products", Source: "demo", Table: "products", Columns: []domain.ModelColumn{
		col("product_id", domain.TypeInteger), col("product_name", domain.TypeText), col("category", domain.TypeText), col("unit_price_cents", domain.TypeInteger),
	}},
}

func demoTable(model, alias string) domain.Table {
	for _, m := range demoModels {
		if m.Name == model {
			return domain.Table{Model: m.Name, Path: m.TableParts(), Alias: alias, Columns: m.Columns}
		}
	}
	panic("no demo model " + model)
}

func demoEngine(t testing.TB) *Engine {
	e, err := New(context.Background(), Config{Source: "demo", Files: os.DirFS(demoDir), Models: demoModels})
	require.NoError(t, err)
	return e
}

var (
	notCancelled = domain.RequiredFilter{Op: domain.NotEquals, Column: "status", Value: "cancelled"}
	isPaid       = domain.RequiredFilter{Op: domain.IsTrue, Column: "is_paid"}
	completed    = domain.RequiredFilter{Op: domain.Equals, Column: "status", Value: "completed"}
)

// TestDemoAnchors re-runs every anchor of the demo catalogue.
func TestDemoAnchors(t *testing.T) {
	e := demoEngine(t)
	require.NoError(t, e.Validate(context.Background()))
	tests := []struct {
		metric     domain.MetricRef
		model      string
		timeColumn string
		grain      domain.Grain
		start, end string
		want       string
	}{
		{metric("net_sales", sum("net_amount_cents"), notCancelled, isPaid), "orders", "order_date", domain.Year, "2025-01-01", "2026-01-01", "24032720"},
		{metric("gross_sales", sum("gross_amount_cents"), notCancelled), "orders", "order_date", domain.Year, "2025-01-01", "2026-01-01", "25305700"},
		{metric("order_count", count("order_id"), notCancelled), "orders", "order_date", domain.Year, "2025-01-01", "2026-01-01", "4841"},
		{metric("discounts_given", sum("discount_cents"), notCancelled), "orders", "order_date", domain.Year, "2025-01-01", "2026-01-01", "1217620"},
		{metric("collected_payments", sum("collected_cents"), isPaid), "orders", "order_date", domain.Year, "2025-01-01", "2026-01-01", "22202271"},
		{metric("largest_order_value", simple(domain.Max, "net_amount_cents"), isPaid), "orders", "order_date", domain.Year, "2025-01-01", "2026-01-01", "106800"},
		{metric("smallest_order_value", simple(domain.Min, "net_amount_cents"), isPaid), "orders", "order_date", domain.Year, "2025-01-01", "2026-01-01", "560"},
		{metric("dispatched_orders", count("order_id"), domain.RequiredFilter{Op: domain.IsNotNull, Column: "shipped_date"}), "orders", "shipped_date", domain.Year, "2025-01-01", "2026-01-01", "4852"},
		{metric("active_customers", simple(domain.CountDistinct, "customer_id"), isPaid), "orders", "order_date", domain.Quarter, "2025-04-01", "2025-07-01", "616"},
		{metric("returned_orders", countIf("is_returned"), completed), "orders", "order_date", domain.Year, "2025-01-01", "2026-01-01", "310"},
		{metric("units_sold", sum("quantity"), completed), "orders", "order_date", domain.Year, "2025-01-01", "2026-01-01", "9363"},
		{metric("slowest_dispatch_days", simple(domain.Max, "dispatch_days"),
			domain.RequiredFilter{Op: domain.Equals, Column: "channel", Value: "online"},
			domain.RequiredFilter{Op: domain.IsNotNull, Column: "shipped_date"}), "orders", "order_date", domain.Month, "2025-12-01", "2026-01-01", "8"},
		{metric("new_customers", count("customer_id")), "customers", "signup_date", domain.Year, "2025-01-01", "2026-01-01", "429"},
	}
	for _, tc := range tests {
		t.Run(tc.metric.Name, func(t *testing.T) {
			leg := domain.Leg{Source: "demo", Base: demoTable(tc.model, "t0"), TimeColumn: tc.timeColumn, Metrics: []domain.MetricRef{tc.metric}}
			got := run(t, e, mkPlan(t, tc.grain, tc.start, tc.end, leg))
			require.Equal(t, [][]string{{tc.start, tc.want}}, got)
		})
	}
}

// TestDemoAgainstReference compares a grouped, filtered, two-hop answer
// with a row-by-row evaluation of the CSV text.
func TestDemoAgainstReference(t *testing.T) {
	e := demoEngine(t)
	leg := domain.Leg{
		Source: "demo", Base: demoTable("orders", "t0"), TimeColumn: "order_date",
		Joins: []domain.Join{
			{Relationship: "order_customer", To: demoTable("customers", "t1"), FromAlias: "t0", FromColumn: "customer_id", ToColumn: "customer_id"},
			{Relationship: "customer_region", To: demoTable("regions", "t2"), FromAlias: "t1", FromColumn: "region_id", ToColumn: "region_id"},
			{Relationship: "order_product", To: demoTable("products", "t3"), FromAlias: "t0", FromColumn: "product_id", ToColumn: "product_id"},
		},
		Dimensions: []domain.DimensionRef{dim("area", "t2", "region_name"), dim("product_category", "t3", "category")},
		Filters:    []domain.FilterRef{filter(domain.OpIn, "t0", "channel", "online"), filter(domain.OpNotIn, "t3", "category", "Garden")},
		Metrics: []domain.MetricRef{
			metric("net_sales", sum("net_amount_cents"), notCancelled, isPaid),
			metric("returned_orders", countIf("is_returned"), completed),
		},
	}
	got := run(t, e, mkPlan(t, domain.Month, "2025-01-01", "2025-07-01", leg))

	orders, customers, regions, products := readCSV(t, "orders"), readCSV(t, "customers"), readCSV(t, "regions"), readCSV(t, "products")
	byKey := func(rows []map[string]string, k string) map[string]map[string]string {
		m := map[string]map[string]string{}
		for _, r := range rows {
			m[r[k]] = r
		}
		return m
	}
	cust, reg, prod := byKey(customers, "customer_id"), byKey(regions, "region_id"), byKey(products, "product_id")
	type agg struct {
		net, returned     int64
		netRows, retRows  int
		area, cat, period string
	}
	groups := map[string]*agg{}
	for _, o := range orders {
		d, err := domain.ParseDate(o["order_date"])
		require.NoError(t, err)
		if o["order_date"] < "2025-01-01" || o["order_date"] >= "2025-07-01" || o["channel"] != "online" {
			continue
		}
		area, cat := "null", "null"
		if c, ok := cust[o["customer_id"]]; ok && c["region_id"] != "" {
			if r, ok := reg[c["region_id"]]; ok {
				area = r["region_name"]
			}
		}
		if p, ok := prod[o["product_id"]]; ok {
			cat = p["category"]
		}
		if cat == "Garden" {
			continue
		}
		netOK := o["status"] != "" && o["status"] != "cancelled" && o["is_paid"] == "true"
		retOK := o["status"] == "completed"
		if !netOK && !retOK {
			continue
		}
		period := domain.Month.Truncate(d).String()
		k := area + "|" + cat + "|" + period
		g := groups[k]
		if g == nil {
			g = &agg{area: area, cat: cat, period: period}
			groups[k] = g
		}
		if netOK {
			v, err := strconv.ParseInt(o["net_amount_cents"], 10, 64)
			require.NoError(t, err)
			g.net += v
			g.netRows++
		}
		if retOK {
			g.retRows++
			if o["is_returned"] == "true" {
				g.returned++
			}
		}
	}
	var want [][]string
	for _, g := range groups {
		net, ret := "null", "null"
		if g.netRows > 0 {
			net = strconv.FormatInt(g.net, 10)
		}
		if g.retRows > 0 {
			ret = strconv.FormatInt(g.returned, 10)
		}
		want = append(want, []string{g.area, g.cat, g.period, net, ret})
	}
	nullsLast := func(a, b string) bool {
		if a == "null" || b == "null" {
			return a != "null" && b == "null"
		}
		return a < b
	}
	sort.Slice(want, func(i, j int) bool {
		for k := 0; k < 3; k++ {
			if want[i][k] != want[j][k] {
				return nullsLast(want[i][k], want[j][k])
			}
		}
		return false
	})
	require.NotEmpty(t, want)
	assert.Equal(t, want, got)
}

func readCSV(t *testing.T, table string) []map[string]string {
	f, err := os.Open(filepath.Join(demoDir, table+".csv"))
	require.NoError(t, err)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

package domain

import "testing"

// fixture returns a small, consistent catalogue, built afresh on every call
// so that a test may change it (and NewBundle may sort it) freely.
//
//	order_lines --order_lines_rel (many_to_one)--> orders
//	orders --orders_to_lines (one_to_many)--> order_lines
//	orders --order_customer (many_to_one)--> customers --customer_segment (many_to_one)--> segments
//	stores --store_orders (one_to_many)--> orders
func fixture(t testing.TB) (Definitions, Knowledge) {
	t.Helper()
	cols := func(names ...string) []ModelColumn {
		var out []ModelColumn
		for _, n := range names {
			out = append(out, ModelColumn{Name: n})
		}
		return out
	}
	orders := Model{
		Name: "orders", Source: "warehouse", Table: "sales.orders",
		Columns: []ModelColumn{
			{Name: "order_id", Type: TypeInteger},
			{Name: "customer_id"},
			{Name: "store_id"},
			{Name: "ordered_at", Type: TypeDate, Description: "When the order was placed."},
			{Name: "amount", Type: TypeDecimal},
			{Name: "status", Type: TypeText},
			{Name: "is_paid", Type: TypeBoolean},
			{Name: "channel", Type: TypeText},
		},
		PrimaryKey:  []string{"order_id"},
		Description: "One row per order.",
	}
	defs := Definitions{
		Models: []Model{
			orders,
			{Name: "customers", Source: "warehouse", Table: "sales.customers", Columns: cols("customer_id", "region", "segment_id"), Description: "Customers."},
			{Name: "segments", Source: "crm", Table: "crm.public.segments", Columns: cols("segment_id", "segment_name")},
			{Name: "stores", Source: "warehouse", Table: "stores_dim", Columns: cols("store_id", "city")},
			{Name: "order_lines", Source: "warehouse", Table: "sales.order_lines", Columns: cols("line_id", "order_id", "qty")},
		},
		Relationships: []Relationship{
			{Name: "order_customer", Origin: Endpoint{"orders", "customer_id"}, Target: Endpoint{"customers", "customer_id"}, JoinType: ManyToOne},
			{Name: "customer_segment", Origin: Endpoint{"customers", "segment_id"}, Target: Endpoint{"segments", "segment_id"}, JoinType: ManyToOne},
			{Name: "store_orders", Origin: Endpoint{"stores", "store_id"}, Target: Endpoint{"orders", "store_id"}, JoinType: OneToMany},
			{Name: "order_lines_rel", Origin: Endpoint{"order_lines", "order_id"}, Target: Endpoint{"orders", "order_id"}, JoinType: ManyToOne},
			{Name: "orders_to_lines", Origin: Endpoint{"orders", "order_id"}, Target: Endpoint{"order_lines", "order_id"}, JoinType: OneToMany},
		},
		Metrics: []Metric{
			{
				Name:       "net_sales",
				Model:      "orders",
				Measure:    &Measure{Simple: &Term{Aggregate: Sum, Column: "amount"}},
				TimeColumn: "ordered_at",
				Grains:     []Grain{Day, Month, Quarter},
				Dimensions: []Dimension{
					{Name: "channel", Column: "channel", Values: []string{"web", "shop"}, Filterable: true},
					{Name: "region", Column: "region", Via: []string{"order_customer"}, Values: []string{"east", "west", "North East"}, Filterable: true},
					{Name: "segment", Column: "segment_name", Via: []string{"order_customer", "customer_segment"}},
					{Name: "city", Column: "city", Via: []string{"store_orders"}}, // one_to_many walked backwards is many_to_one
				},
				RequiredFilters: []RequiredFilter{
					{Op: Equals, Column: "status", Value: "complete"},
					{Op: IsTrue, Column: "is_paid"},
				},
				Anchor:      &Anchor{Range: Range{Start: DateOf(2026, 1, 1), End: DateOf(2026, 4, 1)}, Value: "1234.5"},
				Description: "Sales net of refunds.",
			},
			{
				Name:  "paid_ratio",
				Model: "orders",
				Measure: &Measure{Ratio: &Ratio{
					Numerator:       Term{CountIf: "is_paid"},
					Denominator:     Term{Aggregate: Count, Column: "order_id"},
					ZeroDenominator: YieldsNull,
				}},
				TimeColumn: "ordered_at",
				Grains:     []Grain{Month},
				Audience:   Audience{Restricted: []string{"finance"}},
			},
		},
	}
	know := Knowledge{
		Glossary: []Glossary{
			{Term: "revenue", Synonyms: []string{"turnover"}, Means: Meaning{Metric: "net_sales"}},
			{Term: "web sales", Means: Meaning{Metric: "net_sales", Dimension: "channel", Value: "web"}, Note: "Online only."},
		},
		Caveats: []Caveat{
			{Name: "late_refunds", About: []string{"net_sales", "orders", "net_sales.region"}, Note: "Refunds arrive late."},
		},
		NotDefined: []NotDefined{
			{Phrase: "profit", Synonyms: []string{"margin"}, Note: "Costs are not modelled."},
		},
		Examples: []Example{
			{Name: "sales_by_region", Asked: []string{"sales by region"}, Question: Question{
				Metrics: []string{"net_sales"}, Grain: Month,
				Range:      TimeSpan{Relative: &Relative{Count: 3, Unit: Month}},
				Dimensions: []string{"region"},
			}},
		},
	}
	return defs, know
}

// metricNamed returns the fixture metric called name.
func metricNamed(t testing.TB, d *Definitions, name string) *Metric {
	t.Helper()
	for i := range d.Metrics {
		if d.Metrics[i].Name == name {
			return &d.Metrics[i]
		}
	}
	t.Fatalf("no metric %s", name)
	return nil
}

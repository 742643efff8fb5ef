package conformance

import "sutura.dev/domain"

// The demo catalogue (examples/demo/catalog), written out as domain
// definitions, for the data systems that run the corpus from their own
// module, where the markdown catalogue reader may not be imported.
// TestDemoMirrorsCatalogue keeps the two from drifting apart on what
// matters to execution (models, columns and their types); the corpus and
// the anchors check the metrics.

// DemoBundle pins DemoDefinitions(source) (with no knowledge).
func DemoBundle(source string) (*domain.Bundle, error) {
	return domain.NewBundle("demo-mirror", DemoDefinitions(source), domain.Knowledge{})
}

// SplitDemoBundle pins SplitDemoDefinitions(split) (with no knowledge).
func SplitDemoBundle(split map[string]string) (*domain.Bundle, error) {
	return domain.NewBundle("demo-mirror", SplitDemoDefinitions(split), domain.Knowledge{})
}

// SplitDemoDefinitions returns DemoDefinitions with each model on the
// source split names for it (model name → source alias): the demo of a
// federated deployment. Every model must be named.
func SplitDemoDefinitions(split map[string]string) domain.Definitions {
	defs := DemoDefinitions("")
	for i := range defs.Models {
		defs.Models[i].Source = split[defs.Models[i].Name]
	}
	return defs
}

// DemoModelsOn returns the models of defs on source.
func DemoModelsOn(defs domain.Definitions, source string) []domain.Model {
	var out []domain.Model
	for _, m := range defs.Models {
		if m.Source == source {
			out = append(out, m)
		}
	}
	return out
}

func columns(spec ...string) []domain.ModelColumn {
	var out []domain.ModelColumn
	for i := 0; i+1 < len(spec); i += 2 {
		out = append(out, domain.ModelColumn{Name: spec[i], Type: domain.ColumnType(spec[i+1])})
	}
	return out
}

func demoModels(source string) []domain.Model {
	return []domain.Model{
		{Name: "customers", Source: source, Table: "customers", PrimaryKey: []string{"customer_id"}, Columns: columns(
			"customer_id", "integer", "region_id", "integer", "segment", "text", "signup_date", "date")},
		{Name: "orders", Source: source, Table: "orders", PrimaryKey: []string{"order_id"}, Columns: columns(
			"order_id", "integer", "order_date", "date", "customer_id", "integer", "product_id", "integer",
			"channel", "text", "status", "text", "payment_method", "text", "is_paid", "boolean",
			"quantity", "integer", "gross_amount_cents", "integer", "discount_cents", "integer",
			"net_amount_cents", "integer", "collected_cents", "integer", "shipped_date", "date",
			"dispatch_days", "integer", "is_returned", "boolean")},
		{Name: "products", Source: source, Table: "products", PrimaryKey: []string{"product_id"}, Columns: columns(
			"product_id", "integer", "product_name", "text", "category", "text", "unit_price_cents", "integer")},
		{Name: "regions", Source: source, Table: "regions", PrimaryKey: []string{"region_id"}, Columns: columns(
			"region_id", "integer", "region_name", "text")},
	}
}

func anchor(start, end, value string) *domain.Anchor {
	s, _ := domain.ParseDate(start)
	e, _ := domain.ParseDate(end)
	return &domain.Anchor{Range: domain.Range{Start: s, End: e}, Value: value}
}

// DemoDefinitions returns the demo catalogue's models, relationships and
// metrics, every model on source: what the corpus questions ask of a
// data system. It mirrors the markdown catalogue in examples/demo (whose
// reader an adapter may not import); a test of this package keeps the two
// from drifting apart.
func DemoDefinitions(source string) domain.Definitions {
	areaValues := []string{"East", "North", "South", "West"}
	area := domain.Dimension{Name: "area", Column: "region_name", Via: []string{"order_customer", "customer_region"}, Values: areaValues, Filterable: true}
	channel := domain.Dimension{Name: "channel", Column: "channel", Values: []string{"online", "store"}, Filterable: true}
	category := domain.Dimension{Name: "product_category", Column: "category", Via: []string{"order_product"},
		Values: []string{"Garden", "Kitchen", "Lighting", "Tableware", "Textiles"}, Filterable: true}
	product := domain.Dimension{Name: "product", Column: "product_name", Via: []string{"order_product"}}
	segment := domain.Dimension{Name: "customer_segment", Column: "segment", Via: []string{"order_customer"}}
	payment := domain.Dimension{Name: "payment_method", Column: "payment_method"}

	notCancelled := domain.RequiredFilter{Op: domain.NotEquals, Column: "status", Value: "cancelled"}
	completed := domain.RequiredFilter{Op: domain.Equals, Column: "status", Value: "completed"}
	paid := domain.RequiredFilter{Op: domain.IsTrue, Column: "is_paid"}
	shipped := domain.RequiredFilter{Op: domain.IsNotNull, Column: "shipped_date"}
	online := domain.RequiredFilter{Op: domain.Equals, Column: "channel", Value: "online"}

	all := []domain.Grain{domain.Day, domain.Week, domain.Month, domain.Quarter, domain.Year}
	simple := func(a domain.Aggregate, c string) *domain.Measure {
		return &domain.Measure{Simple: &domain.Term{Aggregate: a, Column: c}}
	}
	metric := func(name string, ms *domain.Measure, a *domain.Anchor, dims []domain.Dimension, rf ...domain.RequiredFilter) domain.Metric {
		return domain.Metric{Name: name, Model: "orders", Measure: ms, TimeColumn: "order_date", Grains: all,
			Dimensions: dims, RequiredFilters: rf, Anchor: a, Description: name}
	}
	finance := domain.Audience{Restricted: []string{"finance"}}

	active := metric("active_customers", simple(domain.CountDistinct, "customer_id"),
		anchor("2025-04-01", "2025-07-01", "616"), []domain.Dimension{area, channel, segment}, paid)
	active.Grains = all[:4]
	collected := metric("collected_payments", simple(domain.Sum, "collected_cents"),
		anchor("2025-01-01", "2026-01-01", "22202271"), []domain.Dimension{area, channel, payment}, paid)
	collected.Audience = finance
	discounts := metric("discounts_given", simple(domain.Sum, "discount_cents"),
		anchor("2025-01-01", "2026-01-01", "1217620"), []domain.Dimension{area, channel, category, segment}, notCancelled)
	discounts.Audience = finance
	dispatched := metric("dispatched_orders", simple(domain.Count, "order_id"),
		anchor("2025-01-01", "2026-01-01", "4852"), []domain.Dimension{area, channel}, shipped)
	dispatched.TimeColumn = "shipped_date"
	slowest := metric("slowest_dispatch_days", simple(domain.Max, "dispatch_days"),
		anchor("2025-12-01", "2026-01-01", "8"), []domain.Dimension{area, category}, online, shipped)
	slowest.Grains = all[:3]

	return domain.Definitions{
		Models: demoModels(source),
		Relationships: []domain.Relationship{
			{Name: "customer_orders", Origin: domain.Endpoint{Model: "customers", Column: "customer_id"}, Target: domain.Endpoint{Model: "orders", Column: "customer_id"}, JoinType: domain.OneToMany},
			{Name: "customer_region", Origin: domain.Endpoint{Model: "customers", Column: "region_id"}, Target: domain.Endpoint{Model: "regions", Column: "region_id"}, JoinType: domain.ManyToOne},
			{Name: "order_customer", Origin: domain.Endpoint{Model: "orders", Column: "customer_id"}, Target: domain.Endpoint{Model: "customers", Column: "customer_id"}, JoinType: domain.ManyToOne},
			{Name: "order_product", Origin: domain.Endpoint{Model: "orders", Column: "product_id"}, Target: domain.Endpoint{Model: "products", Column: "product_id"}, JoinType: domain.ManyToOne},
		},
		Metrics: []domain.Metric{
			active,
			metric("average_order_value", simple(domain.Avg, "net_amount_cents"), nil, []domain.Dimension{area, channel, category, segment}, paid),
			collected,
			metric("collected_per_paid_order", &domain.Measure{Ratio: &domain.Ratio{
				Numerator:       domain.Term{Aggregate: domain.Sum, Column: "collected_cents"},
				Denominator:     domain.Term{CountIf: "is_paid"},
				ZeroDenominator: domain.Fails,
			}}, nil, []domain.Dimension{area, channel}, notCancelled),
			discounts,
			dispatched,
			metric("gross_sales", simple(domain.Sum, "gross_amount_cents"), anchor("2025-01-01", "2026-01-01", "25305700"),
				[]domain.Dimension{area, channel, category, product, segment}, notCancelled),
			metric("largest_order_value", simple(domain.Max, "net_amount_cents"), anchor("2025-01-01", "2026-01-01", "106800"),
				[]domain.Dimension{area, channel, category, segment}, paid),
			metric("net_sales", simple(domain.Sum, "net_amount_cents"), anchor("2025-01-01", "2026-01-01", "24032720"),
				[]domain.Dimension{area, channel, category, product, segment}, notCancelled, paid),
			{Name: "new_customers", Model: "customers", Measure: simple(domain.Count, "customer_id"), TimeColumn: "signup_date",
				Grains: all[1:], Description: "new_customers", Anchor: anchor("2025-01-01", "2026-01-01", "429"),
				Dimensions: []domain.Dimension{
					{Name: "area", Column: "region_name", Via: []string{"customer_region"}, Values: areaValues, Filterable: true},
					{Name: "customer_segment", Column: "segment", Values: []string{"consumer", "small_business", "trade"}, Filterable: true},
				}},
			metric("order_count", simple(domain.Count, "order_id"), anchor("2025-01-01", "2026-01-01", "4841"),
				[]domain.Dimension{area, channel, category, segment, payment}, notCancelled),
			metric("return_rate", &domain.Measure{Ratio: &domain.Ratio{
				Numerator:       domain.Term{CountIf: "is_returned"},
				Denominator:     domain.Term{CountIf: "is_paid"},
				ZeroDenominator: domain.YieldsNull,
			}}, nil, []domain.Dimension{area, channel, category}, completed),
			metric("returned_orders", &domain.Measure{Simple: &domain.Term{CountIf: "is_returned"}}, anchor("2025-01-01", "2026-01-01", "310"),
				[]domain.Dimension{area, channel, category, product}, completed),
			slowest,
			metric("smallest_order_value", simple(domain.Min, "net_amount_cents"), anchor("2025-01-01", "2026-01-01", "560"),
				[]domain.Dimension{area, channel, category}, paid),
			metric("units_sold", simple(domain.Sum, "quantity"), anchor("2025-01-01", "2026-01-01", "9363"),
				[]domain.Dimension{area, channel, category, product}, completed),
		},
	}
}

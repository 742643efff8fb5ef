package semantic_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"sutura.dev/domain"
)

// The test catalogue mirrors the demo (examples/demo/catalog): orders with
// customers and regions reached through a two-hop via chain, products, every
// measure shape, all four required filters and a restricted metric. It
// departs from the demo where a test needs more: table paths with one, two
// and three segments (each segment is quoted on its own), a timestamp time
// column on customers, and a dimension reached by walking a one_to_many
// relationship backwards.

var (
	areas      = []string{"East", "North", "South", "West"}
	channels   = []string{"online", "store"}
	categories = []string{"Garden", "Kitchen", "Lighting", "Tableware", "Textiles"}
	segments   = []string{"consumer", "small_business", "trade"}
)

// values are the allowlists and required-filter values of a catalogue, so
// the no-injection test can swap in hostile ones.
type values struct {
	areas, channels, categories, segments []string
	cancelled, completed, online          string
}

var demoValues = values{
	areas: areas, channels: channels, categories: categories, segments: segments,
	cancelled: "cancelled", completed: "completed", online: "online",
}

func col(name string, t domain.ColumnType) domain.ModelColumn {
	return domain.ModelColumn{Name: name, Type: t}
}

func sum(c string) *domain.Measure {
	return &domain.Measure{Simple: &domain.Term{Aggregate: domain.Sum, Column: c}}
}

func agg(a domain.Aggregate, c string) *domain.Measure {
	return &domain.Measure{Simple: &domain.Term{Aggregate: a, Column: c}}
}

var allGrains = []domain.Grain{domain.Day, domain.Week, domain.Month, domain.Quarter, domain.Year}

func definitions(v values) domain.Definitions {
	area := domain.Dimension{Name: "area", Column: "region_name", Via: []string{"order_customer", "customer_region"}, Values: v.areas, Filterable: true}
	channel := domain.Dimension{Name: "channel", Column: "channel", Values: v.channels, Filterable: true}
	category := domain.Dimension{Name: "product_category", Column: "category", Via: []string{"order_product"}, Values: v.categories, Filterable: true}
	product := domain.Dimension{Name: "product", Column: "product_name", Via: []string{"order_product"}}
	segment := domain.Dimension{Name: "customer_segment", Column: "segment", Via: []string{"order_customer"}}
	payment := domain.Dimension{Name: "payment_method", Column: "payment_method"}
	buyer := domain.Dimension{Name: "buyer_segment", Column: "segment", Via: []string{"customer_orders"}}

	notCancelled := domain.RequiredFilter{Op: domain.NotEquals, Column: "status", Value: v.cancelled}
	completed := domain.RequiredFilter{Op: domain.Equals, Column: "status", Value: v.completed}
	paid := domain.RequiredFilter{Op: domain.IsTrue, Column: "is_paid"}
	shipped := domain.RequiredFilter{Op: domain.IsNotNull, Column: "shipped_date"}
	online := domain.RequiredFilter{Op: domain.Equals, Column: "channel", Value: v.online}

	orderMetric := func(name string, ms *domain.Measure, dims []domain.Dimension, rf ...domain.RequiredFilter) domain.Metric {
		return domain.Metric{Name: name, Model: "orders", Measure: ms, TimeColumn: "order_date", Grains: allGrains,
			Dimensions: dims, RequiredFilters: rf, Description: name}
	}
	full := []domain.Dimension{area, channel, category, product, segment}
	std := []domain.Dimension{area, channel, category, segment}

	active := orderMetric("active_customers", agg(domain.CountDistinct, "customer_id"), []domain.Dimension{area, channel, segment}, paid)
	active.Grains = []domain.Grain{domain.Day, domain.Week, domain.Month, domain.Quarter}
	collected := orderMetric("collected_payments", sum("collected_cents"), []domain.Dimension{area, channel, payment}, paid)
	collected.Audience = domain.Audience{Restricted: []string{"finance"}}
	dispatched := orderMetric("dispatched_orders", agg(domain.Count, "order_id"), []domain.Dimension{area, channel}, shipped)
	dispatched.TimeColumn = "shipped_date"
	slowest := orderMetric("slowest_dispatch_days", agg(domain.Max, "dispatch_days"), []domain.Dimension{area, category}, online, shipped)
	slowest.Grains = []domain.Grain{domain.Day, domain.Week, domain.Month}

	return domain.Definitions{
		Models: []domain.Model{
			{Name: "orders", Source: "demo", Table: "orders", Columns: []domain.ModelColumn{
				col("order_id", domain.TypeInteger), col("order_date", domain.TypeDate),
				col("customer_id", domain.TypeInteger), col("product_id", domain.TypeInteger),
				col("channel", domain.TypeText), col("status", domain.TypeText),
				col("payment_method", domain.TypeText), col("is_paid", domain.TypeBoolean),
				col("quantity", domain.TypeInteger), col("gross_amount_cents", domain.TypeInteger),
				col("discount_cents", domain.TypeInteger), col("net_amount_cents", domain.TypeInteger),
				col("collected_cents", domain.TypeInteger), col("shipped_date", domain.TypeDate),
				col("dispatch_days", domain.TypeInteger), col("is_returned", domain.TypeBoolean),
			}},
			{Name: "customers", Source: "demo", Table: "crm.customers", Columns: []domain.ModelColumn{
				col("customer_id", domain.TypeInteger), col("region_id", domain.TypeInteger),
				col("segment", domain.TypeText), col("signup_at", domain.TypeTimestamp),
			}},
			{Name: "regions", Source: "demo", Table: "ref.regions", Columns: []domain.ModelColumn{
				col("region_id", domain.TypeInteger), col("region_name", domain.TypeText),
			}},
			{Name: "products", Source: "demo", Table: "shop.catalog.products", Columns: []domain.ModelColumn{
				col("product_id", domain.TypeInteger), col("product_name", domain.TypeUnset),
				col("category", domain.TypeText), col("unit_price_cents", domain.TypeInteger),
			}},
		},
		Relationships: []domain.Relationship{
			{Name: "order_customer", Origin: domain.Endpoint{Model: "orders", Column: "customer_id"}, Target: domain.Endpoint{Model: "customers", Column: "customer_id"}, JoinType: domain.ManyToOne},
			{Name: "customer_region", Origin: domain.Endpoint{Model: "customers", Column: "region_id"}, Target: domain.Endpoint{Model: "regions", Column: "region_id"}, JoinType: domain.ManyToOne},
			{Name: "order_product", Origin: domain.Endpoint{Model: "orders", Column: "product_id"}, Target: domain.Endpoint{Model: "products", Column: "product_id"}, JoinType: domain.ManyToOne},
			{Name: "customer_orders", Origin: domain.Endpoint{Model: "customers", Column: "customer_id"}, Target: domain.Endpoint{Model: "orders", Column: "customer_id"}, JoinType: domain.OneToMany},
		},
		Metrics: []domain.Metric{
			active,
			orderMetric("average_order_value", agg(domain.Avg, "net_amount_cents"), std, paid),
			collected,
			orderMetric("collected_per_paid_order", &domain.Measure{Ratio: &domain.Ratio{
				Numerator:       domain.Term{Aggregate: domain.Sum, Column: "collected_cents"},
				Denominator:     domain.Term{CountIf: "is_paid"},
				ZeroDenominator: domain.Fails,
			}}, []domain.Dimension{area, channel}, notCancelled),
			dispatched,
			orderMetric("gross_sales", sum("gross_amount_cents"), full, notCancelled),
			orderMetric("largest_order_value", agg(domain.Max, "net_amount_cents"), std, paid),
			orderMetric("net_sales", sum("net_amount_cents"), full, notCancelled, paid),
			{Name: "new_customers", Model: "customers", Measure: agg(domain.Count, "customer_id"), TimeColumn: "signup_at",
				Grains: []domain.Grain{domain.Week, domain.Month, domain.Quarter, domain.Year},
				Dimensions: []domain.Dimension{
					{Name: "area", Column: "region_name", Via: []string{"customer_region"}, Values: v.areas, Filterable: true},
					{Name: "customer_segment", Column: "segment", Values: v.segments, Filterable: true},
				}},
			orderMetric("order_count", agg(domain.Count, "order_id"), append(append([]domain.Dimension(nil), std...), payment), notCancelled),
			orderMetric("return_rate", &domain.Measure{Ratio: &domain.Ratio{
				Numerator:       domain.Term{CountIf: "is_returned"},
				Denominator:     domain.Term{CountIf: "is_paid"},
				ZeroDenominator: domain.YieldsNull,
			}}, []domain.Dimension{area, channel, category}, completed),
			orderMetric("returned_orders", &domain.Measure{Simple: &domain.Term{CountIf: "is_returned"}},
				[]domain.Dimension{area, channel, category, product, buyer}, completed),
			slowest,
			orderMetric("smallest_order_value", agg(domain.Min, "net_amount_cents"), []domain.Dimension{area, channel, category}, paid),
			orderMetric("units_sold", sum("quantity"), append(append([]domain.Dimension(nil), full...),
				domain.Dimension{Name: "buyer_segment", Column: "segment", Via: []string{"order_customer"}}), completed),
		},
	}
}

// bundle pins the catalogue built with v.
func bundle(t testing.TB, v values) *domain.Bundle {
	t.Helper()
	b, err := domain.NewBundle("test-1", definitions(v), domain.Knowledge{})
	require.NoError(t, err)
	return b
}

// demoBundle is the test catalogue with the demo's values.
func demoBundle(t testing.TB) *domain.Bundle { return bundle(t, demoValues) }

package semantic_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// today is the server date the golden questions resolve relative ranges
// against.
var today = domain.DateOf(2026, 5, 14)

func date(s string) domain.Date {
	d, err := domain.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

func fixed(start, end string) domain.TimeSpan {
	return domain.TimeSpan{Fixed: &domain.Range{Start: date(start), End: date(end)}}
}

func eq(dim, v string) domain.Filter {
	return domain.Filter{Op: domain.OpEq, Dimension: dim, Values: []string{v}}
}
func in(dim string, v ...string) domain.Filter {
	return domain.Filter{Op: domain.OpIn, Dimension: dim, Values: v}
}
func notIn(dim string, v ...string) domain.Filter {
	return domain.Filter{Op: domain.OpNotIn, Dimension: dim, Values: v}
}

var q1 = fixed("2026-01-01", "2026-04-01")

// goldenQuestions are the compiler's golden suite: every measure shape,
// every grain, every filter operator and required filter, joins shared,
// backwards and filter-only, several metrics, top, and a relative range.
var goldenQuestions = []struct {
	name string
	q    domain.Question
}{
	{"net_sales_by_area_east", domain.Question{Metrics: []string{"net_sales"}, Grain: domain.Month, Range: q1,
		Dimensions: []string{"area"}, Filters: []domain.Filter{eq("area", "East")}}},
	{"gross_sales_daily", domain.Question{Metrics: []string{"gross_sales"}, Grain: domain.Day, Range: fixed("2026-03-01", "2026-03-08")}},
	{"order_count_weekly_channel_payment", domain.Question{Metrics: []string{"order_count"}, Grain: domain.Week, Range: q1,
		Dimensions: []string{"channel", "payment_method"}, Filters: []domain.Filter{in("channel", "online", "store")}}},
	{"active_customers_not_in", domain.Question{Metrics: []string{"active_customers"}, Grain: domain.Quarter, Range: fixed("2025-01-01", "2026-01-01"),
		Dimensions: []string{"area", "customer_segment"}, Filters: []domain.Filter{notIn("area", "North", "West")}}},
	{"average_order_value_yearly", domain.Question{Metrics: []string{"average_order_value"}, Grain: domain.Year, Range: fixed("2024-01-01", "2026-01-01"),
		Dimensions: []string{"product_category"}}},
	{"largest_and_smallest", domain.Question{Metrics: []string{"largest_order_value", "smallest_order_value"}, Grain: domain.Month, Range: q1,
		Dimensions: []string{"channel"}}},
	{"sales_and_counts_one_residual", domain.Question{Metrics: []string{"net_sales", "gross_sales", "order_count"}, Grain: domain.Month, Range: q1,
		Dimensions: []string{"area"}}},
	{"residual_per_metric", domain.Question{Metrics: []string{"returned_orders", "active_customers", "net_sales"}, Grain: domain.Month, Range: q1,
		Dimensions: []string{"channel"}, Filters: []domain.Filter{eq("area", "South")}}},
	{"return_rate_by_channel", domain.Question{Metrics: []string{"return_rate"}, Grain: domain.Month, Range: q1, Dimensions: []string{"channel"}}},
	{"ratio_that_fails", domain.Question{Metrics: []string{"collected_per_paid_order"}, Grain: domain.Week, Range: q1}},
	{"ratio_with_residual", domain.Question{Metrics: []string{"return_rate", "average_order_value", "returned_orders"}, Grain: domain.Month, Range: q1}},
	{"slowest_dispatch", domain.Question{Metrics: []string{"slowest_dispatch_days"}, Grain: domain.Day, Range: fixed("2025-12-01", "2026-01-01"),
		Dimensions: []string{"product_category"}}},
	{"dispatched_by_shipped_date", domain.Question{Metrics: []string{"dispatched_orders"}, Grain: domain.Month, Range: q1, Dimensions: []string{"area"}}},
	{"new_customers_timestamp", domain.Question{Metrics: []string{"new_customers"}, Grain: domain.Week, Range: q1,
		Dimensions: []string{"area"}, Filters: []domain.Filter{in("customer_segment", "trade", "consumer")}}},
	{"top_products", domain.Question{Metrics: []string{"net_sales"}, Grain: domain.Quarter, Range: fixed("2025-01-01", "2026-01-01"),
		Dimensions: []string{"product"}, Top: &domain.Top{N: 5, By: domain.ByMetric, Direction: "desc"}}},
	{"top_by_period_asc", domain.Question{Metrics: []string{"order_count"}, Grain: domain.Day, Range: q1,
		Dimensions: []string{"channel"}, Top: &domain.Top{N: 3, By: domain.ByPeriod, Direction: "asc"}}},
	{"filters_without_grouping", domain.Question{Metrics: []string{"units_sold"}, Grain: domain.Month, Range: q1,
		Filters: []domain.Filter{in("product_category", "Garden", "Kitchen"), eq("area", "East"), notIn("channel", "store")}}},
	{"shared_chain_prefix", domain.Question{Metrics: []string{"net_sales"}, Grain: domain.Month, Range: q1,
		Dimensions: []string{"customer_segment", "area", "product", "channel"}}},
	{"backward_step", domain.Question{Metrics: []string{"returned_orders"}, Grain: domain.Month, Range: q1, Dimensions: []string{"buyer_segment"}}},
	{"relative_last_three_months", domain.Question{Metrics: []string{"gross_sales"}, Grain: domain.Month,
		Range: domain.TimeSpan{Relative: &domain.Relative{Count: 3, Unit: domain.Month}}}},
	{"restricted_for_operator", domain.Question{Metrics: []string{"collected_payments"}, Grain: domain.Year, Range: fixed("2025-01-01", "2026-01-01"),
		Dimensions: []string{"payment_method"}}},
}

// golden renders the statement file: the question, the SQL, then the
// numbered parameters.
func golden(q domain.Question, st semantic.Statement) string {
	qj, _ := json.Marshal(q)
	var b strings.Builder
	fmt.Fprintf(&b, "-- question: %s\n%s\n-- params\n", qj, st.SQL)
	for i, p := range st.Params {
		fmt.Fprintf(&b, "%d %s %s %s\n", i+1, p.Name, p.Kind, p.Value)
	}
	return b.String()
}

func TestGolden(t *testing.T) {
	require.GreaterOrEqual(t, len(goldenQuestions), 15)
	b := demoBundle(t)
	for _, rd := range renderings() {
		for _, tc := range goldenQuestions {
			t.Run(rd.name+"/"+tc.name, func(t *testing.T) {
				plan, why := semantic.Compile(b, domain.LocalOperator, tc.q, today)
				require.Nil(t, why, "refused: %v", why)
				st, err := rd.render(plan)
				require.NoError(t, err)
				got := golden(tc.q, st)
				path := filepath.Join("testdata", rd.name, tc.name+".golden")
				if *update {
					require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
					require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
					return
				}
				want, err := os.ReadFile(path)
				require.NoError(t, err, "run go test -update to create the golden file")
				require.Equal(t, string(want), got)
			})
		}
	}
}

// rendering is one way of writing a plan as SQL: a dialect, or the
// clickhouse dialect's variant for servers without query parameters.
type rendering struct {
	name   string // the golden files' folder
	render func(*domain.Plan) (semantic.Statement, error)
	mark   string // what every placeholder starts with
}

// renderings lists every dialect, then the legacy clickhouse variant.
func renderings() []rendering {
	var out []rendering
	for _, d := range semantic.Dialects() {
		out = append(out, rendering{name: string(d), mark: placeholderMark(d),
			render: func(p *domain.Plan) (semantic.Statement, error) { return semantic.Render(p, d) }})
	}
	return append(out, rendering{name: "clickhouse-legacy", mark: "?", render: semantic.RenderClickHouseLegacy})
}

// federatedQuestions are the golden suite of federated plans, over the
// test catalogue with customers in crm and products in shop: a chain that
// crosses out and back, each filter operator on remote and local
// dimensions, every measure's partials, several metrics with their own
// required filters, and top.
var federatedQuestions = []struct {
	name string
	q    domain.Question
}{
	{"area_through_two_crossings", domain.Question{Metrics: []string{"net_sales"}, Grain: domain.Month, Range: q1,
		Dimensions: []string{"area"}, Filters: []domain.Filter{eq("area", "East")}}},
	{"category_not_in_and_channel", domain.Question{Metrics: []string{"average_order_value"}, Grain: domain.Quarter, Range: q1,
		Dimensions: []string{"product_category", "channel"}, Filters: []domain.Filter{notIn("product_category", "Garden"), in("channel", "online")}}},
	{"residuals_and_ratios", domain.Question{Metrics: []string{"return_rate", "average_order_value", "returned_orders", "largest_order_value"}, Grain: domain.Month, Range: q1,
		Dimensions: []string{"product_category"}}},
	{"filters_without_grouping", domain.Question{Metrics: []string{"units_sold"}, Grain: domain.Week, Range: q1,
		Filters: []domain.Filter{in("product_category", "Garden", "Kitchen"), eq("area", "East"), notIn("channel", "store")}}},
	{"top_products", domain.Question{Metrics: []string{"net_sales"}, Grain: domain.Quarter, Range: fixed("2025-01-01", "2026-01-01"),
		Dimensions: []string{"product"}, Top: &domain.Top{N: 5, By: domain.ByMetric, Direction: "desc"}}},
}

// TestGoldenFederated renders every leg of each federated golden plan in
// every dialect (testdata/<dialect>/federated/<name>.golden: each leg's
// source, kind, SQL and parameters) and writes the combine step once
// (testdata/federated/<name>.json).
func TestGoldenFederated(t *testing.T) {
	b := splitBundle(t)
	check := func(t *testing.T, path, got string) {
		t.Helper()
		if *update {
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
			return
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err, "run go test -update to create the golden file")
		require.Equal(t, string(want), got)
	}
	for _, tc := range federatedQuestions {
		plan, why := semantic.Compile(b, domain.LocalOperator, tc.q, today)
		require.Nil(t, why, "%s refused: %v", tc.name, why)
		require.True(t, plan.Federated(), tc.name)
		t.Run("combine/"+tc.name, func(t *testing.T) {
			js, err := json.MarshalIndent(plan.Combine, "", "  ")
			require.NoError(t, err)
			check(t, filepath.Join("testdata", "federated", tc.name+".json"), string(js)+"\n")
		})
		for _, rd := range renderings() {
			t.Run(rd.name+"/"+tc.name, func(t *testing.T) {
				var out strings.Builder
				for i := range plan.Legs {
					leg := plan.LegPlan(i, 1000000)
					st, err := rd.render(leg)
					require.NoError(t, err)
					kind := "base"
					if leg.Legs[0].Kind == domain.LegLookup {
						kind = "lookup"
					}
					fmt.Fprintf(&out, "-- leg %d (%s) on source %s\n", i, kind, leg.Legs[0].Source)
					out.WriteString(golden(tc.q, st))
				}
				check(t, filepath.Join("testdata", rd.name, "federated", tc.name+".golden"), out.String())
			})
		}
	}
}

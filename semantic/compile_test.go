package semantic_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

func ask(metrics ...string) domain.Question {
	return domain.Question{Metrics: metrics, Grain: domain.Month, Range: q1}
}

func with(q domain.Question, edit func(*domain.Question)) domain.Question {
	edit(&q)
	return q
}

func names(prefix string, n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

// TestRefusals provokes every refusal the compiler raises, and checks that
// the first failure in the order of docs/contract.md §3.2 wins.
func TestRefusals(t *testing.T) {
	b := demoBundle(t)
	nobody := domain.Principal{Subject: "agent"}
	tests := []struct {
		name   string
		p      domain.Principal
		q      domain.Question
		code   domain.Code
		detail string
	}{
		{"unknown metric", nobody, ask("profit"), domain.MetricUnknown, "there is no metric called profit"},
		{"invisible metric", nobody, ask("collected_payments"), domain.MetricUnknown, "there is no metric called collected_payments"},
		{"unknown metric near a visible one", nobody, ask("net_sale"), domain.MetricUnknown, "there is no metric called net_sale; the nearest metric you can ask for is net_sales"},
		{"letter case is a slip", nobody, ask("Units_Sold"), domain.MetricUnknown, "there is no metric called Units_Sold; the nearest metric you can ask for is units_sold"},
		{"no metric", nobody, ask(), domain.MetricUnknown, ""},
		{"too many metrics", nobody, ask(names("m", 9)...), domain.TooManyMetrics, ""},
		{"too many metrics before unknown", nobody, ask(append(names("nope", 8), "net_sales")...), domain.TooManyMetrics, ""},
		{"duplicate metric", nobody, ask("net_sales", "gross_sales", "net_sales"), domain.DuplicateMetricName, "metric net_sales is asked for more than once"},
		{"duplicate before unknown", nobody, ask("profit", "profit"), domain.DuplicateMetricName, ""},
		{"different models", nobody, ask("net_sales", "new_customers"), domain.MetricsSpanDifferentModels, ""},
		{"different time columns", nobody, ask("order_count", "dispatched_orders"), domain.MetricsSpanDifferentModels, ""},
		{"unknown before different models", nobody, ask("net_sales", "new_customers", "profit"), domain.MetricUnknown, ""},
		{"grain", nobody, with(ask("net_sales", "active_customers"), func(q *domain.Question) { q.Grain = domain.Year }), domain.GrainNotSupported,
			"metric active_customers is not defined at year grain; its grains are day, week, month, quarter"},
		{"grain before span", nobody, with(ask("active_customers"), func(q *domain.Question) {
			q.Grain = domain.Year
			q.Range = fixed("2000-01-01", "2026-01-01")
		}), domain.GrainNotSupported, ""},
		{"span fixed", nobody, with(ask("net_sales"), func(q *domain.Question) { q.Range = fixed("2016-01-01", "2026-01-03") }), domain.TimeRangeTooLong, ""},
		{"span relative", nobody, with(ask("net_sales"), func(q *domain.Question) {
			q.Range = domain.TimeSpan{Relative: &domain.Relative{Count: 11, Unit: domain.Year}}
		}), domain.TimeRangeTooLong, ""},
		{"span before dimensions", nobody, with(ask("net_sales"), func(q *domain.Question) {
			q.Range = fixed("2000-01-01", "2026-01-01")
			q.Dimensions = []string{"a", "b", "c", "d", "e"}
		}), domain.TimeRangeTooLong, ""},
		{"too many dimensions", nobody, with(ask("net_sales"), func(q *domain.Question) {
			q.Dimensions = []string{"area", "channel", "product", "product_category", "customer_segment"}
		}), domain.TooManyDimensions, ""},
		{"unknown metric before too many dimensions", nobody, with(ask("profit"), func(q *domain.Question) {
			q.Dimensions = []string{"a", "b", "c", "d", "e"}
		}), domain.MetricUnknown, ""},
		{"too many filters", nobody, with(ask("net_sales"), func(q *domain.Question) {
			for range 17 {
				q.Filters = append(q.Filters, eq("area", "East"))
			}
		}), domain.TooManyFilters, ""},
		{"too many dimensions before filters", nobody, with(ask("net_sales"), func(q *domain.Question) {
			q.Dimensions = []string{"a", "b", "c", "d", "e"}
			for range 17 {
				q.Filters = append(q.Filters, eq("area", "East"))
			}
		}), domain.TooManyDimensions, ""},
		{"top over the row cap", nobody, with(ask("net_sales"), func(q *domain.Question) {
			q.Top = &domain.Top{N: domain.MaxRowCap + 1, By: domain.ByMetric, Direction: "desc"}
		}), domain.ResultTooLarge, ""},
		{"top ceiling before dimensions", nobody, with(ask("net_sales"), func(q *domain.Question) {
			q.Top = &domain.Top{N: domain.MaxRowCap + 1, By: domain.ByMetric, Direction: "desc"}
			q.Dimensions = []string{"nope"}
		}), domain.ResultTooLarge, ""},
		{"duplicate dimension", nobody, with(ask("net_sales"), func(q *domain.Question) { q.Dimensions = []string{"area", "channel", "area"} }), domain.DuplicateDimension, "dimension area is asked for more than once"},
		{"dimension not permitted", nobody, with(ask("net_sales"), func(q *domain.Question) { q.Dimensions = []string{"payment_method"} }), domain.DimensionNotPermitted, "metric net_sales has no dimension payment_method; its dimensions are area, channel, customer_segment, product, product_category"},
		{"dimension not permitted by every metric", nobody, with(ask("net_sales", "order_count"), func(q *domain.Question) { q.Dimensions = []string{"product"} }), domain.DimensionNotPermitted, "metric order_count has no dimension product; its dimensions are area, channel, customer_segment, payment_method, product_category"},
		{"dimension meaning differs", nobody, with(ask("returned_orders", "units_sold"), func(q *domain.Question) { q.Dimensions = []string{"buyer_segment"} }), domain.DimensionNotPermitted,
			"dimension buyer_segment means different things for metrics returned_orders and units_sold, so they cannot be grouped or filtered by it together"},
		{"undeclared before repeated", nobody, with(ask("net_sales"), func(q *domain.Question) { q.Dimensions = []string{"nope", "nope"} }), domain.DimensionNotPermitted, ""},
		{"dimension before filter", nobody, with(ask("net_sales"), func(q *domain.Question) {
			q.Dimensions = []string{"nope"}
			q.Filters = []domain.Filter{eq("area", "Atlantis")}
		}), domain.DimensionNotPermitted, ""},
		{"filtered twice", nobody, with(ask("net_sales"), func(q *domain.Question) {
			q.Filters = []domain.Filter{eq("area", "East"), notIn("area", "West")}
		}), domain.DuplicateDimension, "dimension area is filtered more than once"},
		{"filter repeated before undeclared", nobody, with(ask("net_sales"), func(q *domain.Question) {
			q.Filters = []domain.Filter{eq("area", "East"), eq("area", "East"), eq("nope", "x")}
		}), domain.DuplicateDimension, ""},
		{"filter not permitted", nobody, with(ask("net_sales"), func(q *domain.Question) { q.Filters = []domain.Filter{eq("payment_method", "card")} }), domain.DimensionNotPermitted, ""},
		{"filter not filterable", nobody, with(ask("net_sales"), func(q *domain.Question) { q.Filters = []domain.Filter{eq("product", "Lamp")} }), domain.DimensionNotFilterable, "dimension product of metric net_sales can be grouped by but not filtered on; it may be filtered on area, channel, product_category"},
		{"value not allowed", nobody, with(ask("net_sales"), func(q *domain.Question) { q.Filters = []domain.Filter{in("area", "East", "Atlantis")} }), domain.DimensionValueNotAllowed, "a value in the filter on dimension area is not on its allowlist; metric net_sales allows East, North, South, West"},
		{"value match is exact", nobody, with(ask("net_sales"), func(q *domain.Question) { q.Filters = []domain.Filter{eq("area", "east")} }), domain.DimensionValueNotAllowed, ""},
		{"not filterable before value", nobody, with(ask("net_sales"), func(q *domain.Question) { q.Filters = []domain.Filter{eq("product", "Atlantis")} }), domain.DimensionNotFilterable, ""},
		{"multi-metric top", nobody, with(ask("net_sales", "gross_sales"), func(q *domain.Question) {
			q.Top = &domain.Top{N: 5, By: domain.ByMetric, Direction: "desc"}
		}), domain.MultiMetricTopNotExecutable, ""},
		{"filters before multi-metric top", nobody, with(ask("net_sales", "gross_sales"), func(q *domain.Question) {
			q.Top = &domain.Top{N: 5, By: domain.ByPeriod, Direction: "desc"}
			q.Filters = []domain.Filter{eq("area", "Atlantis")}
		}), domain.DimensionValueNotAllowed, ""},
	}
	seen := map[domain.Code]bool{}
	for _, tc := range tests {
		seen[tc.code] = true
		t.Run(tc.name, func(t *testing.T) {
			plan, why := semantic.Compile(b, tc.p, tc.q, today)
			require.Nil(t, plan)
			require.NotNil(t, why)
			assert.Equal(t, tc.code, why.Code(), why.Detail())
			if tc.detail != "" {
				assert.Equal(t, tc.detail, why.Detail())
			}
		})
	}
	for _, c := range []domain.Code{domain.MetricUnknown, domain.TooManyMetrics, domain.DuplicateMetricName,
		domain.MetricsSpanDifferentModels, domain.GrainNotSupported, domain.TimeRangeTooLong,
		domain.TooManyDimensions, domain.TooManyFilters, domain.ResultTooLarge, domain.DuplicateDimension,
		domain.DimensionNotPermitted, domain.DimensionNotFilterable, domain.DimensionValueNotAllowed,
		domain.MultiMetricTopNotExecutable} {
		assert.True(t, seen[c], "no row provokes %s", c)
	}
}

// TestPlanningRefusals provokes the refusals that depend on where tables
// live rather than on the question's shape.
func TestPlanningRefusals(t *testing.T) {
	q := with(ask("net_sales"), func(q *domain.Question) { q.Dimensions = []string{"product", "area"} })

	defs := definitions(demoValues)
	defs.Models[3].Source = "warehouse" // products
	b, err := domain.NewBundle("t", defs, domain.Knowledge{})
	require.NoError(t, err)
	_, why := semantic.CompileWith(b, domain.LocalOperator, q, today, semantic.Ceilings{Sources: 1})
	require.NotNil(t, why)
	assert.Equal(t, domain.PlanSpansTooManySources, why.Code())
	plan, why := semantic.Compile(b, domain.LocalOperator, q, today)
	require.Nil(t, why, "two sources are within the default ceiling")
	assert.Len(t, plan.Legs, 2)

	defs = definitions(demoValues)
	defs.Models[2].Table = "ref.customers" // regions, same bare name as crm.customers
	b, err = domain.NewBundle("t", defs, domain.Knowledge{})
	require.NoError(t, err)
	_, why = semantic.Compile(b, domain.LocalOperator, q, today)
	require.NotNil(t, why)
	assert.Equal(t, domain.PlanTablesShareAnIdentifier, why.Code())
	_, why = semantic.Compile(b, domain.LocalOperator, with(ask("net_sales"), func(q *domain.Question) { q.Dimensions = []string{"product"} }), today)
	assert.Nil(t, why, "only tables in one statement must differ")
}

// The suggestion of metric_unknown comes from the metrics the caller may
// see only: a name one edit from a hidden metric suggests nothing to a
// caller who may not see it, and that metric to one who may.
func TestUnknownMetricNeverSuggestsAHiddenOne(t *testing.T) {
	b := demoBundle(t)
	agent := domain.Principal{Subject: "agent", Audiences: []string{"marketing"}}
	finance := domain.Principal{Subject: "cfo", Audiences: []string{"finance"}}
	require.False(t, semantic.Visible(b, agent, mustMetric(t, b, "collected_payments")))
	for _, name := range []string{"collected_payment", "colected_payments", "collected_payments"} {
		_, why := semantic.Compile(b, agent, ask(name), today)
		require.NotNil(t, why)
		assert.Equal(t, domain.MetricUnknown, why.Code())
		assert.NotContains(t, why.Detail(), "nearest", "no visible metric is near %s", name)
		assert.NotContains(t, why.Detail(), "collected_payments;", name)
	}
	_, why := semantic.Compile(b, finance, ask("collected_payment"), today)
	require.NotNil(t, why)
	assert.Equal(t, "there is no metric called collected_payment; the nearest metric you can ask for is collected_payments", why.Detail())
}

func TestInvisibleMetricIsIndistinguishableFromMissing(t *testing.T) {
	withIt := demoBundle(t)
	defs := definitions(demoValues)
	var kept []domain.Metric
	for _, m := range defs.Metrics {
		if m.Name != "collected_payments" {
			kept = append(kept, m)
		}
	}
	defs.Metrics = kept
	without, err := domain.NewBundle("test-1", defs, domain.Knowledge{})
	require.NoError(t, err)

	agent := domain.Principal{Subject: "agent", Audiences: []string{"marketing"}}
	q := with(ask("net_sales", "collected_payments"), func(q *domain.Question) { q.Dimensions = []string{"area"} })
	_, hidden := semantic.Compile(withIt, agent, q, today)
	_, missing := semantic.Compile(without, agent, q, today)
	require.NotNil(t, hidden)
	require.NotNil(t, missing)
	hj, err := json.Marshal(hidden)
	require.NoError(t, err)
	mj, err := json.Marshal(missing)
	require.NoError(t, err)
	assert.Equal(t, string(mj), string(hj))
	assert.Equal(t, missing.Status(), hidden.Status())

	finance := domain.Principal{Subject: "cfo", Audiences: []string{"finance"}}
	plan, why := semantic.Compile(withIt, finance, q, today)
	require.Nil(t, why)
	assert.Equal(t, "collected_payments", plan.Legs[0].Metrics[1].Name)
	assert.True(t, semantic.Visible(withIt, finance, mustMetric(t, withIt, "collected_payments")))
	assert.False(t, semantic.Visible(withIt, agent, mustMetric(t, withIt, "collected_payments")))
}

func mustMetric(t *testing.T, b *domain.Bundle, name string) *domain.Metric {
	t.Helper()
	m, ok := b.Metric(name)
	require.True(t, ok)
	return m
}

func TestPlanShape(t *testing.T) {
	b := demoBundle(t)
	q := domain.Question{
		Metrics: []string{"net_sales", "gross_sales"}, Grain: domain.Month, Range: q1,
		Dimensions: []string{"area", "customer_segment"},
		Filters:    []domain.Filter{in("product_category", "Garden"), eq("area", "East")},
	}
	plan, why := semantic.Compile(b, domain.LocalOperator, q, today)
	require.Nil(t, why)
	require.Len(t, plan.Legs, 1)
	leg := plan.Legs[0]
	assert.Equal(t, "demo", leg.Source)
	assert.Equal(t, domain.Table{Model: "orders", Path: []string{"orders"}, Alias: "t0", Columns: mustModel(t, b, "orders").Columns}, leg.Base)
	assert.Equal(t, "order_date", leg.TimeColumn)

	type join struct{ rel, model, alias, from, fromCol, toCol string }
	var joins []join
	for _, j := range leg.Joins {
		joins = append(joins, join{j.Relationship, j.To.Model, j.To.Alias, j.FromAlias, j.FromColumn, j.ToColumn})
	}
	assert.Equal(t, []join{
		{"order_customer", "customers", "t1", "t0", "customer_id", "customer_id"},
		{"customer_region", "regions", "t2", "t1", "region_id", "region_id"},
		{"order_product", "products", "t3", "t0", "product_id", "product_id"},
	}, joins, "the customers hop shared by area and customer_segment is joined once; the filter-only dimension still joins")
	assert.Equal(t, []string{"crm", "customers"}, leg.Joins[0].To.Path)

	assert.Equal(t, []domain.DimensionRef{
		{Name: "area", Column: domain.ColumnRef{Alias: "t2", Column: "region_name"}},
		{Name: "customer_segment", Column: domain.ColumnRef{Alias: "t1", Column: "segment"}},
	}, leg.Dimensions)
	assert.Equal(t, []domain.FilterRef{
		{Dimension: "product_category", Column: domain.ColumnRef{Alias: "t3", Column: "category"}, Op: domain.OpIn, Values: []string{"Garden"}},
		{Dimension: "area", Column: domain.ColumnRef{Alias: "t2", Column: "region_name"}, Op: domain.OpEq, Values: []string{"East"}},
	}, leg.Filters)
	require.Len(t, leg.Metrics, 2)
	assert.Equal(t, "net_sales", leg.Metrics[0].Name)
	assert.Len(t, leg.Metrics[0].RequiredFilters, 2)
	assert.Equal(t, []domain.RequiredFilter{{Op: domain.NotEquals, Column: "status", Value: "cancelled"}}, leg.Metrics[1].RequiredFilters)

	assert.Equal(t, []domain.Column{
		{Name: "area", Role: domain.RoleDimension}, {Name: "customer_segment", Role: domain.RoleDimension},
		{Name: "period", Role: domain.RolePeriod},
		{Name: "net_sales", Role: domain.RoleMetric}, {Name: "gross_sales", Role: domain.RoleMetric},
	}, plan.Columns)
	assert.Equal(t, domain.Range{Start: date("2026-01-01"), End: date("2026-04-01")}, plan.Range)
	assert.Equal(t, domain.Month, plan.Grain)
	assert.Equal(t, domain.MaxRowCap, plan.RowCap)
	assert.Nil(t, plan.Top)
	assert.Equal(t, "test-1", plan.Provenance.DefinitionVersion)
	assert.Equal(t, b.Digest(), plan.Provenance.DefinitionDigest)
	assert.Equal(t, []domain.MetricDigest{
		{Metric: "net_sales", Digest: b.MetricDigest("net_sales")},
		{Metric: "gross_sales", Digest: b.MetricDigest("gross_sales")},
	}, plan.Provenance.MetricDigests)
	assert.Empty(t, plan.Provenance.ExecutedAs)
}

func TestPlanBackwardStep(t *testing.T) {
	b := demoBundle(t)
	plan, why := semantic.Compile(b, domain.LocalOperator, with(ask("returned_orders"), func(q *domain.Question) { q.Dimensions = []string{"buyer_segment"} }), today)
	require.Nil(t, why)
	j := plan.Legs[0].Joins[0]
	// customer_orders runs customers → orders; walked from orders it joins
	// on the target column first.
	assert.Equal(t, domain.Join{Relationship: "customer_orders", To: j.To, FromAlias: "t0", FromColumn: "customer_id", ToColumn: "customer_id"}, j)
	assert.Equal(t, "customers", j.To.Model)
}

func TestPlanRelativeRangeAndTop(t *testing.T) {
	b := demoBundle(t)
	q := with(ask("net_sales"), func(q *domain.Question) {
		q.Range = domain.TimeSpan{Relative: &domain.Relative{Count: 2, Unit: domain.Quarter, IncludeCurrent: true}}
		q.Top = &domain.Top{N: 3, By: domain.ByMetric, Direction: "asc"}
	})
	plan, why := semantic.Compile(b, domain.LocalOperator, q, today)
	require.Nil(t, why)
	assert.Equal(t, domain.Range{Start: date("2026-01-01"), End: date("2026-07-01")}, plan.Range)
	assert.Equal(t, &domain.Top{N: 3, By: domain.ByMetric, Direction: "asc"}, plan.Top)
	q.Top.N = 99 // the plan does not share the question's memory
	assert.Equal(t, 3, plan.Top.N)
}

func mustModel(t *testing.T, b *domain.Bundle, name string) *domain.Model {
	t.Helper()
	m, ok := b.Model(name)
	require.True(t, ok)
	return m
}

func TestParseDialect(t *testing.T) {
	for _, d := range semantic.Dialects() {
		got, err := semantic.ParseDialect(d.String())
		require.NoError(t, err)
		assert.Equal(t, d, got)
	}
	_, err := semantic.ParseDialect("mysql")
	require.ErrorIs(t, err, semantic.ErrUnknownDialect)
	_, err = semantic.Render(&domain.Plan{}, "mysql")
	require.ErrorIs(t, err, semantic.ErrUnknownDialect)
}

func TestRenderRefusesHandBuiltPlans(t *testing.T) {
	b := demoBundle(t)
	good, why := semantic.Compile(b, domain.LocalOperator, with(ask("net_sales"), func(q *domain.Question) {
		q.Dimensions = []string{"area"}
		q.Filters = []domain.Filter{eq("area", "East")}
	}), today)
	require.Nil(t, why)
	breakers := map[string]func(p *domain.Plan){
		"no legs":          func(p *domain.Plan) { p.Legs = nil },
		"bad table":        func(p *domain.Plan) { p.Legs[0].Base.Path = []string{"orders; DROP TABLE x"} },
		"bad column":       func(p *domain.Plan) { p.Legs[0].Dimensions[0].Column.Column = `region" --` },
		"bad label":        func(p *domain.Plan) { p.Legs[0].Metrics[0].Name = "a b" },
		"undefined alias":  func(p *domain.Plan) { p.Legs[0].Filters[0].Column.Alias = "t9" },
		"no filter values": func(p *domain.Plan) { p.Legs[0].Filters[0].Values = nil },
		"no row cap":       func(p *domain.Plan) { p.RowCap = 0 },
		"empty range":      func(p *domain.Plan) { p.Range.End = p.Range.Start },
	}
	for name, breakIt := range breakers {
		t.Run(name, func(t *testing.T) {
			p := clonePlan(good)
			breakIt(p)
			_, err := semantic.Render(p, semantic.Postgres)
			require.ErrorIs(t, err, semantic.ErrPlanNotRenderable)
		})
	}
	_, err := semantic.Render(good, semantic.Postgres)
	require.NoError(t, err)
}

func clonePlan(p *domain.Plan) *domain.Plan {
	c := *p
	c.Legs = nil
	for _, l := range p.Legs {
		l.Base.Path = append([]string(nil), l.Base.Path...)
		l.Dimensions = append([]domain.DimensionRef(nil), l.Dimensions...)
		l.Filters = append([]domain.FilterRef(nil), l.Filters...)
		l.Metrics = append([]domain.MetricRef(nil), l.Metrics...)
		c.Legs = append(c.Legs, l)
	}
	return &c
}

func TestParamBindName(t *testing.T) {
	for name, want := range map[string]string{"$3": "$3", ":3": ":3", "@p3": "p3", "{p3:Date}": "p3"} {
		assert.Equal(t, want, semantic.Param{Name: name}.BindName())
	}
}

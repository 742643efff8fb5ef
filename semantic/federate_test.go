package semantic_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// splitDefinitions is the test catalogue with customers in source crm and
// products in source shop; orders and regions stay in demo, so the area
// chain crosses to crm and back.
func splitDefinitions(v values) domain.Definitions {
	defs := definitions(v)
	for i := range defs.Models {
		switch defs.Models[i].Name {
		case "customers":
			defs.Models[i].Source = "crm"
		case "products":
			defs.Models[i].Source = "shop"
		}
	}
	return defs
}

func splitBundle(t testing.TB, edit ...func(*domain.Definitions)) *domain.Bundle {
	t.Helper()
	defs := splitDefinitions(demoValues)
	for _, e := range edit {
		e(&defs)
	}
	b, err := domain.NewBundle("split-1", defs, domain.Knowledge{})
	require.NoError(t, err)
	return b
}

func dimRef(name, alias, column string) domain.DimensionRef {
	return domain.DimensionRef{Name: name, Column: domain.ColumnRef{Alias: alias, Column: column}}
}

// TestFederatedPlan plans a question over three sources: a chain that
// crosses to crm and back to demo, a crossing to shop, a local dimension,
// a filter on each kind of dimension.
func TestFederatedPlan(t *testing.T) {
	b := splitBundle(t)
	q := with(ask("net_sales", "average_order_value"), func(q *domain.Question) {
		q.Dimensions = []string{"area", "product_category", "channel"}
		q.Filters = []domain.Filter{eq("area", "East"), notIn("product_category", "Garden"), in("channel", "online")}
	})
	p, why := semantic.Compile(b, domain.LocalOperator, q, today)
	require.Nil(t, why)
	require.True(t, p.Federated())
	require.Len(t, p.Legs, 4)

	base := p.Legs[0]
	assert.Equal(t, "demo", base.Source)
	assert.Equal(t, domain.LegAggregate, base.Kind)
	assert.Equal(t, []domain.DimensionRef{dimRef("k1", "t0", "customer_id"), dimRef("k2", "t0", "product_id"), dimRef("d1", "t0", "channel")}, base.Dimensions)
	assert.Empty(t, base.Joins)
	require.Len(t, base.Filters, 1, "the local filter only")
	assert.Equal(t, "channel", base.Filters[0].Dimension)
	var partials []string
	for _, m := range base.Metrics {
		partials = append(partials, m.Name+"="+string(m.Measure.Simple.Aggregate)+"("+m.Measure.Simple.Column+")")
		assert.NotEmpty(t, m.RequiredFilters, "each partial keeps its metric's required filters")
	}
	assert.Equal(t, []string{"p1=sum(net_amount_cents)", "p2=sum(net_amount_cents)", "p3=count(net_amount_cents)"}, partials)

	crm := p.Legs[1]
	assert.Equal(t, "crm", crm.Source)
	assert.Equal(t, domain.LegLookup, crm.Kind)
	assert.Equal(t, "customers", crm.Base.Model)
	assert.Equal(t, []domain.DimensionRef{dimRef("k", "t0", "customer_id"), dimRef("k1", "t0", "region_id")}, crm.Dimensions)

	regions := p.Legs[2]
	assert.Equal(t, "demo", regions.Source, "the chain crosses back to the base source: another lookup leg")
	assert.Equal(t, []domain.DimensionRef{dimRef("k", "t0", "region_id"), dimRef("d1", "t0", "region_name")}, regions.Dimensions)
	require.Len(t, regions.Filters, 1, "eq is bound in the lookup leg")
	assert.Equal(t, domain.OpEq, regions.Filters[0].Op)

	shop := p.Legs[3]
	assert.Equal(t, "shop", shop.Source)
	assert.Equal(t, []domain.DimensionRef{dimRef("k", "t0", "product_id"), dimRef("d1", "t0", "category")}, shop.Dimensions)
	assert.Empty(t, shop.Filters, "not_in stays in the combine: a dropped row would come back as a null it keeps")

	c := p.Combine
	assert.Equal(t, []domain.Link{
		{Relationship: "order_customer", Leg: 1, From: domain.LegColumn{Leg: 0, Column: 0}},
		{Relationship: "customer_region", Leg: 2, From: domain.LegColumn{Leg: 1, Column: 1}},
		{Relationship: "order_product", Leg: 3, From: domain.LegColumn{Leg: 0, Column: 1}},
	}, c.Links)
	assert.Equal(t, []domain.LegColumn{{Leg: 2, Column: 1}, {Leg: 3, Column: 1}, {Leg: 0, Column: 2}}, c.Dimensions)
	require.Len(t, c.Filters, 2)
	assert.Equal(t, domain.CombineFilter{Dimension: "area", Column: domain.LegColumn{Leg: 2, Column: 1}, Op: domain.OpEq, Values: []string{"East"}}, c.Filters[0])
	assert.Equal(t, domain.OpNotIn, c.Filters[1].Op)
	require.Len(t, c.Metrics, 2)
	assert.Equal(t, [][]int{{4}}, c.Metrics[0].Partials, "after three grouped columns and the period")
	assert.Equal(t, [][]int{{5, 6}}, c.Metrics[1].Partials, "avg travels as a sum and a count")
	assert.Equal(t, []string{"area", "product_category", "channel", "period", "net_sales", "average_order_value"}, columnNames(p.Columns))

	for i := range p.Legs {
		lp := p.LegPlan(i, 1000)
		assert.True(t, lp.Part)
		assert.Nil(t, lp.Combine)
		assert.Equal(t, p.Legs[i].OutputColumns(), lp.Columns)
		for _, d := range semantic.Dialects() {
			_, err := semantic.Render(lp, d)
			require.NoError(t, err, "leg %d in %s", i, d)
		}
	}
	_, err := semantic.Render(p, semantic.Postgres)
	require.ErrorIs(t, err, semantic.ErrPlanNotRenderable, "a federated plan is rendered leg by leg")
}

func columnNames(cs []domain.Column) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

// TestLocalQuestionsStayOneLeg: a question whose tables all live in the
// metrics' source is planned exactly as before, whatever other models of
// the catalogue live elsewhere.
func TestLocalQuestionsStayOneLeg(t *testing.T) {
	local := demoBundle(t)
	split := splitBundle(t, func(d *domain.Definitions) {
		for i := range d.Models {
			if d.Models[i].Name == "products" {
				d.Models[i].Source = "demo"
			}
		}
	})
	q := with(ask("net_sales"), func(q *domain.Question) { q.Dimensions = []string{"channel", "product"} })
	want, why := semantic.Compile(local, domain.LocalOperator, q, today)
	require.Nil(t, why)
	got, why := semantic.Compile(split, domain.LocalOperator, q, today)
	require.Nil(t, why)
	require.False(t, got.Federated())
	got.Provenance, want.Provenance = domain.Provenance{}, domain.Provenance{}
	assert.Equal(t, want, got)
}

// TestFederationRefusals provokes each refusal of planning in legs and
// checks their order (docs/contract.md §11): measure_does_not_federate,
// federation_link_ambiguous, plan_needs_too_many_lookup_legs,
// plan_spans_too_many_sources, federation_not_executable, then
// plan_tables_share_an_identifier within a leg.
func TestFederationRefusals(t *testing.T) {
	// billing is a second relationship from orders to customers, so a
	// question can reach customers through two crossings.
	billing := func(d *domain.Definitions) {
		d.Relationships = append(d.Relationships, domain.Relationship{Name: "order_billing",
			Origin:   domain.Endpoint{Model: "orders", Column: "customer_id"},
			Target:   domain.Endpoint{Model: "customers", Column: "customer_id"},
			JoinType: domain.ManyToOne})
		for i := range d.Metrics {
			if d.Metrics[i].Model == "orders" {
				d.Metrics[i].Dimensions = append(d.Metrics[i].Dimensions,
					domain.Dimension{Name: "billed_segment", Column: "segment", Via: []string{"order_billing"}})
			}
		}
	}
	authored := func(d *domain.Definitions) {
		for i := range d.Metrics {
			if d.Metrics[i].Name == "gross_sales" {
				d.Metrics[i].Measure = nil
				d.Metrics[i].AuthoredSQL = map[string]string{"postgres": "SUM(gross_amount_cents)"}
			}
		}
	}
	sameBare := func(d *domain.Definitions) {
		for i := range d.Models {
			if d.Models[i].Name == "regions" {
				d.Models[i].Source = "crm"
				d.Models[i].Table = "ref.customers"
			}
		}
	}
	// labels is a fourth remote model, reached from orders' channel.
	labels := func(d *domain.Definitions) {
		d.Models = append(d.Models, domain.Model{Name: "channel_labels", Source: "ref", Table: "channel_labels",
			Columns: []domain.ModelColumn{col("channel", domain.TypeText), col("label", domain.TypeText)}})
		d.Relationships = append(d.Relationships, domain.Relationship{Name: "order_channel",
			Origin: domain.Endpoint{Model: "orders", Column: "channel"}, Target: domain.Endpoint{Model: "channel_labels", Column: "channel"},
			JoinType: domain.ManyToOne})
		for i := range d.Metrics {
			if d.Metrics[i].Model == "orders" {
				d.Metrics[i].Dimensions = append(d.Metrics[i].Dimensions,
					domain.Dimension{Name: "channel_label", Column: "label", Via: []string{"order_channel"}})
			}
		}
	}
	b := splitBundle(t, billing, authored)
	dims := func(q domain.Question, ds ...string) domain.Question {
		return with(q, func(q *domain.Question) { q.Dimensions = ds })
	}
	tests := []struct {
		name     string
		b        *domain.Bundle
		q        domain.Question
		ceilings semantic.Ceilings
		code     domain.Code
	}{
		{"count_distinct through a crossing", b, dims(ask("active_customers"), "customer_segment"), semantic.Ceilings{}, domain.MeasureDoesNotFederate},
		{"count_distinct filtered through a crossing", b, with(ask("active_customers"), func(q *domain.Question) {
			q.Filters = []domain.Filter{eq("area", "East")}
		}), semantic.Ceilings{}, domain.MeasureDoesNotFederate},
		{"count_distinct beside another metric", b, dims(ask("net_sales", "active_customers"), "customer_segment"), semantic.Ceilings{}, domain.MeasureDoesNotFederate},
		{"count_distinct before an ambiguous link", b, dims(ask("active_customers"), "customer_segment", "billed_segment"), semantic.Ceilings{}, domain.MeasureDoesNotFederate},
		{"one remote model through two crossings", b, dims(ask("net_sales"), "customer_segment", "billed_segment"), semantic.Ceilings{}, domain.FederationLinkAmbiguous},
		{"ambiguous before the lookup ceiling", b, dims(ask("net_sales"), "customer_segment", "billed_segment"), semantic.Ceilings{LookupLegs: 1}, domain.FederationLinkAmbiguous},
		{"more lookup legs than the ceiling", b, dims(ask("net_sales"), "area", "product"), semantic.Ceilings{LookupLegs: 2}, domain.PlanNeedsTooManyLookupLegs},
		{"three lookup legs by default", b, dims(ask("net_sales"), "area", "product"), semantic.Ceilings{}, ""},
		{"four lookup legs by default", splitBundle(t, labels), dims(ask("net_sales"), "area", "product", "channel_label"), semantic.Ceilings{}, domain.PlanNeedsTooManyLookupLegs},
		{"lookup ceiling before the source ceiling", b, dims(ask("net_sales"), "area", "product"), semantic.Ceilings{LookupLegs: 2, Sources: 1}, domain.PlanNeedsTooManyLookupLegs},
		{"more sources than the ceiling", b, dims(ask("net_sales"), "customer_segment", "product"), semantic.Ceilings{Sources: 2}, domain.PlanSpansTooManySources},
		{"one source too many by ceiling 1", b, dims(ask("net_sales"), "customer_segment"), semantic.Ceilings{Sources: 1}, domain.PlanSpansTooManySources},
		{"sources before authored SQL", b, dims(ask("gross_sales"), "customer_segment"), semantic.Ceilings{Sources: 1}, domain.PlanSpansTooManySources},
		{"authored SQL in a leg", b, dims(ask("gross_sales"), "customer_segment"), semantic.Ceilings{}, domain.FederationNotExecutable},
		{"authored SQL alone", b, dims(ask("gross_sales"), "channel"), semantic.Ceilings{}, domain.FederationNotExecutable},
		{"two bare names in one lookup leg", splitBundle(t, sameBare), dims(ask("net_sales"), "area"), semantic.Ceilings{}, domain.PlanTablesShareAnIdentifier},
		{"two bare names in two legs", splitBundle(t, func(d *domain.Definitions) {
			for i := range d.Models {
				if d.Models[i].Name == "regions" {
					d.Models[i].Table = "ref.customers"
				}
			}
		}), dims(ask("net_sales"), "area"), semantic.Ceilings{}, ""},
		{"top with several metrics first", b, with(dims(ask("net_sales", "active_customers"), "customer_segment"), func(q *domain.Question) {
			q.Top = &domain.Top{N: 3, By: domain.ByPeriod}
		}), semantic.Ceilings{}, domain.MultiMetricTopNotExecutable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, why := semantic.CompileWith(tc.b, domain.LocalOperator, tc.q, today, tc.ceilings)
			if tc.code == "" {
				require.Nil(t, why, "%v", why)
				require.NotNil(t, p)
				return
			}
			require.NotNil(t, why)
			assert.Equal(t, tc.code, why.Code(), why.Detail())
			assert.Nil(t, p)
		})
	}
}

package mdcatalog

import (
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sutura.dev/domain"
)

var hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

func TestLoadMinimal(t *testing.T) {
	b, err := LoadDir("testdata/minimal", "v7")
	require.NoError(t, err)
	assert.Equal(t, "v7", b.Version())
	assert.Regexp(t, hex64, b.Digest())

	defs := b.Definitions()
	require.Len(t, defs.Models, 2)
	require.Len(t, defs.Relationships, 1)
	require.Len(t, defs.Metrics, 2)

	orders, ok := b.Model("orders")
	require.True(t, ok)
	assert.Equal(t, "shop", orders.Source)
	assert.Equal(t, "sales.orders", orders.Table)
	assert.Equal(t, []string{"order_id"}, orders.PrimaryKey)
	assert.Equal(t, "One row per order line, as booked.", orders.Description)
	amount, _ := orders.Column("amount")
	assert.Equal(t, domain.ModelColumn{Name: "amount", Type: domain.TypeDecimal, Description: "Net amount in euros."}, amount)
	channel, _ := orders.Column("channel")
	assert.Equal(t, domain.ModelColumn{Name: "channel"}, channel)
	assert.Nil(t, orders.Audience)
	regions, _ := b.Model("regions")
	assert.Nil(t, regions.Audience, "audience: open on a model is the same as none")

	r, ok := b.Relationship("orders_region")
	require.True(t, ok)
	assert.Equal(t, domain.Relationship{Name: "orders_region", Origin: domain.Endpoint{Model: "orders", Column: "region_id"},
		Target: domain.Endpoint{Model: "regions", Column: "region_id"}, JoinType: domain.ManyToOne,
		Description: "Each order belongs to one region."}, *r)

	ns, ok := b.Metric("net_sales")
	require.True(t, ok)
	assert.Equal(t, &domain.Measure{Simple: &domain.Term{Aggregate: domain.Sum, Column: "amount"}}, ns.Measure)
	assert.Equal(t, []domain.Grain{domain.Month, domain.Quarter}, ns.Grains)
	area, ok := ns.Dimension("area")
	require.True(t, ok)
	assert.Equal(t, domain.Dimension{Name: "area", Column: "area", Via: []string{"orders_region"}, Values: []string{"east", "west"},
		Filterable: true, Description: "The sales area."}, *area)
	ch, _ := ns.Dimension("channel")
	assert.False(t, ch.Filterable)
	assert.Nil(t, ch.Values)
	assert.Equal(t, []domain.RequiredFilter{{Op: domain.IsNotNull, Column: "amount"}, {Op: domain.NotEquals, Column: "channel", Value: "test"}}, ns.RequiredFilters)
	require.NotNil(t, ns.Anchor)
	assert.Equal(t, "1234.50", ns.Anchor.Value, "an unquoted number keeps its text")
	assert.Equal(t, "2026-01-01", ns.Anchor.Range.Start.String())
	assert.Equal(t, "2026-04-01", ns.Anchor.Range.End.String())
	assert.True(t, ns.Audience.Open())

	rr, _ := b.Metric("return_rate")
	assert.Equal(t, &domain.Ratio{Numerator: domain.Term{CountIf: "is_returned"}, Denominator: domain.Term{Aggregate: domain.Count, Column: "order_id"},
		ZeroDenominator: domain.YieldsNull}, rr.Measure.Ratio)
	assert.Equal(t, []string{"finance"}, rr.Audience.Restricted)
	assert.Empty(t, rr.Dimensions)
	assert.Empty(t, rr.RequiredFilters)
	for _, m := range []string{"net_sales", "return_rate"} {
		assert.Regexp(t, hex64, b.MetricDigest(m))
	}

	k := b.Knowledge()
	require.Len(t, k.Glossary, 2)
	assert.Equal(t, domain.Glossary{Term: "eastern sales", Means: domain.Meaning{Metric: "net_sales", Dimension: "area", Value: "east"}}, k.Glossary[0])
	assert.Equal(t, domain.Glossary{Term: "revenue", Synonyms: []string{"turnover"}, Means: domain.Meaning{Metric: "net_sales"},
		Note: "Revenue always means net sales here."}, k.Glossary[1])
	require.Len(t, k.Caveats, 1)
	assert.Equal(t, []string{"net_sales.area", "return_rate"}, k.Caveats[0].About)
	require.Len(t, k.NotDefined, 1)
	assert.Equal(t, "profit", k.NotDefined[0].Phrase)
	require.Len(t, k.Examples, 1)
	q := k.Examples[0].Question
	assert.Equal(t, []string{"net_sales"}, q.Metrics)
	assert.Equal(t, domain.Month, q.Grain)
	assert.Equal(t, "2026-01-01", q.Range.Fixed.Start.String())
	assert.Equal(t, []domain.Filter{{Op: domain.OpEq, Dimension: "area", Values: []string{"east"}}}, q.Filters)
	assert.Equal(t, &domain.Top{N: 5, By: domain.ByMetric, Direction: "desc"}, q.Top)
}

// Values that YAML would type as dates, numbers or booleans are read as
// the text the author wrote wherever the catalogue wants text.
func TestLoadKeepsScalarText(t *testing.T) {
	base := fixture(t, "minimal")
	fsys := replace(t, base, netSales, "values: [east, west]", "values: [2026-01-01, 1234, 1234.50, true, 0x10, 1e3, 007, yes, null_]")
	fsys = replace(t, fsys, netSales, "{column: channel, value: test}", "{column: channel, value: 0042}")
	fsys = replace(t, fsys, eastSales, "value: east}", "value: 1e3}")
	fsys = replace(t, fsys, example, "value: east}", "value: 007}")
	fsys = replace(t, fsys, example, "range: {start: 2026-01-01, end: 2026-04-01}", "range: {last: {count: 0x3, unit: month, include_current: true}}")
	b, err := Load(fsys, "v1")
	require.NoError(t, err)
	ns, _ := b.Metric("net_sales")
	area, _ := ns.Dimension("area")
	assert.ElementsMatch(t, []string{"2026-01-01", "1234", "1234.50", "true", "0x10", "1e3", "007", "yes", "null_"}, area.Values)
	assert.Contains(t, ns.RequiredFilters, domain.RequiredFilter{Op: domain.NotEquals, Column: "channel", Value: "0042"})
	q := b.Knowledge().Examples[0].Question
	assert.Equal(t, []string{"007"}, q.Filters[0].Values)
	assert.Equal(t, &domain.Relative{Count: 3, Unit: domain.Month, IncludeCurrent: true}, q.Range.Relative)
}

func TestLoadAuthoredSQL(t *testing.T) {
	base := fixture(t, "minimal")
	fsys := replace(t, base, returnRate, "measure:\n  ratio:\n    numerator: {count_if: is_returned}\n    denominator: {aggregate: count, column: order_id}\n    zero_denominator: yields_null\n",
		"authored_sql:\n  postgres: avg(amount)\n  duckdb: avg(amount)\n")
	b, err := Load(fsys, "v1")
	require.NoError(t, err)
	rr, _ := b.Metric("return_rate")
	assert.Nil(t, rr.Measure)
	assert.Equal(t, map[string]string{"postgres": "avg(amount)", "duckdb": "avg(amount)"}, rr.AuthoredSQL)
}

// The demo catalogue the cli embeds must load.
func TestLoadDemo(t *testing.T) {
	const dir = "../../examples/demo/catalog"
	paths, _ := documentPaths(os.DirFS(dir), nil)
	require.NotEmpty(t, paths, "the demo catalogue has documents")
	b, err := LoadDir(dir, "demo")
	require.NoError(t, err)
	assert.Regexp(t, hex64, b.Digest())
}

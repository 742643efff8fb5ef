package mdcatalog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

// Catalogues written for other sutura implementations write referents as
// the mapping {metric, dimension?, value?} and may leave out a metric's
// dimensions; each form loads to the same values, and digests alike, as
// the equivalent form written here.
func TestReferentFormsDigestAlike(t *testing.T) {
	base := fixture(t, "minimal")
	ref, err := Load(base, "v1")
	require.NoError(t, err)
	cases := []struct {
		name, file, old, new string
	}{
		{"caveat referents as mappings", caveat, "about: [return_rate, net_sales.area]",
			"about: [{metric: return_rate}, {metric: net_sales, dimension: area}]"},
		{"caveat referents mixed", caveat, "about: [return_rate, net_sales.area]",
			"about:\n  - return_rate\n  - metric: net_sales\n    dimension: area"},
		{"glossary means as a name", revenue, "means: {metric: net_sales}", "means: net_sales"},
		{"metric without dimensions", returnRate, "dimensions: []\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := Load(replace(t, base, c.file, c.old, c.new), "v1")
			require.NoError(t, err)
			assert.Equal(t, ref.Digest(), b.Digest())
			want, _ := ref.Canonical()
			got, _ := b.Canonical()
			assert.Equal(t, string(want), string(got))
		})
	}
}

func TestGlossaryMeansDimensionByName(t *testing.T) {
	b, err := Load(replace(t, fixture(t, "minimal"), revenue, "means: {metric: net_sales}", "means: net_sales.area"), "v1")
	require.NoError(t, err)
	g := b.Knowledge().Glossary
	require.Len(t, g, 2)
	assert.Equal(t, domain.Meaning{Metric: "net_sales", Dimension: "area"}, g[1].Means)
}

// A caveat may be about one allowlisted value of a dimension; it is kept
// as metric.dimension=value, and a value off the allowlist is refused.
func TestCaveatAboutAValue(t *testing.T) {
	base := fixture(t, "minimal")
	b, err := Load(replace(t, base, caveat, "about: [return_rate, net_sales.area]",
		"about: [return_rate, {metric: net_sales, dimension: area, value: east}]"), "v1")
	require.NoError(t, err)
	assert.Equal(t, []string{"net_sales.area=east", "return_rate"}, b.Knowledge().Caveats[0].About)

	cases := []errorCase{
		{name: "value off the allowlist", is: ErrInconsistent, file: caveat, key: "about[1]", marker: "about:", reason: "allowlisted",
			fsys: swap(caveat, "net_sales.area]", "{metric: net_sales, dimension: area, value: "+planted+"}]")},
		{name: "value without a dimension", is: ErrSchema, file: caveat, key: "about[1].dimension", marker: "about:", reason: "required when value",
			fsys: swap(caveat, "net_sales.area]", "{metric: net_sales, value: "+planted+"}]")},
		{name: "mapping without a metric", is: ErrSchema, file: caveat, key: "about[1].metric", marker: "about:", reason: "is required",
			fsys: swap(caveat, "net_sales.area]", "{dimension: area}]")},
		{name: "unknown key in a mapping", is: ErrUnknownKey, file: caveat, key: "about[1].colour", marker: "about:", reason: "allowed: dimension, metric, value",
			fsys: swap(caveat, "net_sales.area]", "{metric: net_sales, colour: "+planted+"}]")},
		{name: "referent neither name nor mapping", is: ErrSchema, file: caveat, key: "about[1]", marker: "about:", reason: "a string or a mapping",
			fsys: swap(caveat, "net_sales.area]", "["+planted+"]]")},
		{name: "mapping referent unknown dimension", is: ErrInconsistent, file: caveat, key: "about[1]", marker: "about:", reason: "referent",
			fsys: swap(caveat, "net_sales.area]", "{metric: net_sales, dimension: nosuch}]")},
		{name: "glossary name form unknown metric", is: ErrInconsistent, file: revenue, key: "means.metric", marker: "means:", reason: "does not exist",
			fsys: swap(revenue, "means: {metric: net_sales}", "means: nosuch")},
		{name: "glossary name form not a name", is: ErrSchema, file: revenue, key: "means", marker: "means:", reason: "not a metric name",
			fsys: swap(revenue, "means: {metric: net_sales}", "means: \""+planted+"\"")},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

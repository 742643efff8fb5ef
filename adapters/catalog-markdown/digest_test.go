package mdcatalog

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDigestIgnoresFormatting(t *testing.T) {
	a, err := LoadDir("testdata/minimal", "v1")
	require.NoError(t, err)
	b, err := LoadDir("testdata/reformatted", "v2")
	require.NoError(t, err)
	ca, _ := a.Canonical()
	cb, _ := b.Canonical()
	assert.Equal(t, string(ca), string(cb))
	assert.Equal(t, a.Digest(), b.Digest())
	for _, m := range []string{"net_sales", "return_rate"} {
		assert.Equal(t, a.MetricDigest(m), b.MetricDigest(m), m)
	}
}

func TestDigestMovesWithMeaning(t *testing.T) {
	base := fixture(t, "minimal")
	ref, err := Load(base, "v1")
	require.NoError(t, err)
	cases := []struct {
		name, file, old, new string
		metricMoves          []string // metric digests that must move
	}{
		{"model description", orders, "One row per order line", "One row per order", []string{"net_sales", "return_rate"}},
		{"metric description", netSales, "test orders excluded", "test orders left out", []string{"net_sales"}},
		{"dimension description", netSales, "The sales area.", "The area.", []string{"net_sales"}},
		{"relationship description", rel, "belongs to one region", "has one region", []string{"net_sales"}},
		{"required-filter value", netSales, "value: test}", "value: tests}", []string{"net_sales"}},
		{"allowlist", netSales, "values: [east, west]", "values: [east, west, north]", []string{"net_sales"}},
		{"anchor value", netSales, "value: 1234.50", "value: 1234.5", []string{"net_sales"}},
		{"grain", returnRate, "grains: [month]", "grains: [month, year]", []string{"return_rate"}},
		{"audience", returnRate, "restricted: [finance]", "restricted: [finance, sales]", []string{"return_rate"}},
		{"glossary note", revenue, "always means", "means", nil},
		{"example question", example, "n: 5", "n: 6", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := Load(replace(t, base, c.file, c.old, c.new), "v1")
			require.NoError(t, err)
			assert.NotEqual(t, ref.Digest(), b.Digest())
			for _, m := range []string{"net_sales", "return_rate"} {
				if slices.Contains(c.metricMoves, m) {
					assert.NotEqual(t, ref.MetricDigest(m), b.MetricDigest(m), m)
				} else {
					assert.Equal(t, ref.MetricDigest(m), b.MetricDigest(m), m)
				}
			}
		})
	}
}

// The version label is not digested.
func TestDigestIgnoresVersion(t *testing.T) {
	a, err := LoadDir("testdata/minimal", "v1")
	require.NoError(t, err)
	b, err := LoadDir("testdata/minimal", "v2")
	require.NoError(t, err)
	assert.Equal(t, a.Digest(), b.Digest())
}

package semantic_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// TestCheckExamples: an example is checked by the compiler itself —
// resolution and planning under the deployment's ceilings — so every
// refusal a caller could meet is found at start-up, naming the example
// and the refusal's code; an example the compiler answers passes.
func TestCheckExamples(t *testing.T) {
	good := domain.Question{Metrics: []string{"net_sales"}, Grain: domain.Month,
		Range:      domain.TimeSpan{Relative: &domain.Relative{Count: 3, Unit: domain.Month}},
		Dimensions: []string{"area"}}
	cases := []struct {
		name string
		edit func(q *domain.Question)
		want domain.Code // "" when the example passes
	}{
		{"answerable", func(*domain.Question) {}, ""},
		{"unknown metric", func(q *domain.Question) { q.Metrics = []string{"nope"} }, domain.MetricUnknown},
		{"undeclared dimension", func(q *domain.Question) { q.Dimensions = []string{"area", "nope"} }, domain.DimensionNotPermitted},
		{"undeclared grain", func(q *domain.Question) {
			q.Grain = domain.Day
			q.Metrics = []string{"new_customers"}
			q.Dimensions = nil
		},
			domain.GrainNotSupported},
		{"value off the allowlist", func(q *domain.Question) {
			q.Filters = []domain.Filter{{Op: domain.OpIn, Dimension: "area", Values: []string{areas[0], "Atlantis"}}}
		}, domain.DimensionValueNotAllowed},
		{"group-by-only dimension filtered", func(q *domain.Question) {
			q.Metrics = []string{"units_sold"}
			q.Dimensions = nil
			q.Filters = []domain.Filter{{Op: domain.OpEq, Dimension: "buyer_segment", Values: []string{"retail"}}}
		}, domain.DimensionNotFilterable},
		{"top over two metrics", func(q *domain.Question) {
			q.Metrics = []string{"net_sales", "gross_sales"}
			q.Dimensions = nil
			q.Top = &domain.Top{N: 3, By: domain.ByMetric}
		}, domain.MultiMetricTopNotExecutable},
		{"metrics of two models", func(q *domain.Question) { q.Metrics = []string{"net_sales", "new_customers"}; q.Dimensions = nil },
			domain.MetricsSpanDifferentModels},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := good
			q.Dimensions = append([]string(nil), good.Dimensions...)
			c.edit(&q)
			b, err := domain.NewBundle("test-1", definitions(demoValues), domain.Knowledge{Examples: []domain.Example{
				{Name: "sales_by_area", Asked: []string{"sales by area"}, Question: q},
			}})
			require.NoError(t, err, "the vocabulary's own check leaves examples to the compiler")
			err = semantic.CheckExamples(b, domain.DateOf(2026, 7, 1), semantic.Ceilings{})
			if c.want == "" {
				require.NoError(t, err)
				return
			}
			var ee *semantic.ExampleError
			require.True(t, errors.As(err, &ee), "%v", err)
			assert.Equal(t, "sales_by_area", ee.Example)
			assert.Equal(t, c.want, ee.Code)
			assert.Contains(t, err.Error(), "example sales_by_area: its question is refused ("+string(c.want)+")")
		})
	}
}

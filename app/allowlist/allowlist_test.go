package allowlist_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/allowlist"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
)

// cities answers every plan with one row per city it holds, and records
// which metric each plan asked.
type cities struct {
	mu    sync.Mutex
	held  []string
	asked []string
	dims  []int // dimensions per question asked
	// onlyOne fails every question grouped by more than one dimension.
	onlyOne bool
}

func (c *cities) Execute(_ context.Context, plan *domain.Plan) (*domain.RowSet, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, plan.Columns[len(plan.Columns)-1].Name)
	n := 0
	for _, col := range plan.Columns {
		if col.Role == domain.RoleDimension {
			n++
		}
	}
	c.dims = append(c.dims, n)
	if c.onlyOne && n > 1 {
		return nil, domain.ErrUnavailable
	}
	rs := &domain.RowSet{Columns: plan.Columns}
	for _, city := range c.held {
		row := make([]domain.Cell, len(plan.Columns))
		for i, col := range plan.Columns {
			switch col.Name {
			case "city", "town":
				row[i] = domain.Text(city)
			case "kind":
				row[i] = domain.Text("a")
			default:
				row[i] = domain.Int(1)
			}
		}
		rs.Rows = append(rs.Rows, row)
	}
	return rs, nil
}

// TestCheckAsksTheCheapestMetricOnce: metrics that read the same rows
// (model, time column, required filters) share one question per dimension
// column, asked of the cheapest measure; a metric with other required
// filters gets its own; every metric still reports its unused values.
func TestCheckAsksTheCheapestMetricOnce(t *testing.T) {
	defs := apptest.Definitions()
	defs.Metrics = defs.Metrics[:1] // revenue: sum of amount, city (Lyon, Paris)
	rev := defs.Metrics[0]
	rev.Anchor = nil
	buyers := rev
	buyers.Name, buyers.Measure = "buyers", &domain.Measure{Simple: &domain.Term{Aggregate: domain.CountDistinct, Column: "note"}}
	sales := rev
	sales.Name, sales.Measure = "sales_count", &domain.Measure{Simple: &domain.Term{Aggregate: domain.Count, Column: "amount"}}
	sales.Dimensions = []domain.Dimension{{Name: "town", Column: "city", Filterable: true, Values: []string{"Lyon", "Nice"}}}
	big := rev
	big.Name = "big_revenue"
	big.RequiredFilters = []domain.RequiredFilter{{Op: domain.Equals, Column: "note", Value: "big"}}
	defs.Metrics = []domain.Metric{rev, buyers, sales, big}
	b, err := domain.NewBundle("v1", defs, domain.Knowledge{})
	require.NoError(t, err)

	sys := &cities{held: []string{"Lyon"}}
	spans := app.Spans{}
	rep, err := allowlist.Check(context.Background(), b, apptest.Sources(sys), spans, domain.DateOf(2026, 1, 1))
	require.NoError(t, err)
	assert.Equal(t, 4, rep.Checked)
	assert.Equal(t, 2, rep.Questions, "one question for the three metrics reading the same rows, one for big_revenue")
	assert.ElementsMatch(t, []string{"sales_count", "big_revenue"}, sys.asked, "the count is asked, not the sum nor the distinct count")
	assert.ElementsMatch(t, []allowlist.UnusedValue{
		{Metric: "revenue", Dimension: "city", Value: "Paris"},
		{Metric: "buyers", Dimension: "city", Value: "Paris"},
		{Metric: "sales_count", Dimension: "town", Value: "Nice"},
		{Metric: "big_revenue", Dimension: "city", Value: "Paris"},
	}, rep.Unused)
	assert.True(t, slices.Contains(rep.Windowed, "revenue"), "no span told: the last MaxSpanDays days were read")
}

// twoDimensions is the demo definitions with revenue alone, unanchored,
// filterable by city (Lyon, Paris) and kind (a, b).
func twoDimensions() domain.Definitions {
	defs := apptest.Definitions()
	defs.Metrics = defs.Metrics[:1]
	defs.Metrics[0].Anchor = nil
	defs.Metrics[0].Dimensions = append(defs.Metrics[0].Dimensions,
		domain.Dimension{Name: "kind", Column: "note", Filterable: true, Values: []string{"a", "b"}})
	return defs
}

// TestCheckPacksTheDimensionsOfOneMetric: the filterable dimensions of one
// metric are asked in one question grouped by all of them; when that
// question fails, each is asked alone, with the same report.
func TestCheckPacksTheDimensionsOfOneMetric(t *testing.T) {
	defs := twoDimensions()
	b, err := domain.NewBundle("v1", defs, domain.Knowledge{})
	require.NoError(t, err)
	want := []allowlist.UnusedValue{{Metric: "revenue", Dimension: "city", Value: "Paris"}, {Metric: "revenue", Dimension: "kind", Value: "b"}}
	for _, tc := range []struct {
		name      string
		onlyOne   bool
		questions int
		dims      []int
	}{
		{"packed", false, 1, []int{2}},
		{"the packed question fails", true, 3, []int{2, 1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sys := &cities{held: []string{"Lyon"}, onlyOne: tc.onlyOne}
			rep, err := allowlist.Check(context.Background(), b, apptest.Sources(sys), app.Spans{}, domain.DateOf(2026, 1, 1))
			require.NoError(t, err)
			assert.Equal(t, 2, rep.Checked)
			assert.Equal(t, tc.questions, rep.Questions)
			assert.Equal(t, tc.dims, sys.dims)
			assert.ElementsMatch(t, want, rep.Unused)
			assert.Empty(t, rep.Unchecked)
		})
	}
}

// preparing is cities that can prepare: it records the plans it is
// handed, before any executes, and the plans it executes.
type preparing struct {
	cities
	prepared, executed []string
	early              bool // a plan executed before Prepare was called
}

func (p *preparing) Prepare(_ context.Context, plans []*domain.Plan) {
	for _, pl := range plans {
		j, _ := json.Marshal(pl)
		p.prepared = append(p.prepared, string(j))
	}
}

func (p *preparing) Execute(ctx context.Context, plan *domain.Plan) (*domain.RowSet, error) {
	j, _ := json.Marshal(plan)
	p.executed = append(p.executed, string(j))
	p.early = p.early || len(p.prepared) == 0
	return p.cities.Execute(ctx, plan)
}

// TestCheckPreparesItsQuestions: a data system that can prepare is handed
// every question Check is about to ask, equal to the plans it then
// executes, before the first executes (so one scan of a table may answer
// them all); a question asked only because a packed one failed is not.
func TestCheckPreparesItsQuestions(t *testing.T) {
	defs := twoDimensions()
	big := defs.Metrics[0]
	big.Name = "big_revenue"
	big.RequiredFilters = []domain.RequiredFilter{{Op: domain.Equals, Column: "note", Value: "big"}}
	defs.Metrics = append(defs.Metrics, big)
	b, err := domain.NewBundle("v1", defs, domain.Knowledge{})
	require.NoError(t, err)

	sys := &preparing{cities: cities{held: []string{"Lyon"}}}
	rep, err := allowlist.Check(context.Background(), b, apptest.Sources(sys), app.Spans{}, domain.DateOf(2026, 1, 1))
	require.NoError(t, err)
	assert.Equal(t, 2, rep.Questions)
	assert.False(t, sys.early, "a question executed before the questions were prepared")
	assert.ElementsMatch(t, sys.executed, sys.prepared, "the prepared plans are those executed")

	failing := &preparing{cities: cities{held: []string{"Lyon"}, onlyOne: true}}
	rep, err = allowlist.Check(context.Background(), b, apptest.Sources(failing), app.Spans{}, domain.DateOf(2026, 1, 1))
	require.NoError(t, err)
	assert.Equal(t, 6, rep.Questions, "each packed question failed: its two dimensions asked alone")
	assert.Len(t, failing.prepared, 2, "only the packed questions are prepared")
	assert.Subset(t, failing.executed, failing.prepared)
}

package conformance

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"sutura.dev/domain"
)

// RandomQuestion draws a valid question of the catalogue b for the
// differential suites, in the wire shape (marshal it and parse it with
// domain.ParseQuestion): metrics that share a model and time column, a
// grain they all declare, a range of up to two years, up to four
// dimensions they all declare, filters on allowlisted values, and
// sometimes top.
func RandomQuestion(rng *rand.Rand, b *domain.Bundle) map[string]any {
	metrics := b.Definitions().Metrics
	first := metrics[rng.IntN(len(metrics))]
	chosen := []domain.Metric{first}
	for _, m := range metrics {
		if m.Name != first.Name && m.Model == first.Model && m.TimeColumn == first.TimeColumn && len(chosen) < 3 && rng.IntN(4) == 0 {
			chosen = append(chosen, m)
		}
	}
	var grains []domain.Grain
	for _, g := range domain.Grains {
		ok := true
		for _, m := range chosen {
			ok = ok && m.HasGrain(g)
		}
		if ok {
			grains = append(grains, g)
		}
	}
	if len(grains) == 0 {
		chosen, grains = chosen[:1], first.Grains
	}
	grain := grains[rng.IntN(len(grains))]
	var names []string
	for _, m := range chosen {
		names = append(names, m.Name)
	}
	// Dimensions every chosen metric declares, the same way.
	var shared []domain.Dimension
	for _, d := range first.Dimensions {
		ok := true
		for _, m := range chosen[1:] {
			o, has := m.Dimension(d.Name)
			ok = ok && has && o.Column == d.Column && slices.Equal(o.Via, d.Via)
		}
		if ok {
			shared = append(shared, d)
		}
	}
	rng.Shuffle(len(shared), func(i, j int) { shared[i], shared[j] = shared[j], shared[i] })
	dims := []string{}
	for _, d := range shared[:rng.IntN(min(4, len(shared))+1)] {
		dims = append(dims, d.Name)
	}
	filters := []any{}
	for _, d := range shared {
		if !d.Filterable || rng.IntN(3) != 0 || len(filters) == 2 {
			continue
		}
		vals := slices.Clone(d.Values)
		rng.Shuffle(len(vals), func(i, j int) { vals[i], vals[j] = vals[j], vals[i] })
		switch rng.IntN(3) {
		case 0:
			filters = append(filters, map[string]any{"op": "eq", "dimension": d.Name, "value": vals[0]})
		case 1:
			filters = append(filters, map[string]any{"op": "in", "dimension": d.Name, "values": vals[:1+rng.IntN(len(vals))]})
		default:
			filters = append(filters, map[string]any{"op": "not_in", "dimension": d.Name, "values": vals[:1+rng.IntN(len(vals))]})
		}
	}
	start := domain.DateOf(2024, 1, 1).AddDays(rng.IntN(900))
	end := start.AddDays(1 + rng.IntN(730))
	q := map[string]any{"metrics": names, "grain": grain.String(),
		"range": map[string]any{"start": start.String(), "end": end.String()}, "dimensions": dims, "filters": filters}
	if len(names) == 1 && rng.IntN(5) == 0 {
		q["top"] = map[string]any{"n": 1 + rng.IntN(10), "by": []string{"metric", "period"}[rng.IntN(2)], "direction": []string{"desc", "asc"}[rng.IntN(2)]}
	}
	return q
}

// CompareAnswers returns "" when got and want hold the same columns and
// rows cell for cell (reals to 1e-9 relative, as Run compares), and
// otherwise a sentence naming the first difference.
func CompareAnswers(got, want *domain.Answer) string {
	if len(got.Columns) != len(want.Columns) {
		return fmt.Sprintf("%d columns, want %d", len(got.Columns), len(want.Columns))
	}
	if len(got.Rows) != len(want.Rows) {
		return fmt.Sprintf("%d rows, want %d", len(got.Rows), len(want.Rows))
	}
	for i := range got.Rows {
		for j := range got.Rows[i] {
			g, w := got.Rows[i][j], want.Rows[i][j]
			text := w.Render()
			var wp *string
			if !w.IsNull() {
				wp = &text
			}
			if !cellEqual(g, wp) || g.Kind() != w.Kind() && !g.IsNull() {
				return fmt.Sprintf("row %d column %s: %s (%v), want %s (%v)", i, got.Columns[j].Name, g.Render(), g.Kind(), text, w.Kind())
			}
		}
	}
	return ""
}

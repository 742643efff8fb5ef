package semantic

import (
	"strings"

	"sutura.dev/domain"
)

// maxSuggested bounds the length of a name a suggestion is looked for:
// beyond it the distance is not worth computing.
const maxSuggested = 128

// nearestVisible returns the name of the metric p may see that is nearest
// to name by edit distance (letter case ignored), when it is near enough
// to be a slip: at most two edits, or a quarter of the name's length for
// a longer one. Ties go to the first name in order; "" when none is near.
// Only visible metrics are candidates (Visible), so a name p may not see
// is never suggested.
func nearestVisible(b *domain.Bundle, p domain.Principal, name string) string {
	if name == "" || len(name) > maxSuggested {
		return ""
	}
	limit := max(2, len(name)/4)
	best, bestD := "", limit+1
	defs := b.Definitions()
	for i := range defs.Metrics {
		m := &defs.Metrics[i]
		if !Visible(b, p, m) {
			continue
		}
		if d := domain.EditDistance(strings.ToLower(name), strings.ToLower(m.Name)); d < bestD || (d == bestD && m.Name < best) {
			best, bestD = m.Name, d
		}
	}
	return best
}

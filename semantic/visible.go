package semantic

import "sutura.dev/domain"

// Visible reports whether principal p may see metric m of bundle b: the
// metric's audience and its model's must both admit p (a model's audience
// restricts every metric on it). A metric p may not see is answered exactly
// like a missing one, so the catalogue description must list only metrics
// for which Visible holds.
func Visible(b *domain.Bundle, p domain.Principal, m *domain.Metric) bool {
	return p.CanSee(m.Audience) && modelVisible(b, p, m.Model)
}

// DimensionVisible reports whether p may see dimension d of metric m: the
// metric is visible and so is every model on the dimension's path (a
// model's audience restricts every dimension read from it, or through it).
// A dimension p may not see is undeclared for p: asked for, it is refused
// exactly like a dimension the metric does not have.
func DimensionVisible(b *domain.Bundle, p domain.Principal, m *domain.Metric, d *domain.Dimension) bool {
	if !Visible(b, p, m) {
		return false
	}
	at := m.Model
	for _, name := range d.Via {
		r, ok := b.Relationship(name)
		if !ok {
			return false
		}
		next, _, ok := domain.Step(r, at)
		if !ok || !modelVisible(b, p, next) {
			return false
		}
		at = next
	}
	return true
}

// modelVisible reports whether p may see the model called name; a model
// without an audience is open.
func modelVisible(b *domain.Bundle, p domain.Principal, name string) bool {
	mod, ok := b.Model(name)
	return ok && (mod.Audience == nil || p.CanSee(*mod.Audience))
}

package semantic

import (
	"slices"
	"strings"

	"sutura.dev/domain"
)

// Compile resolves q against bundle b for principal p, with today the
// server's current date (for relative ranges), and plans it under the
// default ceilings. It returns the plan, or the first reason the question
// is refused, in the order the package documentation lists. Compile reads
// b only and never blocks; the plan shares no memory the caller could
// change in b.
func Compile(b *domain.Bundle, p domain.Principal, q domain.Question, today domain.Date) (*domain.Plan, *domain.Reason) {
	return CompileWith(b, p, q, today, Ceilings{})
}

// CompileWith is Compile under the deployment's ceilings of a federated
// plan (governance.lookup_leg_ceiling, governance.source_ceiling).
func CompileWith(b *domain.Bundle, p domain.Principal, q domain.Question, today domain.Date, c Ceilings) (*domain.Plan, *domain.Reason) {
	r, why := resolve(b, p, q, today)
	if why != nil {
		return nil, why
	}
	return plan(b, r, c)
}

// resolved is a question checked against the bundle.
type resolved struct {
	b       *domain.Bundle
	p       domain.Principal
	q       domain.Question
	metrics []*domain.Metric
	rng     domain.Range
	// dims and filterDims are the dimension definitions of the first
	// metric, which every metric asked declares the same way.
	dims       []*domain.Dimension
	filterDims []*domain.Dimension
}

func refuse(c domain.Code, format string, args ...any) *domain.Reason {
	r := domain.Refuse(c, format, args...)
	return &r
}

func resolve(b *domain.Bundle, p domain.Principal, q domain.Question, today domain.Date) (*resolved, *domain.Reason) {
	r := &resolved{q: q}
	r.b, r.p = b, p
	if why := r.resolveMetrics(b, p); why != nil {
		return nil, why
	}
	if why := r.resolveShape(today); why != nil {
		return nil, why
	}
	for i, name := range q.Dimensions {
		d, why := r.dimension(name)
		if why != nil {
			return nil, why
		}
		for _, prev := range q.Dimensions[:i] {
			if prev == name {
				return nil, refuse(domain.DuplicateDimension, "dimension %s is asked for more than once", name)
			}
		}
		r.dims = append(r.dims, d)
	}
	for i, f := range q.Filters {
		for _, prev := range q.Filters[:i] {
			if prev.Dimension == f.Dimension {
				return nil, refuse(domain.DuplicateDimension, "dimension %s is filtered more than once", f.Dimension)
			}
		}
		d, why := r.filter(f)
		if why != nil {
			return nil, why
		}
		r.filterDims = append(r.filterDims, d)
	}
	return r, nil
}

// resolveMetrics runs the metrics step: count, duplicates, then each name
// known and visible, then one model and one time column.
func (r *resolved) resolveMetrics(b *domain.Bundle, p domain.Principal) *domain.Reason {
	q := r.q
	if len(q.Metrics) == 0 {
		return refuse(domain.MetricUnknown, "the question names no metric")
	}
	if len(q.Metrics) > domain.MaxMetrics {
		return refuse(domain.TooManyMetrics, "a question may ask for at most %d metrics; this one asks for %d", domain.MaxMetrics, len(q.Metrics))
	}
	for i, name := range q.Metrics {
		for _, prev := range q.Metrics[:i] {
			if prev == name {
				return refuse(domain.DuplicateMetricName, "metric %s is asked for more than once", name)
			}
		}
	}
	for _, name := range q.Metrics {
		m, ok := b.Metric(name)
		if !ok || !Visible(b, p, m) {
			return unknownMetric(b, p, name)
		}
		r.metrics = append(r.metrics, m)
	}
	first := r.metrics[0]
	for _, m := range r.metrics[1:] {
		if m.Model != first.Model {
			return refuse(domain.MetricsSpanDifferentModels, "metrics %s and %s are defined on different models and cannot be asked together", first.Name, m.Name)
		}
		if m.TimeColumn != first.TimeColumn {
			return refuse(domain.MetricsSpanDifferentModels, "metrics %s and %s are dated by different time columns and cannot be asked together", first.Name, m.Name)
		}
	}
	return nil
}

// unknownMetric is the one refusal for a metric that does not exist and for
// one the caller may not see: the two must be indistinguishable. It
// suggests the nearest name among the metrics p may see, never another:
// a hidden metric is never named, so the suggestion says nothing of it.
func unknownMetric(b *domain.Bundle, p domain.Principal, name string) *domain.Reason {
	if near := nearestVisible(b, p, name); near != "" {
		return refuse(domain.MetricUnknown, "there is no metric called %s; the nearest metric you can ask for is %s", name, near)
	}
	return refuse(domain.MetricUnknown, "there is no metric called %s", name)
}

// resolveShape runs the steps that need no dimension: grain, span, counts
// and the top ceiling.
func (r *resolved) resolveShape(today domain.Date) *domain.Reason {
	q := r.q
	g := q.Grain
	if g < domain.Day || g > domain.Year {
		return refuse(domain.GrainNotSupported, "the question names no valid grain")
	}
	for _, m := range r.metrics {
		if !m.HasGrain(g) {
			grains := make([]string, len(m.Grains))
			for i, mg := range m.Grains {
				grains[i] = mg.String()
			}
			return refuse(domain.GrainNotSupported, "metric %s is not defined at %s grain; its grains are %s", m.Name, g, strings.Join(grains, ", "))
		}
	}
	switch s := q.Range; {
	case s.Fixed == nil && s.Relative == nil,
		s.Relative != nil && (s.Relative.Count < 1 || s.Relative.Unit < domain.Day || s.Relative.Unit > domain.Year):
		return refuse(domain.TimeRangeTooLong, "the range must be bounded, with an end after its start")
	}
	if s := q.Range.Relative; s != nil && s.Count > domain.MaxSpanDays {
		// Even the finest unit would exceed the span; also keeps the date
		// arithmetic in range.
		return refuse(domain.TimeRangeTooLong, "the range covers more than %d days", domain.MaxSpanDays)
	}
	r.rng = q.Range.Resolve(today)
	if r.rng.End <= r.rng.Start {
		return refuse(domain.TimeRangeTooLong, "the range must be bounded, with an end after its start")
	}
	if r.rng.Days() > domain.MaxSpanDays {
		return refuse(domain.TimeRangeTooLong, "the range covers more than %d days", domain.MaxSpanDays)
	}
	if len(q.Dimensions) > domain.MaxDimensions {
		return refuse(domain.TooManyDimensions, "a question may group by at most %d dimensions; this one asks for %d", domain.MaxDimensions, len(q.Dimensions))
	}
	if len(q.Filters) > domain.MaxFilters {
		return refuse(domain.TooManyFilters, "a question may hold at most %d filters; this one holds %d", domain.MaxFilters, len(q.Filters))
	}
	if t := q.Top; t != nil {
		if t.N > domain.MaxRowCap {
			return refuse(domain.ResultTooLarge, "top.n may be at most the row cap of %d", domain.MaxRowCap)
		}
		if t.N < 1 || (t.By != domain.ByMetric && t.By != domain.ByPeriod) ||
			(t.Direction != "" && t.Direction != "asc" && t.Direction != "desc") {
			return refuse(domain.ResultTooLarge, "top keeps 1 to %d groups ranked by metric or period, asc or desc", domain.MaxRowCap)
		}
	}
	return nil
}

// dimension returns the definition of the dimension called name, which
// every metric asked must declare with the same column and via chain, and
// the caller must be allowed to see (DimensionVisible); one it may not see
// is refused exactly like one the metric does not declare.
func (r *resolved) dimension(name string) (*domain.Dimension, *domain.Reason) {
	var first *domain.Dimension
	for _, m := range r.metrics {
		d, ok := m.Dimension(name)
		if !ok || !DimensionVisible(r.b, r.p, m, d) {
			return nil, refuse(domain.DimensionNotPermitted, "metric %s has no dimension %s; %s", m.Name, name, r.allowedDimensions(m, false))
		}
		if first == nil {
			first = d
			continue
		}
		if d.Column != first.Column || !slices.Equal(d.Via, first.Via) {
			return nil, refuse(domain.DimensionNotPermitted, "dimension %s means different things for metrics %s and %s, so they cannot be grouped or filtered by it together", name, r.metrics[0].Name, m.Name)
		}
	}
	return first, nil
}

// allowedDimensions says which dimensions of m the caller may group by
// (or, with filterable, filter on), for the detail of a refusal: names
// are catalogue data, and a dimension the caller may not see is not
// named.
func (r *resolved) allowedDimensions(m *domain.Metric, filterable bool) string {
	var names []string
	for i := range m.Dimensions {
		d := &m.Dimensions[i]
		if DimensionVisible(r.b, r.p, m, d) && (!filterable || d.Filterable) {
			names = append(names, d.Name)
		}
	}
	switch {
	case len(names) == 0 && filterable:
		return "it cannot be filtered on any dimension"
	case len(names) == 0:
		return "it has no dimensions"
	case filterable:
		return "it may be filtered on " + strings.Join(names, ", ")
	}
	return "its dimensions are " + strings.Join(names, ", ")
}

// filter checks one filter: declared, filterable, every value allowlisted
// by every metric asked. A refusal lists what the metric allows (names and
// allowlists are catalogue data), never the value asked for.
func (r *resolved) filter(f domain.Filter) (*domain.Dimension, *domain.Reason) {
	d, why := r.dimension(f.Dimension)
	if why != nil {
		return nil, why
	}
	for _, m := range r.metrics {
		md, _ := m.Dimension(f.Dimension)
		if !md.Filterable || len(md.Values) == 0 {
			return nil, refuse(domain.DimensionNotFilterable, "dimension %s of metric %s can be grouped by but not filtered on; %s", f.Dimension, m.Name, r.allowedDimensions(m, true))
		}
	}
	switch {
	case f.Op != domain.OpEq && f.Op != domain.OpIn && f.Op != domain.OpNotIn,
		len(f.Values) == 0,
		f.Op == domain.OpEq && len(f.Values) != 1,
		len(f.Values) > domain.MaxFilterValues:
		return nil, refuse(domain.DimensionValueNotAllowed, "the filter on dimension %s does not hold a valid list of values", f.Dimension)
	}
	for _, m := range r.metrics {
		md, _ := m.Dimension(f.Dimension)
		for _, v := range f.Values {
			if !md.Allows(v) {
				return nil, refuse(domain.DimensionValueNotAllowed, "a value in the filter on dimension %s is not on its allowlist; metric %s allows %s", f.Dimension, m.Name, strings.Join(md.Values, ", "))
			}
		}
	}
	return d, nil
}

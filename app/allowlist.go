package app

import (
	"context"
	"fmt"
	"slices"

	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// UnusedValue is an allowlisted value of a filterable dimension that the
// metric's data never holds: a filter on it answers no rows, forever,
// which is usually a typo in the catalogue ("midmarket" for "mid-market").
// Allowlist values are catalogue text, so they may be shown.
type UnusedValue struct {
	Metric, Dimension, Value string
}

// AllowlistReport is what CheckAllowlists found: how many filterable
// dimensions it read, every allowlisted value none of them holds, and the
// dimensions it could not read, each with the reason.
type AllowlistReport struct {
	Checked   int
	Unused    []UnusedValue
	Unchecked []string // "metric.dimension: why"
	// Windowed lists the metrics whose data span no data system told, read
	// over the last MaxSpanDays days only.
	Windowed []string
}

// CheckAllowlists asks, for every filterable dimension of every metric,
// which values the metric's data holds — the metric grouped by the
// dimension at its coarsest grain over its data span (spans, as ReadSpans
// read them; the last domain.MaxSpanDays days up to today when no data
// system told it), compiled by the compiler and run on the metric's data
// system as the local operator, one question per window of at most
// domain.MaxSpanDays days — and reports the allowlisted values that never
// occur. The metric's required filters apply, so a value only rows they
// exclude hold is unused for that metric. A dimension read from another
// data system than its metric (a federated plan) is not checked. Only the
// end of ctx is an error.
func CheckAllowlists(ctx context.Context, b *domain.Bundle, sources map[string]Source, spans Spans, today domain.Date) (AllowlistReport, error) {
	var rep AllowlistReport
	for _, m := range b.Definitions().Metrics {
		span, ok := spans.Of(m.Model, m.TimeColumn)
		if !ok {
			span = DataSpan{First: today.AddDays(-domain.MaxSpanDays + 1), Last: today}
		}
		windowed := false
		for _, d := range m.Dimensions {
			if !d.Filterable || len(d.Values) == 0 {
				continue
			}
			seen, why, err := dimensionValues(ctx, b, sources, m, d.Name, span)
			if err != nil {
				return rep, err
			}
			if why != "" {
				rep.Unchecked = append(rep.Unchecked, m.Name+"."+d.Name+": "+why)
				continue
			}
			windowed = windowed || !ok
			rep.Checked++
			for _, v := range d.Values {
				if !seen[v] {
					rep.Unused = append(rep.Unused, UnusedValue{Metric: m.Name, Dimension: d.Name, Value: v})
				}
			}
		}
		if windowed {
			rep.Windowed = append(rep.Windowed, m.Name)
		}
	}
	return rep, nil
}

// dimensionValues returns the values of dimension that metric m's answer
// holds over span, or why they cannot be read.
func dimensionValues(ctx context.Context, b *domain.Bundle, sources map[string]Source, m domain.Metric, dimension string, span DataSpan) (map[string]bool, string, error) {
	seen := map[string]bool{}
	grain := m.CoarsestGrain()
	for start := span.First; start <= span.Last; start = start.AddDays(domain.MaxSpanDays) {
		end := min(start.AddDays(domain.MaxSpanDays), span.Last.AddDays(1))
		r := domain.Range{Start: start, End: end}
		q := domain.Question{Metrics: []string{m.Name}, Grain: grain, Dimensions: []string{dimension},
			Range: domain.TimeSpan{Fixed: &r}}
		plan, why := semantic.Compile(b, domain.LocalOperator, q, span.Last)
		if why != nil {
			return nil, fmt.Sprintf("the question is refused (%s)", why.Code()), nil
		}
		if plan.Federated() {
			return nil, "the dimension is read from another data system than the metric", nil
		}
		src, ok := sources[plan.Legs[0].Source]
		if !ok || src.System == nil {
			return nil, "its data system is not open", nil
		}
		rows, err := src.System.Execute(ctx, plan)
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		if err != nil {
			return nil, "the data system failed the question", nil
		}
		col := slices.IndexFunc(rows.Columns, func(c domain.Column) bool { return c.Name == dimension })
		if col < 0 {
			return nil, "the answer has no column of the dimension", nil
		}
		for _, row := range rows.Rows {
			if c := row[col]; !c.IsNull() {
				seen[c.Render()] = true
			}
		}
	}
	return seen, "", nil
}

// Package allowlist reads a catalogue's allowlists against the data: for
// every filterable dimension of every metric, the allowlisted values the
// metric's data never holds (usually a typo in the catalogue), as
// `sutura validate` reports them.
//
// Contract: the values a metric's data holds depend only on its model, its
// time column, its required filters and the dimension's column and path,
// never on its measure; so metrics that share those are read with one
// question per dimension, asked of the one whose measure is cheapest
// (counts before sums, anything before a distinct count).
package allowlist

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"sutura.dev/app"
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

// Report is what Check found: how many filterable dimensions it read,
// every allowlisted value none of them holds, and the dimensions it could
// not read, each with the reason.
type Report struct {
	Checked   int
	Unused    []UnusedValue
	Unchecked []string // "metric.dimension: why"
	// Windowed lists the metrics whose data span no data system told, read
	// over the last MaxSpanDays days only.
	Windowed []string
	// Questions counts the questions asked of the data systems.
	Questions int
}

// Check asks, for every filterable dimension of every metric, which values
// the metric's data holds — a metric grouped by the dimension at its
// coarsest grain over its data span (spans, as app.ReadSpans read them;
// the last domain.MaxSpanDays days up to today when no data system told
// it), compiled by the compiler and run on the metric's data system as the
// local operator, one question per window of at most domain.MaxSpanDays
// days — and reports the allowlisted values that never occur. The metric
// asked is the cheapest of those reading the same rows (package doc); the
// required filters apply, so a value only rows they exclude hold is unused
// for that metric. A dimension read from another data system than its
// metric (a federated plan) is not checked. Only the end of ctx is an
// error.
func Check(ctx context.Context, b *domain.Bundle, sources map[string]app.Source, spans app.Spans, today domain.Date) (Report, error) {
	var rep Report
	metrics := b.Definitions().Metrics
	type result struct {
		seen map[string]bool
		why  string
	}
	read := map[string]result{} // by rowsKey + dimension key
	for _, m := range metrics {
		span, ok := spans.Of(m.Model, m.TimeColumn)
		if !ok {
			span = app.DataSpan{First: today.AddDays(-domain.MaxSpanDays + 1), Last: today}
		}
		windowed := false
		for _, d := range m.Dimensions {
			if !d.Filterable || len(d.Values) == 0 {
				continue
			}
			key := rowsKey(m) + "\x00" + dimKey(d)
			r, done := read[key]
			if !done {
				r.why = "no metric reads it"
				for _, c := range cheapest(metrics, m, d) {
					seen, why, err := dimensionValues(ctx, b, sources, c.metric, c.dimension, span)
					rep.Questions++
					if err != nil {
						return rep, err
					}
					r = result{seen, why}
					if why == "" {
						break
					}
				}
				read[key] = r
			}
			if r.why != "" {
				rep.Unchecked = append(rep.Unchecked, m.Name+"."+d.Name+": "+r.why)
				continue
			}
			windowed = windowed || !ok
			rep.Checked++
			for _, v := range d.Values {
				if !r.seen[v] {
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

// rowsKey identifies the rows a metric reads: its model, time column and
// required filters (in any order).
func rowsKey(m domain.Metric) string {
	fs := make([]string, len(m.RequiredFilters))
	for i, f := range m.RequiredFilters {
		fs[i] = fmt.Sprintf("%q %q %q", f.Op, f.Column, f.Value)
	}
	slices.Sort(fs)
	return fmt.Sprintf("%q %q %s", m.Model, m.TimeColumn, strings.Join(fs, " "))
}

// dimKey identifies what a dimension reads: its column along its path.
func dimKey(d domain.Dimension) string { return fmt.Sprintf("%q %q", d.Column, d.Via) }

// candidate is a metric and its name for a dimension.
type candidate struct{ metric, dimension string }

// cheapest lists the metrics reading the rows of m that have a dimension
// reading what d reads, cheapest measure first, m itself last among
// equals.
func cheapest(metrics []domain.Metric, m domain.Metric, d domain.Dimension) []candidate {
	type costed struct {
		candidate
		cost int
	}
	var out []costed
	key, dk := rowsKey(m), dimKey(d)
	for _, o := range metrics {
		if rowsKey(o) != key || o.Measure == nil {
			continue
		}
		for _, od := range o.Dimensions {
			if dimKey(od) == dk {
				out = append(out, costed{candidate{o.Name, od.Name}, cost(*o.Measure)})
				break
			}
		}
	}
	slices.SortStableFunc(out, func(a, b costed) int { return a.cost - b.cost })
	cs := make([]candidate, len(out))
	for i, c := range out {
		cs[i] = c.candidate
	}
	if len(cs) == 0 {
		cs = []candidate{{m.Name, d.Name}}
	}
	return cs
}

// cost ranks a measure by the work of one group: a count, then another
// aggregate, then a ratio of two; a distinct count costs a set per group,
// and a ratio that fails on a zero denominator may fail the question.
func cost(ms domain.Measure) int {
	n := 0
	for _, t := range ms.Terms() {
		switch t.Aggregate {
		case domain.CountDistinct:
			n += 100
		case domain.Count, "":
			n++
		default:
			n += 2
		}
	}
	if ms.Ratio != nil && ms.Ratio.ZeroDenominator == domain.Fails {
		n += 1000
	}
	return n
}

// dimensionValues returns the values of dimension that metric's answer
// holds over span, or why they cannot be read.
func dimensionValues(ctx context.Context, b *domain.Bundle, sources map[string]app.Source, metric, dimension string, span app.DataSpan) (map[string]bool, string, error) {
	m, ok := b.Metric(metric)
	if !ok {
		return nil, "no such metric", nil
	}
	seen := map[string]bool{}
	grain := m.CoarsestGrain()
	for start := span.First; start <= span.Last; start = start.AddDays(domain.MaxSpanDays) {
		end := min(start.AddDays(domain.MaxSpanDays), span.Last.AddDays(1))
		r := domain.Range{Start: start, End: end}
		q := domain.Question{Metrics: []string{metric}, Grain: grain, Dimensions: []string{dimension},
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

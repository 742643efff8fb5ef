// Package allowlist reads a catalogue's allowlists against the data: for
// every filterable dimension of every metric, the allowlisted values the
// metric's data never holds (usually a typo in the catalogue), as
// `sutura validate` reports them.
//
// Contract: the values a metric's data holds depend only on its model, its
// time column, its required filters and the dimension's column and path,
// never on its measure; so metrics that share those are read once, asked
// of the one whose measure is cheapest (counts before sums, anything
// before a distinct count), with up to domain.MaxDimensions of its
// dimensions in one question, each alone when that one fails. The
// questions are handed to each data system that can prepare
// (app.Preparer) before any runs, so one scan of a table may answer all
// those that read it.
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
	spanOf := func(m domain.Metric) (app.DataSpan, bool) {
		span, ok := spans.Of(m.Model, m.TimeColumn)
		if !ok {
			span = app.DataSpan{First: today.AddDays(-domain.MaxSpanDays + 1), Last: today}
		}
		return span, ok
	}
	prepare(ctx, b, sources, metrics, spanOf)
	read, err := readAll(ctx, b, sources, metrics, spanOf, &rep, dimensionValues)
	if err != nil {
		return rep, err
	}
	for _, m := range metrics {
		_, told := spanOf(m)
		windowed := false
		for _, d := range m.Dimensions {
			if !d.Filterable || len(d.Values) == 0 {
				continue
			}
			r := read[rowsKey(m)+"\x00"+dimKey(d)]
			if r.why != "" {
				rep.Unchecked = append(rep.Unchecked, m.Name+"."+d.Name+": "+r.why)
				continue
			}
			windowed = windowed || !told
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

// result is what one dimension's values were read as: the values seen,
// or why they could not be read.
type result struct {
	seen map[string]bool
	why  string
}

// packProduct bounds the groups one packed question may hold, counted
// from the allowlists (the data may hold more values; an answer over the
// row cap is refused and its dimensions are then asked one by one).
const packProduct = 1000

// asker finds, per dimension of dims, the values metric's answer grouped
// by all of them holds over span, or why they cannot be read
// (dimensionValues).
type asker func(ctx context.Context, b *domain.Bundle, sources map[string]app.Source, metric string, dims []string, span app.DataSpan) ([]map[string]bool, string, error)

// prepare hands each data system that can prepare (app.Preparer) the
// plans readAll is about to have it execute, as readAll asks them when
// every question is answered: a data system may then answer those that
// read one table in one scan of it. A question asked only because another
// failed (a packed question's dimensions asked one by one) executes on
// its own.
func prepare(ctx context.Context, b *domain.Bundle, sources map[string]app.Source, metrics []domain.Metric, spanOf func(domain.Metric) (app.DataSpan, bool)) {
	bySource := map[string][]*domain.Plan{}
	record := func(_ context.Context, b *domain.Bundle, _ map[string]app.Source, metric string, dims []string, span app.DataSpan) ([]map[string]bool, string, error) {
		ps, why := plans(b, metric, dims, span)
		for _, p := range ps {
			bySource[p.Legs[0].Source] = append(bySource[p.Legs[0].Source], p)
		}
		seen := make([]map[string]bool, len(dims))
		for i := range seen {
			seen[i] = map[string]bool{}
		}
		return seen, why, nil
	}
	if _, err := readAll(ctx, b, sources, metrics, spanOf, &Report{}, record); err != nil {
		return
	}
	for src, ps := range bySource {
		if s, ok := sources[src]; ok {
			if pr, ok := s.System.(app.Preparer); ok && len(ps) > 1 {
				pr.Prepare(ctx, ps)
			}
		}
	}
}

// readAll reads, once per rows and dimension key, the values the data
// holds, each question asked through ask. The dimensions the cheapest
// metric of a rows group has are first asked together, up to
// domain.MaxDimensions at a time while the product of their allowlists'
// lengths stays within packProduct; what a packed question does not
// settle is asked one dimension at a time, of the cheapest metric that
// has it.
func readAll(ctx context.Context, b *domain.Bundle, sources map[string]app.Source, metrics []domain.Metric,
	spanOf func(domain.Metric) (app.DataSpan, bool), rep *Report, ask asker) (map[string]result, error) {
	read := map[string]result{}
	for _, m := range metrics {
		key := rowsKey(m)
		span, _ := spanOf(m)
		var pending []domain.Dimension
		for _, d := range m.Dimensions {
			if _, done := read[key+"\x00"+dimKey(d)]; !done && d.Filterable && len(d.Values) > 0 {
				pending = append(pending, d)
			}
		}
		if len(pending) == 0 {
			continue
		}
		if first := cheapest(metrics, m, pending[0]); len(first) > 0 {
			c, _ := b.Metric(first[0].metric)
			for _, pack := range packs(c, pending) {
				if len(pack) < 2 {
					continue
				}
				names := make([]string, len(pack))
				for i, d := range pack {
					names[i] = d.Name
				}
				seen, why, err := ask(ctx, b, sources, c.Name, names, span)
				rep.Questions++
				if err != nil {
					return nil, err
				}
				if why != "" {
					continue
				}
				for i, d := range pack {
					read[key+"\x00"+dimKey(d)] = result{seen: seen[i]}
				}
			}
		}
		for _, d := range pending {
			k := key + "\x00" + dimKey(d)
			if _, done := read[k]; done {
				continue
			}
			r := result{why: "no metric reads it"}
			for _, c := range cheapest(metrics, m, d) {
				seen, why, err := ask(ctx, b, sources, c.metric, []string{c.dimension}, span)
				rep.Questions++
				if err != nil {
					return nil, err
				}
				r = result{why: why}
				if why == "" {
					r.seen = seen[0]
					break
				}
			}
			read[k] = r
		}
	}
	return read, nil
}

// packs groups the dimensions of c that read what pending dimensions read
// (c's own, in pending's order) into questions of at most
// domain.MaxDimensions whose allowlists' product stays within packProduct.
func packs(c *domain.Metric, pending []domain.Dimension) [][]domain.Dimension {
	var out [][]domain.Dimension
	var cur []domain.Dimension
	product := 1
	for _, p := range pending {
		i := slices.IndexFunc(c.Dimensions, func(d domain.Dimension) bool { return dimKey(d) == dimKey(p) })
		if i < 0 || len(c.Dimensions[i].Values) == 0 {
			continue
		}
		d := c.Dimensions[i]
		if len(cur) == domain.MaxDimensions || product*len(d.Values) > packProduct {
			out, cur, product = append(out, cur), nil, 1
		}
		cur = append(cur, d)
		product *= len(d.Values)
	}
	return append(out, cur)
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

// plans compiles metric grouped by dims over span, as the local
// operator asks it: one plan per window of at most domain.MaxSpanDays
// days, or why it cannot be asked.
func plans(b *domain.Bundle, metric string, dims []string, span app.DataSpan) ([]*domain.Plan, string) {
	m, ok := b.Metric(metric)
	if !ok {
		return nil, "no such metric"
	}
	grain := m.CoarsestGrain()
	var out []*domain.Plan
	for start := span.First; start <= span.Last; start = start.AddDays(domain.MaxSpanDays) {
		end := min(start.AddDays(domain.MaxSpanDays), span.Last.AddDays(1))
		r := domain.Range{Start: start, End: end}
		q := domain.Question{Metrics: []string{metric}, Grain: grain, Dimensions: dims,
			Range: domain.TimeSpan{Fixed: &r}}
		plan, why := semantic.Compile(b, domain.LocalOperator, q, span.Last)
		if why != nil {
			return nil, fmt.Sprintf("the question is refused (%s)", why.Code())
		}
		if plan.Federated() {
			return nil, "the dimension is read from another data system than the metric"
		}
		out = append(out, plan)
	}
	return out, ""
}

// dimensionValues returns, per dimension of dims, the values metric's
// answer grouped by all of them holds over span, or why they cannot be
// read.
func dimensionValues(ctx context.Context, b *domain.Bundle, sources map[string]app.Source, metric string, dims []string, span app.DataSpan) ([]map[string]bool, string, error) {
	ps, why := plans(b, metric, dims, span)
	if why != "" {
		return nil, why, nil
	}
	seen := make([]map[string]bool, len(dims))
	for i := range seen {
		seen[i] = map[string]bool{}
	}
	for _, plan := range ps {
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
		if len(rows.Rows) > plan.RowCap && plan.RowCap > 0 {
			return nil, "the answer has more rows than one answer may hold", nil
		}
		for i, dim := range dims {
			col := slices.IndexFunc(rows.Columns, func(c domain.Column) bool { return c.Name == dim })
			if col < 0 {
				return nil, "the answer has no column of the dimension", nil
			}
			for _, row := range rows.Rows {
				if c := row[col]; !c.IsNull() {
					seen[i][c.Render()] = true
				}
			}
		}
	}
	return seen, "", nil
}

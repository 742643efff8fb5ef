// Package explain builds the explanation every answer carries
// (docs/contract.md §16): each metric's definition in words with its
// digest, the caller's filters as applied, what each leg read where and as
// whom, how far the data of each model read reaches, and a note when the
// range asked ends after it. It is a pure function of what the pipeline
// already holds: no data system is asked.
package explain

import (
	"fmt"
	"strings"

	"sutura.dev/domain"
)

// Input is what the pipeline knows once an answer's rows are in.
type Input struct {
	Bundle   *domain.Bundle
	Question domain.Question
	// Range is the question's range as resolved.
	Range domain.Range
	// Legs is the account of each leg, in leg order.
	Legs []domain.LegAccount
	// Through returns the newest day the column of model holds, when its
	// data system told it; nil when none did.
	Through func(model, column string) (domain.Date, bool)
	// Statements are set only for a caller holding domain.ScopeSQLRead.
	Statements []domain.Statement
	TraceID    string
}

// Build returns the explanation of an answer. Every list is non-nil, so
// the wire form carries arrays, never null.
func Build(in Input) *domain.Explanation {
	e := &domain.Explanation{
		Definitions: []domain.DefinitionWords{},
		Filters:     []domain.AppliedFilter{},
		Legs:        in.Legs,
		DataThrough: []domain.DataThrough{},
		Notes:       []string{},
		Statements:  in.Statements,
		TraceID:     in.TraceID,
	}
	if e.Legs == nil {
		e.Legs = []domain.LegAccount{}
	}
	var metrics []*domain.Metric
	for _, name := range in.Question.Metrics {
		m, ok := in.Bundle.Metric(name)
		if !ok {
			continue
		}
		metrics = append(metrics, m)
		e.Definitions = append(e.Definitions, Words(m, in.Bundle.MetricDigest(name)))
	}
	e.Filters = applied(metrics, in.Question.Filters)
	type key struct{ model, column string }
	seen := map[key]bool{}
	for _, m := range metrics {
		k := key{m.Model, m.TimeColumn}
		if seen[k] || in.Through == nil {
			continue
		}
		seen[k] = true
		last, ok := in.Through(m.Model, m.TimeColumn)
		if !ok {
			continue
		}
		source := ""
		if model, ok := in.Bundle.Model(m.Model); ok {
			source = model.Source
		}
		e.DataThrough = append(e.DataThrough, domain.DataThrough{Model: m.Model, Source: source, Through: last.String()})
		if note, ok := Note(m.Model, last, in.Range); ok {
			e.Notes = append(e.Notes, note)
		}
	}
	return e
}

// Note is the note of a range that ends after the last day of a model's
// data: the periods after it are empty for want of data, not for want of
// activity. ok is false when the range ends on or before that day.
func Note(model string, last domain.Date, r domain.Range) (string, bool) {
	if r.End <= last.AddDays(1) {
		return "", false
	}
	return fmt.Sprintf("the data of %s ends on %s; periods after it are empty because there is no data yet", model, last), true
}

// applied is the question's filters as applied: each value is named only
// when it is on the allowlist of the dimension of a metric asked, which
// the compiler already required; anything else is left out rather than
// echoed.
func applied(metrics []*domain.Metric, filters []domain.Filter) []domain.AppliedFilter {
	out := []domain.AppliedFilter{}
	for _, f := range filters {
		af := domain.AppliedFilter{Dimension: f.Dimension, Op: string(f.Op), Values: []string{}}
		for _, v := range f.Values {
			if allowed(metrics, f.Dimension, v) {
				af.Values = append(af.Values, v)
			}
		}
		out = append(out, af)
	}
	return out
}

func allowed(metrics []*domain.Metric, dimension, v string) bool {
	for _, m := range metrics {
		if d, ok := m.Dimension(dimension); ok && d.Allows(v) {
			return true
		}
	}
	return false
}

// Words is m's definition in words: its measure, its time column and its
// required filters as sentences, with digest.
func Words(m *domain.Metric, digest string) domain.DefinitionWords {
	w := domain.DefinitionWords{Metric: m.Name, Digest: digest, TimeColumn: m.TimeColumn, RequiredFilters: []string{}}
	switch {
	case m.Measure != nil && m.Measure.Ratio != nil:
		r := m.Measure.Ratio
		w.Measure = term(r.Numerator) + " divided by " + term(r.Denominator)
		if r.ZeroDenominator == domain.YieldsNull {
			w.Measure += "; a zero denominator gives null"
		} else {
			w.Measure += "; a zero denominator is an error"
		}
	case m.Measure != nil && m.Measure.Simple != nil:
		w.Measure = term(*m.Measure.Simple)
	default:
		w.Measure = "an expression its author wrote in SQL"
	}
	w.Measure += ", over the rows of " + m.Model
	for _, f := range m.RequiredFilters {
		w.RequiredFilters = append(w.RequiredFilters, requirement(f))
	}
	return w
}

func term(t domain.Term) string {
	switch {
	case t.CountIf != "":
		return "the number of rows where " + t.CountIf + " is true"
	case t.Aggregate == domain.Count && t.Column == "":
		return "the number of rows"
	case t.Aggregate == domain.Count:
		return "the number of rows where " + t.Column + " is set"
	case t.Aggregate == domain.CountDistinct:
		return "the number of distinct values of " + t.Column
	case t.Aggregate == domain.Avg:
		return "the average of " + t.Column
	case t.Aggregate == domain.Min:
		return "the smallest " + t.Column
	case t.Aggregate == domain.Max:
		return "the largest " + t.Column
	}
	return "the " + strings.ReplaceAll(string(t.Aggregate), "_", " ") + " of " + t.Column
}

func requirement(f domain.RequiredFilter) string {
	switch f.Op {
	case domain.Equals:
		return fmt.Sprintf("only rows where %s is %q count", f.Column, f.Value)
	case domain.NotEquals:
		return fmt.Sprintf("only rows where %s is not %q count", f.Column, f.Value)
	case domain.IsTrue:
		return "only rows where " + f.Column + " is true count"
	case domain.IsNotNull:
		return "only rows where " + f.Column + " is set count"
	}
	return "only rows that satisfy a condition on " + f.Column + " count"
}

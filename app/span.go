package app

import (
	"context"
	"sync/atomic"

	"sutura.dev/domain"
)

// DataSpanner is the optional ability of a data system to tell, cheaply,
// the first and the last day (both included) on which a date or timestamp
// column of one of its models holds a value: the span of the data a metric
// over that column can answer. ok is false when the data system cannot tell
// without scanning the table, or the column holds no value; an error means
// the table could not be read. The start-up validation asks it once per
// model and time column, after everything validated, and never on the
// question path. The embedded engine has it; the databases do not (a
// min/max over a large table without an index on its time column is a
// scan).
type DataSpanner interface {
	DataSpan(ctx context.Context, model, column string) (first, last domain.Date, ok bool, err error)
}

// DataSpan is the days a metric's data covers, as read at start (or at the
// last refresh): First and Last, both included. A question whose range
// lies outside it has no rows.
type DataSpan struct {
	First, Last domain.Date
}

// Overlaps reports whether the half-open range r holds a day of the span.
func (d DataSpan) Overlaps(r domain.Range) bool { return r.Start <= d.Last && d.First < r.End }

// Spans are the data spans of a bundle's metrics, by model and time column.
type Spans map[spanKey]DataSpan

type spanKey struct{ model, column string }

// Of returns the span of column of model, when it was told.
func (sp Spans) Of(model, column string) (DataSpan, bool) {
	d, ok := sp[spanKey{model, column}]
	return d, ok
}

// ReadSpans asks every data system that has the ability (DataSpanner) for
// the span of each model and time column the metrics of b use, once per
// pair. What a data system cannot tell is absent: a span is a help to the
// caller, never a condition of serving. Only the end of ctx is an error.
func ReadSpans(ctx context.Context, b *domain.Bundle, sources map[string]Source) (Spans, error) {
	out := Spans{}
	asked := map[spanKey]bool{}
	for _, m := range b.Definitions().Metrics {
		k := spanKey{m.Model, m.TimeColumn}
		if asked[k] {
			continue
		}
		asked[k] = true
		model, ok := b.Model(m.Model)
		if !ok {
			continue
		}
		ds, ok := sources[model.Source].System.(DataSpanner)
		if !ok {
			continue
		}
		first, last, ok, err := ds.DataSpan(ctx, m.Model, m.TimeColumn)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err == nil && ok {
			out[k] = DataSpan{First: first, Last: last}
		}
	}
	return out, nil
}

// pinnedSpans are the spans read for the bundle of one digest.
type pinnedSpans struct {
	digest string
	spans  Spans
}

// spanHolder holds the spans of the bundle in force.
type spanHolder struct{ p atomic.Pointer[pinnedSpans] }

// SetSpans records the data spans read for b (ReadSpans). Check does it at
// start; a refresh that swaps in a new bundle does it for that bundle. A
// span recorded for another digest than the bundle in force is not shown.
func (s *Surface) SetSpans(b *domain.Bundle, spans Spans) {
	s.spans.p.Store(&pinnedSpans{digest: b.Digest(), spans: spans})
}

// MetricSpan returns the data span of metric in the bundle in force, when
// its data system told it.
func (s *Surface) MetricSpan(metric string) (DataSpan, bool) {
	b := s.cfg.Catalog.Bundle()
	m, ok := b.Metric(metric)
	if !ok {
		return DataSpan{}, false
	}
	return s.spanOf(b, m.Model, m.TimeColumn)
}

func (s *Surface) spanOf(b *domain.Bundle, model, column string) (DataSpan, bool) {
	p := s.spans.p.Load()
	if p == nil || p.digest != b.Digest() {
		return DataSpan{}, false
	}
	return p.spans.Of(model, column)
}

// withSpans fills in the data span of every metric of v that has one.
func (s *Surface) withSpans(b *domain.Bundle, v *CatalogView) {
	for i := range v.Metrics {
		mv := &v.Metrics[i]
		if d, ok := s.spanOf(b, mv.Model, mv.TimeColumn); ok {
			mv.DataSpan = SpanView(d)
		}
	}
}

// SpanView is the wire form of a data span.
func SpanView(d DataSpan) *DataSpanView {
	return &DataSpanView{First: d.First.String(), Last: d.Last.String()}
}

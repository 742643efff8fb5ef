package app

import (
	"strings"

	"sutura.dev/app/explain"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// CatalogView is what a caller may know of the catalogue: the metrics
// visible to it with their grains, dimensions and allowed values, and the
// knowledge about them. It is the wire shape of describe_catalog and
// GET /v1/catalog. A metric outside the caller's audiences, or on a model
// outside them, is absent, as if it did not exist; so is a dimension read
// from (or through) a model outside them, and the knowledge about what is
// absent. Physical tables never appear, and required filters appear only
// in words (their column, never their value).
type CatalogView struct {
	DefinitionVersion string           `json:"definition_version"`
	DefinitionDigest  string           `json:"definition_digest"`
	Metrics           []MetricView     `json:"metrics"`
	Glossary          []GlossaryView   `json:"glossary"`
	Caveats           []CaveatView     `json:"caveats"`
	NotDefined        []NotDefinedView `json:"not_defined"`
	Examples          []ExampleView    `json:"examples"`
	// Summaries, Total and NextCursor are set by a listing at scale
	// (docs/contract.md §14): summaries instead of Metrics when the visible
	// catalogue holds more than SummaryThreshold metrics or a search is
	// given; the number of metrics the listing holds; the cursor that
	// continues it when one response could not hold it all.
	Summaries  []MetricSummary `json:"summaries,omitempty"`
	Total      *int            `json:"total,omitempty"`
	NextCursor string          `json:"next_cursor,omitempty"`
}

// MetricView describes one metric to a caller: what it measures, over
// which model and time column, its grains and dimensions, the required
// filters that are part of its meaning (in words, explain.RequiredFilterText) and
// its anchor, and the span of its data where its data system tells it
// cheaply. The members added after the first version are optional in the
// schema, so the manifest did not narrow.
type MetricView struct {
	Name            string          `json:"name"`
	Description     string          `json:"description"`
	Grains          []domain.Grain  `json:"grains"`
	Dimensions      []DimensionView `json:"dimensions"`
	Digest          string          `json:"digest"`
	Model           string          `json:"model,omitempty"`
	TimeColumn      string          `json:"time_column,omitempty"`
	Measure         string          `json:"measure,omitempty"`
	RequiredFilters []string        `json:"required_filters,omitempty"`
	Anchor          *AnchorView     `json:"anchor,omitempty"`
	DataSpan        *DataSpanView   `json:"data_span,omitempty"`
}

// DataSpanView is the span of a metric's data, as read at start: the first
// and the last day (both included, YYYY-MM-DD) on which its time column
// holds a value. A range outside it has no rows; the range that covers it
// all is start First, end the day after Last.
type DataSpanView struct {
	First string `json:"first"`
	Last  string `json:"last"`
}

// AnchorView is a metric's anchor: its known value over one period of its
// coarsest grain, [Start, End), re-checked at every start.
type AnchorView struct {
	Start string `json:"start"`
	End   string `json:"end"`
	Value string `json:"value"`
}

// DimensionView describes one dimension; Values lists what a filter may
// use, and is absent for group-by-only dimensions.
type DimensionView struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Filterable  bool     `json:"filterable"`
	Values      []string `json:"values,omitempty"`
}

// GlossaryView is a business term and what it means.
type GlossaryView struct {
	Term     string         `json:"term"`
	Synonyms []string       `json:"synonyms,omitempty"`
	Means    domain.Meaning `json:"means"`
	Note     string         `json:"note,omitempty"`
}

// CaveatView is a note about some metrics, models or dimensions.
type CaveatView struct {
	Name  string   `json:"name"`
	About []string `json:"about"`
	Note  string   `json:"note"`
}

// NotDefinedView is a phrase the catalogue deliberately does not define.
type NotDefinedView struct {
	Phrase   string   `json:"phrase"`
	Synonyms []string `json:"synonyms,omitempty"`
	Note     string   `json:"note,omitempty"`
}

// ExampleView pairs phrasings with the question that answers them.
type ExampleView struct {
	Name     string          `json:"name"`
	Asked    []string        `json:"asked"`
	Question domain.Question `json:"question"`
}

// DescribeCatalog returns what describe_catalog {} answers caller: the
// catalogue as caller may see it, with the data spans read at start, in
// full when it holds at most SummaryThreshold metrics, else its first page
// of summaries (Describe). It takes no admission slot and writes no audit
// record.
func (s *Surface) DescribeCatalog(caller Caller) CatalogView {
	v, _, _ := s.Describe(caller, DescribeRequest{})
	return v
}

// DescribeBundle returns the view of b that p may see.
func DescribeBundle(b *domain.Bundle, p domain.Principal) CatalogView {
	v := CatalogView{
		DefinitionVersion: b.Version(), DefinitionDigest: b.Digest(),
		Metrics: []MetricView{}, Glossary: []GlossaryView{}, Caveats: []CaveatView{},
		NotDefined: []NotDefinedView{}, Examples: []ExampleView{},
	}
	defs := b.Definitions()
	visible := map[string]bool{}    // metric
	dimensions := map[string]bool{} // metric.dimension
	for i := range defs.Metrics {
		m := &defs.Metrics[i]
		if !semantic.Visible(b, p, m) {
			continue
		}
		visible[m.Name] = true
		mv := MetricView{Name: m.Name, Description: m.Description, Grains: m.Grains, Digest: b.MetricDigest(m.Name), Dimensions: []DimensionView{},
			Model: m.Model, TimeColumn: m.TimeColumn, Measure: explain.MeasureText(m)}
		for _, f := range m.RequiredFilters {
			mv.RequiredFilters = append(mv.RequiredFilters, explain.RequiredFilterText(f))
		}
		if a := m.Anchor; a != nil {
			mv.Anchor = &AnchorView{Start: a.Range.Start.String(), End: a.Range.End.String(), Value: a.Value}
		}
		for j := range m.Dimensions {
			d := &m.Dimensions[j]
			if !semantic.DimensionVisible(b, p, m, d) {
				continue
			}
			dimensions[m.Name+"."+d.Name] = true
			mv.Dimensions = append(mv.Dimensions, DimensionView{Name: d.Name, Description: d.Description, Filterable: d.Filterable, Values: d.Values})
		}
		v.Metrics = append(v.Metrics, mv)
	}
	models := map[string]bool{}
	for _, m := range defs.Models {
		if m.Audience == nil || p.CanSee(*m.Audience) {
			models[m.Name] = true
		}
	}
	// seen says whether a referent (a metric, or metric.dimension) is
	// visible: knowledge about what the caller may not see is not shown.
	seen := func(metric, dimension string) bool {
		if dimension == "" {
			return visible[metric]
		}
		return dimensions[metric+"."+dimension]
	}
	k := b.Knowledge()
	for _, g := range k.Glossary {
		if seen(g.Means.Metric, g.Means.Dimension) {
			v.Glossary = append(v.Glossary, GlossaryView{Term: g.Term, Synonyms: g.Synonyms, Means: g.Means, Note: g.Note})
		}
	}
	for _, c := range k.Caveats {
		// A caveat is shown only to a caller who sees everything it is
		// about: its note may speak of a hidden metric even when it also
		// names a visible one. A referent is a metric, a model,
		// metric.dimension or metric.dimension=value.
		all := len(c.About) > 0
		for _, ref := range c.About {
			metric, dimension, _ := strings.Cut(ref, ".")
			dimension, _, _ = strings.Cut(dimension, "=")
			all = all && (seen(metric, dimension) || models[ref])
		}
		if all {
			v.Caveats = append(v.Caveats, CaveatView{Name: c.Name, About: c.About, Note: c.Note})
		}
	}
	for _, n := range k.NotDefined {
		v.NotDefined = append(v.NotDefined, NotDefinedView{Phrase: n.Phrase, Synonyms: n.Synonyms, Note: n.Note})
	}
	for _, e := range k.Examples {
		ok := true
		for _, m := range e.Question.Metrics {
			ok = ok && visible[m]
			for _, d := range e.Question.Dimensions {
				ok = ok && seen(m, d)
			}
			for _, f := range e.Question.Filters {
				ok = ok && seen(m, f.Dimension)
			}
		}
		if ok {
			v.Examples = append(v.Examples, ExampleView{Name: e.Name, Asked: e.Asked, Question: e.Question})
		}
	}
	return v
}

package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"sutura.dev/app"
	"sutura.dev/app/allowlist"
	"sutura.dev/app/explain"
	"sutura.dev/cli/compose"
	"sutura.dev/domain"
)

// metricView is what the catalogue commands show of one metric. Required
// filters are part of a metric's meaning; they are shown in words (the
// column and the kind of condition, explain.RequiredFilterText), never their
// value. DataSpan is the span of the metric's data when its data system
// can tell it cheaply (describe opens the sources to ask).
type metricView struct {
	Name            string            `json:"name"`
	Description     string            `json:"description"`
	Measure         string            `json:"measure"`
	Model           string            `json:"model"`
	TimeColumn      string            `json:"time_column"`
	Grains          []domain.Grain    `json:"grains"`
	Dimensions      []dimensionView   `json:"dimensions"`
	RequiredFilters []string          `json:"required_filters"`
	Audience        domain.Audience   `json:"audience"`
	Anchor          *domain.Anchor    `json:"anchor,omitempty"`
	DataSpan        *app.DataSpanView `json:"data_span,omitempty"`
	Digest          string            `json:"digest"`
}

type dimensionView struct {
	Name        string   `json:"name"`
	Filterable  bool     `json:"filterable"`
	Values      []string `json:"values,omitempty"`
	Via         []string `json:"via,omitempty"`
	Description string   `json:"description,omitempty"`
}

type catalogView struct {
	Catalogue string       `json:"catalogue"`
	Version   string       `json:"version"`
	Digest    string       `json:"digest"`
	Metrics   []metricView `json:"metrics"`
}

func viewMetric(b *domain.Bundle, m *domain.Metric) metricView {
	v := metricView{
		Name: m.Name, Description: m.Description, Measure: explain.MeasureText(m),
		Model: m.Model, TimeColumn: m.TimeColumn, Grains: m.Grains,
		RequiredFilters: []string{}, Audience: m.Audience,
		Anchor: m.Anchor, Digest: b.MetricDigest(m.Name), Dimensions: []dimensionView{},
	}
	for _, f := range m.RequiredFilters {
		v.RequiredFilters = append(v.RequiredFilters, explain.RequiredFilterText(f))
	}
	for _, d := range m.Dimensions {
		v.Dimensions = append(v.Dimensions, dimensionView{Name: d.Name, Filterable: d.Filterable, Values: d.Values, Via: d.Via, Description: d.Description})
	}
	return v
}

func grainsText(gs []domain.Grain) string {
	s := make([]string, len(gs))
	for i, g := range gs {
		s[i] = g.String()
	}
	return strings.Join(s, ", ")
}

func audienceText(a domain.Audience) string {
	if a.Open() {
		return "open"
	}
	return "restricted to " + strings.Join(a.Restricted, ", ")
}

func writeMetric(w io.Writer, v metricView, full bool) {
	fmt.Fprintln(w, v.Name)
	desc := v.Description
	if !full {
		// The first paragraph, unwrapped.
		desc, _, _ = strings.Cut(desc, "\n\n")
		desc = strings.Join(strings.Fields(desc), " ")
	}
	if desc != "" {
		for _, line := range strings.Split(desc, "\n") {
			fmt.Fprintln(w, strings.TrimRight("  "+line, " "))
		}
	}
	row := func(k, val string) { fmt.Fprintf(w, "  %-11s %s\n", k, val) }
	row("measure", v.Measure)
	row("model", v.Model+" (time column "+v.TimeColumn+")")
	row("grains", grainsText(v.Grains))
	var dims []string
	for _, d := range v.Dimensions {
		s := d.Name
		if d.Filterable {
			s += " [" + strings.Join(d.Values, ", ") + "]"
		}
		dims = append(dims, s)
	}
	if len(dims) == 0 {
		dims = []string{"none"}
	}
	if full {
		row("dimensions", "")
		for _, d := range v.Dimensions {
			kind := "group by only"
			if d.Filterable {
				kind = "filterable: " + strings.Join(d.Values, ", ")
			}
			via := ""
			if len(d.Via) > 0 {
				via = " via " + strings.Join(d.Via, " → ")
			}
			fmt.Fprintf(w, "    %s (%s)%s\n", d.Name, kind, via)
			if d.Description != "" {
				fmt.Fprintf(w, "      %s\n", d.Description)
			}
		}
	} else {
		row("dimensions", strings.Join(dims, ", "))
	}
	switch n := len(v.RequiredFilters); {
	case n > 0 && full:
		row("filters", "applied to every question:")
		for _, f := range v.RequiredFilters {
			fmt.Fprintf(w, "    %s\n", f)
		}
	case n > 0:
		row("filters", strings.Join(v.RequiredFilters, "; "))
	}
	row("audience", audienceText(v.Audience))
	if v.Anchor != nil {
		row("anchor", fmt.Sprintf("%s to %s = %s", v.Anchor.Range.Start, v.Anchor.Range.End, v.Anchor.Value))
	}
	if d := v.DataSpan; d != nil {
		row("data", fmt.Sprintf("from %s to %s (both included)", d.First, d.Last))
	}
	row("digest", v.Digest)
}

func writeHeader(w io.Writer, name string, b *domain.Bundle) {
	fmt.Fprintf(w, "catalogue  %s\n", name)
	fmt.Fprintf(w, "version    %s\n", b.Version())
	fmt.Fprintf(w, "digest     %s\n", b.Digest())
}

// searchArgs are the describe_catalog arguments {"search": search}.
func searchArgs(search string) []byte {
	b, _ := json.Marshal(map[string]string{"search": search})
	return b
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// catalogFlags are the flags of `sutura catalog`.
func catalogFlags(fs *flag.FlagSet) {
	jsonFlag(fs)
	fs.String("search", "", "list only the metrics these words find (names, descriptions, dimension names, glossary terms), best first: describe_catalog's search (docs/contract.md §14)")
}

func runCatalog(inv *invocation) error {
	search := ""
	if f := inv.flags.Lookup("search"); f != nil {
		search = f.Value.String()
	}
	searching := search != ""
	if searching {
		// Checked before the catalogue is read: a usage error costs nothing.
		if _, err := app.ParseDescribeCatalogArgs(searchArgs(search)); err != nil {
			return usagef("--search: %s", strings.TrimPrefix(err.Error(), "search "))
		}
	}
	s, err := load(inv)
	if err != nil {
		return err
	}
	b := s.Bundle
	view := catalogView{Catalogue: s.CatalogName, Version: b.Version(), Digest: b.Digest(), Metrics: []metricView{}}
	if searching {
		// The operator's view: every metric, ranked as describe_catalog's
		// search ranks them.
		found, err := app.SearchBundle(b, domain.LocalOperator, search)
		if err != nil {
			return usagef("--search: %s", strings.TrimPrefix(err.Error(), "search "))
		}
		for _, name := range found {
			m, _ := b.Metric(name)
			view.Metrics = append(view.Metrics, viewMetric(b, m))
		}
	} else {
		for i := range b.Definitions().Metrics {
			view.Metrics = append(view.Metrics, viewMetric(b, &b.Definitions().Metrics[i]))
		}
	}
	if inv.boolFlag("json") {
		return writeJSON(inv.io.out, view)
	}
	w := inv.io.out
	writeHeader(w, s.CatalogName, b)
	if searching {
		fmt.Fprintf(w, "found      %d of %d metrics, best first\n", len(view.Metrics), len(b.Definitions().Metrics))
	} else {
		fmt.Fprintf(w, "metrics    %d\n", len(view.Metrics))
	}
	for _, v := range view.Metrics {
		fmt.Fprintln(w)
		writeMetric(w, v, false)
	}
	return nil
}

func runDescribe(inv *invocation) error {
	name := inv.args[0]
	if domain.CheckIdent(name) != nil {
		return usagef("the metric name is not an identifier ([A-Za-z_][A-Za-z0-9_]*, at most 63 characters)")
	}
	s, err := load(inv)
	if err != nil {
		return err
	}
	m, ok := s.Bundle.Metric(name)
	if !ok {
		return fmt.Errorf("metric %s is not in the catalogue (sutura catalog lists them)", name)
	}
	v := viewMetric(s.Bundle, m)
	spans, err := compose.ReadSpans(inv.ctx, s)
	if err != nil {
		return err
	}
	if d, ok := spans.Of(m.Model, m.TimeColumn); ok {
		v.DataSpan = app.SpanView(d)
	}
	if inv.boolFlag("json") {
		return writeJSON(inv.io.out, struct {
			Version string `json:"version"`
			Digest  string `json:"definition_digest"`
			metricView
		}{s.Bundle.Version(), s.Bundle.Digest(), v})
	}
	writeHeader(inv.io.out, s.CatalogName, s.Bundle)
	fmt.Fprintln(inv.io.out)
	writeMetric(inv.io.out, v, true)
	return nil
}

// runValidate builds the process, which runs the start-up validation, and
// says what it checked or, one line each, what failed.
func runValidate(inv *invocation) error {
	s, err := load(inv)
	if err != nil {
		return err
	}
	b := s.Bundle
	w := inv.io.out
	writeHeader(w, s.CatalogName, b)
	defs := b.Definitions()
	fmt.Fprintln(w, loadedLine(defs))
	tuneCollector(s.Config)
	p, err := compose.OpenSetup(inv.ctx, s, inv.io.err, compose.Options{OneShot: true})
	if err == nil {
		// validate reads whole what serving would check in the background.
		if derr := p.CheckDeferred(inv.ctx); derr != nil {
			p.Close()
			err = &compose.ValidationError{Err: derr}
		}
	}
	var ve *compose.ValidationError
	switch {
	case errors.As(err, &ve):
		for _, line := range strings.Split(ve.Err.Error(), "\n") {
			fmt.Fprintf(inv.io.err, "sutura: validate: %s\n", line)
		}
		return errReported
	case err != nil:
		return err
	}
	defer p.Close()
	anchored := app.AnchoredMetrics(b)
	if len(anchored) == 0 {
		fmt.Fprintln(w, "anchors    none declared: nothing was re-checked against the data (an anchor is a known value a metric must reproduce at every start; docs/catalog-authoring.md)")
	} else {
		fmt.Fprintf(w, "anchors    %d checked, all reproduce (%s)\n", len(anchored), strings.Join(anchored, ", "))
	}
	return validateAllowlists(inv, p)
}

// validateAllowlists reports the allowlisted values the data never holds
// (allowlist.Check): a warning each, or with --strict a failure.
func validateAllowlists(inv *invocation, p *compose.Process) error {
	b := p.Bundle
	spans, err := app.ReadSpans(inv.ctx, b, p.Sources)
	if err != nil {
		return err
	}
	rep, err := allowlist.Check(inv.ctx, b, p.Sources, spans, domain.DateFromTime(time.Now().UTC()))
	if err != nil {
		return err
	}
	w := inv.io.out
	fmt.Fprintf(w, "allowlists %s read against the data", plural(rep.Checked, "filterable dimension", "filterable dimensions"))
	if len(rep.Unused) == 0 {
		fmt.Fprint(w, ", every allowed value occurs")
	}
	fmt.Fprintln(w)
	for _, m := range rep.Windowed {
		fmt.Fprintf(w, "           %s: no data system told its data span, so only the last %d days were read\n", m, domain.MaxSpanDays)
	}
	for _, u := range rep.Unchecked {
		fmt.Fprintf(w, "           not read: %s\n", u)
	}
	strict := inv.boolFlag("strict")
	for _, u := range rep.Unused {
		if strict {
			fmt.Fprintf(inv.io.err, "sutura: validate: metric %s: dimension %s allows %q, which its data never holds (a typo? a filter on it answers no rows)\n", u.Metric, u.Dimension, u.Value)
		} else {
			fmt.Fprintf(w, "warning    metric %s: dimension %s allows %q, which its data never holds (a typo? a filter on it answers no rows; --strict makes this an error)\n", u.Metric, u.Dimension, u.Value)
		}
	}
	if strict && len(rep.Unused) > 0 {
		return errReported
	}
	return nil
}

// loadedLine says how many definitions a catalogue holds, each count with
// the noun that agrees with it ("1 model, 2 relationships, 3 metrics").
func loadedLine(defs *domain.Definitions) string {
	return "loaded     " + plural(len(defs.Models), "model", "models") + ", " + plural(len(defs.Relationships), "relationship", "relationships") +
		", " + plural(len(defs.Metrics), "metric", "metrics")
}

package apptest

import (
	"fmt"
	"testing"

	"sutura.dev/domain"
)

// Scale catalogues: a generated catalogue of many metrics, for the checks
// of docs/contract.md §14 (search, summaries, paging, bounded lists). It is
// deterministic: the same arguments give the same bundle and digest.

// Words of the generated catalogue: each model is about a subject, each
// metric measures one thing of it.
var (
	scaleSubjects = []string{"sales", "orders", "refunds", "shipments", "tickets", "sessions", "signups", "invoices",
		"payments", "subscriptions", "returns", "visits", "claims", "leads", "trials", "deliveries", "bookings", "rentals",
		"donations", "enrolments"}
	scaleMeasures = []string{"count", "amount", "average_value", "margin", "units", "weight", "duration", "distance",
		"discount", "tax", "fees", "cost", "latency", "score", "rating", "backlog", "volume", "revenue", "churn", "growth",
		"conversion", "retention", "coverage", "utilisation", "yield"}
	scaleDimensions = []string{"region", "channel", "segment", "product_line", "currency", "device", "plan", "country"}
)

// ScaleDefinitions returns a generated catalogue of metrics metrics spread
// evenly over models models (each on its own table of source SourceName),
// with glossary terms for one metric in ten, a caveat per model and an
// example per model. Each metric has a two-sentence description, month and
// year grains, and four dimensions, two of them filterable with eight
// values each; one metric in ten is restricted to the audience finance.
func ScaleDefinitions(metrics, models int) (domain.Definitions, domain.Knowledge) {
	var defs domain.Definitions
	var k domain.Knowledge
	for j := range models {
		model := fmt.Sprintf("%s_%02d", scaleSubjects[j%len(scaleSubjects)], j)
		cols := []domain.ModelColumn{{Name: "happened_on", Type: domain.TypeDate}, {Name: "value", Type: domain.TypeInteger}}
		for _, d := range scaleDimensions {
			cols = append(cols, domain.ModelColumn{Name: d, Type: domain.TypeText})
		}
		defs.Models = append(defs.Models, domain.Model{Name: model, Source: SourceName, Table: model, Columns: cols})
		k.Caveats = append(k.Caveats, domain.Caveat{Name: "late_" + model, About: []string{model},
			Note: "Rows of " + model + " arrive up to two days late; the current week is incomplete."})
	}
	for i := range metrics {
		j := i % models
		model := defs.Models[j].Name
		subject := scaleSubjects[j%len(scaleSubjects)]
		measure := scaleMeasures[(i/models)%len(scaleMeasures)]
		name := fmt.Sprintf("%s_%s_%03d", subject, measure, i)
		m := domain.Metric{
			Name: name, Model: model, TimeColumn: "happened_on", Grains: []domain.Grain{domain.Month, domain.Year},
			Description: fmt.Sprintf("The %s of %s recorded in %s, summed over the period. Counts only settled rows; "+
				"use it to follow the %s of %s by %s or %s.", measure, subject, model, measure, subject,
				scaleDimensions[i%len(scaleDimensions)], scaleDimensions[(i+1)%len(scaleDimensions)]),
			Measure: &domain.Measure{Simple: &domain.Term{Aggregate: domain.Sum, Column: "value"}},
		}
		for d := range 4 {
			dim := scaleDimensions[(i+d)%len(scaleDimensions)]
			dd := domain.Dimension{Name: dim, Column: dim}
			if d < 2 {
				dd.Filterable = true
				for v := range 8 {
					dd.Values = append(dd.Values, fmt.Sprintf("%s_%d", dim, v))
				}
			}
			m.Dimensions = append(m.Dimensions, dd)
		}
		if i%10 == 9 {
			m.Audience = domain.Audience{Restricted: []string{"finance"}}
		}
		defs.Metrics = append(defs.Metrics, m)
		if i%10 == 0 {
			k.Glossary = append(k.Glossary, domain.Glossary{Term: fmt.Sprintf("%s %s figure %d", subject, measure, i),
				Synonyms: []string{fmt.Sprintf("kpi%d", i)}, Means: domain.Meaning{Metric: name}})
		}
		if i < models {
			k.Examples = append(k.Examples, domain.Example{Name: "ex_" + name, Asked: []string{"monthly " + measure + " of " + subject},
				Question: domain.Question{Metrics: []string{name}, Grain: domain.Month,
					Range: domain.TimeSpan{Fixed: &domain.Range{Start: domain.DateOf(2025, 1, 1), End: domain.DateOf(2025, 4, 1)}}}})
		}
	}
	return defs, k
}

// ScaleBundle pins ScaleDefinitions(metrics, models), labelled version.
func ScaleBundle(tb testing.TB, version string, metrics, models int) *domain.Bundle {
	tb.Helper()
	defs, k := ScaleDefinitions(metrics, models)
	b, err := domain.NewBundle(version, defs, k)
	if err != nil {
		tb.Fatalf("apptest: the scale bundle: %v", err)
	}
	return b
}

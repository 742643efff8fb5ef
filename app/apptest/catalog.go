package apptest

import (
	"testing"

	"sutura.dev/app"
	"sutura.dev/domain"
)

var _ app.Catalog = Catalog{}

// Catalog is a fixed app.Catalog: it hands out Pinned and can never swap
// it, so it is not an app.CatalogNotifier.
type Catalog struct {
	Pinned *domain.Bundle
}

// Bundle returns the pinned bundle.
func (c Catalog) Bundle() *domain.Bundle { return c.Pinned }

// SourceName is the one source the demo bundle's model reads.
const SourceName = "files"

// Sources configures sys as the demo bundle's one source, run as the
// shared service user.
func Sources(sys app.DataSystem) map[string]app.Source {
	return map[string]app.Source{SourceName: {System: sys, Posture: domain.SharedServiceUser}}
}

// Definitions returns the demo definitions, a fresh copy a test may edit.
// One model, sales (sold_on a date, amount, city, note), read from
// SourceName; revenue, open, described, at month and year, summing amount,
// with city (filterable, values Lyon and Paris) and note (group-by only),
// anchored at 42 over 2025; and secret_revenue, at month, restricted to
// the audience finance.
func Definitions() domain.Definitions {
	return domain.Definitions{
		Models: []domain.Model{{Name: "sales", Source: SourceName, Table: "sales", Columns: []domain.ModelColumn{
			{Name: "sold_on", Type: domain.TypeDate}, {Name: "amount", Type: domain.TypeInteger},
			{Name: "city", Type: domain.TypeText}, {Name: "note", Type: domain.TypeText}}}},
		Metrics: []domain.Metric{{
			Name: "revenue", Model: "sales", TimeColumn: "sold_on", Grains: []domain.Grain{domain.Month, domain.Year},
			Description: "Revenue in euros.",
			Measure:     &domain.Measure{Simple: &domain.Term{Aggregate: domain.Sum, Column: "amount"}},
			Dimensions: []domain.Dimension{
				{Name: "city", Column: "city", Filterable: true, Values: []string{"Lyon", "Paris"}},
				{Name: "note", Column: "note"},
			},
			Anchor: &domain.Anchor{Range: domain.Range{Start: domain.DateOf(2025, 1, 1), End: domain.DateOf(2026, 1, 1)}, Value: "42"},
		}, {
			Name: "secret_revenue", Model: "sales", TimeColumn: "sold_on", Grains: []domain.Grain{domain.Month},
			Measure:  &domain.Measure{Simple: &domain.Term{Aggregate: domain.Sum, Column: "amount"}},
			Audience: domain.Audience{Restricted: []string{"finance"}},
		}},
	}
}

// Knowledge returns the demo knowledge, a fresh copy a test may edit: the
// glossary term turnover for revenue, and profit as not defined.
func Knowledge() domain.Knowledge {
	return domain.Knowledge{
		Glossary:   []domain.Glossary{{Term: "turnover", Means: domain.Meaning{Metric: "revenue"}}},
		NotDefined: []domain.NotDefined{{Phrase: "profit"}},
	}
}

// Bundle returns the demo bundle (Definitions and Knowledge) labelled
// version. Bundles of different versions have the same digest.
func Bundle(tb testing.TB, version string) *domain.Bundle {
	tb.Helper()
	b, err := domain.NewBundle(version, Definitions(), Knowledge())
	if err != nil {
		tb.Fatalf("apptest: the demo bundle: %v", err)
	}
	return b
}

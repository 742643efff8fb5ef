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

// The sources of the federated bundle besides SourceName.
const (
	StoresSource  = "shops"
	RegionsSource = "geo"
)

// FederatedDefinitions returns a catalogue whose questions span data
// systems (docs/contract.md §11), a fresh copy a test may edit: sales (sold_on,
// amount, city, note, store_id, buyer_store_id) on SourceName; stores
// (store_id, region, region_id) on StoresSource, reached from sales by
// sale_store and by sale_buyer_store; regions (region_id, zone) on
// RegionsSource, reached from stores by store_region. Metric revenue
// (sum of amount, month and year) has the dimensions city (local,
// filterable: Lyon, Paris), store_region (through sale_store, filterable:
// East, West), buyer_region (through sale_buyer_store) and zone (through
// sale_store then store_region); cities (count_distinct of city) has
// store_region.
func FederatedDefinitions() domain.Definitions {
	col := func(name string, t domain.ColumnType) domain.ModelColumn {
		return domain.ModelColumn{Name: name, Type: t}
	}
	m2o := func(name, from, fromCol, to, toCol string) domain.Relationship {
		return domain.Relationship{Name: name, Origin: domain.Endpoint{Model: from, Column: fromCol},
			Target: domain.Endpoint{Model: to, Column: toCol}, JoinType: domain.ManyToOne}
	}
	region := domain.Dimension{Name: "store_region", Column: "region", Via: []string{"sale_store"}, Values: []string{"East", "West"}, Filterable: true}
	return domain.Definitions{
		Models: []domain.Model{
			{Name: "sales", Source: SourceName, Table: "sales", Columns: []domain.ModelColumn{
				col("sold_on", domain.TypeDate), col("amount", domain.TypeInteger), col("city", domain.TypeText),
				col("note", domain.TypeText), col("store_id", domain.TypeText), col("buyer_store_id", domain.TypeText)}},
			{Name: "stores", Source: StoresSource, Table: "stores", Columns: []domain.ModelColumn{
				col("store_id", domain.TypeText), col("region", domain.TypeText), col("region_id", domain.TypeText)}},
			{Name: "regions", Source: RegionsSource, Table: "regions", Columns: []domain.ModelColumn{
				col("region_id", domain.TypeText), col("zone", domain.TypeText)}},
		},
		Relationships: []domain.Relationship{
			m2o("sale_store", "sales", "store_id", "stores", "store_id"),
			m2o("sale_buyer_store", "sales", "buyer_store_id", "stores", "store_id"),
			m2o("store_region", "stores", "region_id", "regions", "region_id"),
		},
		Metrics: []domain.Metric{{
			Name: "revenue", Model: "sales", TimeColumn: "sold_on", Grains: []domain.Grain{domain.Month, domain.Year},
			Description: "Revenue in euros.",
			Measure:     &domain.Measure{Simple: &domain.Term{Aggregate: domain.Sum, Column: "amount"}},
			Dimensions: []domain.Dimension{
				{Name: "city", Column: "city", Filterable: true, Values: []string{"Lyon", "Paris"}},
				region,
				{Name: "buyer_region", Column: "region", Via: []string{"sale_buyer_store"}},
				{Name: "zone", Column: "zone", Via: []string{"sale_store", "store_region"}},
			},
		}, {
			Name: "cities", Model: "sales", TimeColumn: "sold_on", Grains: []domain.Grain{domain.Month},
			Measure:    &domain.Measure{Simple: &domain.Term{Aggregate: domain.CountDistinct, Column: "city"}},
			Dimensions: []domain.Dimension{region},
		}},
	}
}

// FederatedBundle returns the federated bundle (FederatedDefinitions, no
// knowledge) labelled version.
func FederatedBundle(tb testing.TB, version string) *domain.Bundle {
	tb.Helper()
	b, err := domain.NewBundle(version, FederatedDefinitions(), domain.Knowledge{})
	if err != nil {
		tb.Fatalf("apptest: the federated bundle: %v", err)
	}
	return b
}

// FederatedSources configures the federated bundle's three sources, run
// as the shared service user: sales on SourceName, stores on
// StoresSource, regions on RegionsSource.
func FederatedSources(sales, stores, regions app.DataSystem) map[string]app.Source {
	return map[string]app.Source{
		SourceName:    {System: sales, Posture: domain.SharedServiceUser},
		StoresSource:  {System: stores, Posture: domain.SharedServiceUser},
		RegionsSource: {System: regions, Posture: domain.SharedServiceUser},
	}
}

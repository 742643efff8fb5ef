package mdcatalog

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

func cols(names ...string) []domain.ModelColumn {
	out := make([]domain.ModelColumn, len(names))
	for i, n := range names {
		out[i] = domain.ModelColumn{Name: n}
	}
	return out
}

func count(col string) *domain.Measure {
	return &domain.Measure{Simple: &domain.Term{Aggregate: domain.Count, Column: col}}
}

// sampleImport is a small import with a chain of many_to_one
// relationships, a name shared by two models' dimensions, a model the
// check refuses (no columns) and a dimension over an undeclared column.
func sampleImport() Imported {
	e := func(kind, name, output string) ImportEntry {
		return ImportEntry{Kind: kind, Name: name, File: "in.yml", Line: 1, Output: output, Status: ImportImported, Became: output}
	}
	return Imported{
		Format: "test",
		Definitions: domain.Definitions{
			Models: []domain.Model{
				{Name: "orders", Table: "s.orders", Columns: cols("id", "at", "status", "customer_id", "ghost_col")},
				{Name: "customers", Table: "s.customers", Columns: cols("id", "status", "region_id")},
				{Name: "regions", Table: "s.regions", Columns: cols("id", "name")},
				{Name: "empty", Table: "s.empty"},
			},
			Relationships: []domain.Relationship{
				{Name: "orders_customer", Origin: domain.Endpoint{Model: "orders", Column: "customer_id"}, Target: domain.Endpoint{Model: "customers", Column: "id"}, JoinType: domain.ManyToOne},
				{Name: "customer_region", Origin: domain.Endpoint{Model: "customers", Column: "region_id"}, Target: domain.Endpoint{Model: "regions", Column: "id"}, JoinType: domain.ManyToOne},
				{Name: "empty_orders", Origin: domain.Endpoint{Model: "empty", Column: "x"}, Target: domain.Endpoint{Model: "orders", Column: "id"}, JoinType: domain.ManyToOne},
			},
			Metrics: []domain.Metric{
				{Name: "order_count", Model: "orders", Measure: count("id"), TimeColumn: "at", Grains: []domain.Grain{domain.Day, domain.Year}},
				{Name: "customer_count", Model: "customers", Measure: count("id"), TimeColumn: "status", Grains: []domain.Grain{domain.Month}},
				{Name: "empty_count", Model: "empty", Measure: count("x"), TimeColumn: "x", Grains: []domain.Grain{domain.Month}},
			},
		},
		Dimensions: []ImportedDimension{
			{Model: "orders", Name: "status", Column: "status"},
			{Model: "orders", Name: "ghost", Column: "nope"},
			{Model: "customers", Name: "status", Column: "status", Description: "Customer status."},
			{Model: "regions", Name: "region", Column: "name"},
		},
		Glossary: []domain.Glossary{{Term: "orders placed", Means: domain.Meaning{Metric: "order_count"}},
			{Term: "empty things", Means: domain.Meaning{Metric: "empty_count"}}},
		Entries: []ImportEntry{
			e("table", "orders", "model:orders"), e("table", "customers", "model:customers"), e("table", "regions", "model:regions"), e("table", "empty", "model:empty"),
			e("join", "orders_customer", "relationship:orders_customer"), e("join", "customer_region", "relationship:customer_region"), e("join", "empty_orders", "relationship:empty_orders"),
			e("measure", "order_count", "metric:order_count"), e("measure", "customer_count", "metric:customer_count"), e("measure", "empty_count", "metric:empty_count"),
			e("column", "orders.status", "dimension:orders.status"), e("column", "orders.ghost", "dimension:orders.ghost"),
			e("column", "customers.status", "dimension:customers.status"), e("column", "regions.region", "dimension:regions.region"),
			e("synonym", "orders placed", "glossary:orders placed"), e("synonym", "empty things", "glossary:empty things"),
			{Kind: "measure", Name: "median_x", File: "in.yml", Line: 9, Status: ImportRefused, Reason: "median is not in the vocabulary"},
		},
	}
}

func TestAssembleImport(t *testing.T) {
	res, err := AssembleImport(sampleImport(), ImportOptions{Input: "in"})
	require.NoError(t, err)
	b := res.Bundle
	require.NotNil(t, b)
	assert.Equal(t, 2, res.Metrics)

	for _, m := range b.Definitions().Models {
		assert.Equal(t, "warehouse", m.Source, "the default source alias")
	}
	oc, ok := b.Metric("order_count")
	require.True(t, ok)
	assert.Equal(t, []string{"review"}, oc.Audience.Restricted, "the default audience")
	assert.Equal(t, []domain.Dimension{
		{Name: "customers_status", Column: "status", Via: []string{"orders_customer"}, Description: "Customer status."},
		{Name: "region", Column: "name", Via: []string{"orders_customer", "customer_region"}},
		{Name: "status", Column: "status"},
	}, oc.Dimensions, "own dimensions keep their names; the joined one that clashes is <model>_<name>; chains follow many_to_one")
	cc, _ := b.Metric("customer_count")
	assert.Equal(t, []string{"region", "status"}, dimNames(cc), "a metric reaches only along many_to_one")
	_, ok = b.Metric("empty_count")
	assert.False(t, ok)
	_, ok = b.Model("empty")
	assert.False(t, ok, "a model the check refuses is left out")

	byName := map[string]ImportEntry{}
	for _, e := range res.Entries {
		byName[e.Kind+" "+e.Name] = e
	}
	assert.Equal(t, ImportRefused, byName["table empty"].Status)
	assert.Contains(t, byName["table empty"].Reason, "declares no columns")
	assert.Equal(t, ImportRefused, byName["measure empty_count"].Status)
	assert.Contains(t, byName["measure empty_count"].Reason, "its model empty is not imported")
	assert.Equal(t, ImportRefused, byName["join empty_orders"].Status)
	assert.Equal(t, ImportRefused, byName["synonym empty things"].Status)
	assert.Equal(t, ImportImported, byName["synonym orders placed"].Status)
	assert.Equal(t, "group-by dimension customers_status of metric order_count; as status of metric customer_count", byName["column customers.status"].Became)
	assert.Contains(t, strings.Join(byName["measure order_count"].Notes, "\n"), "dimension status of model customers is called customers_status here")
	assert.Contains(t, strings.Join(byName["measure order_count"].Notes, "\n"), "dimension ghost (from model orders) is left out")
	assert.Equal(t, ImportRefused, byName["column orders.ghost"].Status, "a dimension the check refuses everywhere is refused")
	assert.Equal(t, "its model empty is not imported", byName["join empty_orders"].Reason, "the cause, not the symptom")
	assert.Equal(t, "the metric empty_count it means is not imported", byName["synonym empty things"].Reason)

	// The written catalogue loads, as it is, to the same digest.
	loaded, err := Load(filesFS(res.Files), "v")
	require.NoError(t, err)
	assert.Equal(t, b.Digest(), loaded.Digest())
	require.Equal(t, ImportReportName, res.Files[len(res.Files)-1].Path)
	report := string(res.Files[len(res.Files)-1].Data)
	assert.Contains(t, report, "- `median_x` (in.yml:9): **refused**: median is not in the vocabulary")
	assert.Contains(t, report, "| measure | 2 | 2 | 0 |")

	again, err := AssembleImport(sampleImport(), ImportOptions{Input: "in"})
	require.NoError(t, err)
	assert.Equal(t, res.Files, again.Files, "the same input gives the same bytes")
}

func dimNames(m *domain.Metric) []string {
	var out []string
	for _, d := range m.Dimensions {
		out = append(out, d.Name)
	}
	return out
}

func TestAssembleImportOptions(t *testing.T) {
	res, err := AssembleImport(sampleImport(), ImportOptions{Source: "dwh", Audience: "analysts"})
	require.NoError(t, err)
	m, _ := res.Bundle.Model("orders")
	assert.Equal(t, "dwh", m.Source)
	oc, _ := res.Bundle.Metric("order_count")
	assert.Equal(t, []string{"analysts"}, oc.Audience.Restricted)

	_, err = AssembleImport(sampleImport(), ImportOptions{Source: "not an alias"})
	assert.ErrorContains(t, err, "source alias")
	_, err = AssembleImport(sampleImport(), ImportOptions{Audience: "a-b"})
	assert.ErrorContains(t, err, "audience id")
}

// An import with nothing in it still writes its report, and the report
// quotes no name that is not an identifier.
func TestAssembleImportNothing(t *testing.T) {
	res, err := AssembleImport(Imported{Format: "test", Entries: []ImportEntry{
		{Kind: "metric", Name: planted + " \n# heading", File: "x.yml", Line: 3, Status: ImportRefused, Reason: "the name is not an identifier"},
	}}, ImportOptions{})
	require.NoError(t, err)
	assert.Nil(t, res.Bundle)
	assert.Zero(t, res.Metrics)
	require.Len(t, res.Files, 1)
	report := string(res.Files[0].Data)
	assert.NotContains(t, report, planted)
	assert.Contains(t, report, "(a name that is not an identifier) (x.yml:3): **refused**")
	assert.Equal(t, []ImportCount{{Kind: "metric", Refused: 1}}, ImportCounts(res.Entries))
	assert.Equal(t, "metric: 0 imported, 1 refused", ImportCounts(res.Entries)[0].String())
}

func TestLoadSkipsTheImportReport(t *testing.T) {
	base := fixture(t, "minimal")
	b, err := Load(edit(base, map[string]string{ImportReportName: "# Import report\n", "sub/" + ImportReportName: ""}), "v")
	require.NoError(t, err)
	ref, _ := Load(base, "v")
	assert.Equal(t, ref.Digest(), b.Digest())
	_, err = Load(edit(base, map[string]string{"sub/" + ImportReportName: "# not at the root\n"}), "v")
	assert.ErrorIs(t, err, ErrFrontMatter, "only the root's report is skipped")
}

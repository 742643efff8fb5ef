package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
	"sutura.dev/runtime"
)

// scaleSurface serves the generated catalogue of metrics over models from
// a swappable catalogue.
func scaleSurface(t testing.TB, metrics, models int) (*app.Surface, *app.SwappableCatalog) {
	t.Helper()
	cat, err := app.NewSwappableCatalog(apptest.ScaleBundle(t, "v1", metrics, models))
	require.NoError(t, err)
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: 2})
	require.NoError(t, err)
	s, err := app.New(app.Config{Catalog: cat, Admission: adm, Audit: &apptest.Audit{}})
	require.NoError(t, err)
	return s, cat
}

var (
	finance = app.Caller{Principal: domain.Principal{Subject: "cfo", Audiences: []string{"finance"}}}
	agent   = app.Caller{Principal: domain.Principal{Subject: "agent"}}
)

// describe calls describe_catalog through the pipeline and returns the
// catalogue view and the bytes every transport sends.
func describe(t testing.TB, s *app.Surface, caller app.Caller, args string) (app.Result, []byte) {
	t.Helper()
	res := s.Call(t.Context(), caller, domain.DescribeCatalog, json.RawMessage(args))
	if res.Catalog == nil {
		return res, nil
	}
	b, err := json.Marshal(res.Catalog)
	require.NoError(t, err)
	return res, b
}

func TestSmallCatalogueAnswersAsBefore(t *testing.T) {
	s, _, _ := newSurface(t, &apptest.System{}, 1, 0)
	res, _ := describe(t, s, finance, `{}`)
	require.NotNil(t, res.Catalog)
	assert.Equal(t, app.DescribeBundle(apptest.Bundle(t, "v1"), finance.Principal), *res.Catalog,
		"a catalogue of at most 25 metrics is listed in full, with no total, cursor or summaries")
}

func TestLargeCatalogueIsPagedSummaries(t *testing.T) {
	s, _ := scaleSurface(t, 1000, 40)
	seen := map[string]bool{}
	cursor, pages := "", 0
	for {
		args := `{}`
		if cursor != "" {
			args = `{"cursor":"` + cursor + `"}`
		}
		res, body := describe(t, s, agent, args)
		require.NotNil(t, res.Catalog, "%+v", res.Failure)
		assert.LessOrEqual(t, len(body), app.MaxCatalogBytes)
		v := res.Catalog
		assert.Empty(t, v.Metrics, "summaries, not full entries, above 25 metrics")
		require.NotNil(t, v.Total)
		assert.Equal(t, 900, *v.Total, "the hidden tenth is not counted")
		for _, m := range v.Summaries {
			assert.False(t, seen[m.Name], "listed twice: %s", m.Name)
			seen[m.Name] = true
			assert.NotContains(t, m.Description, "\n")
		}
		pages++
		if v.NextCursor == "" {
			break
		}
		cursor = v.NextCursor
	}
	assert.Len(t, seen, 900)
	assert.Greater(t, pages, 1)
	defs, _ := apptest.ScaleDefinitions(1000, 40)
	for i, m := range defs.Metrics {
		assert.Equal(t, i%10 != 9, seen[m.Name], m.Name)
	}
}

func TestSearchRanksByWords(t *testing.T) {
	s, _ := scaleSurface(t, 1000, 40)
	defs, _ := apptest.ScaleDefinitions(1000, 40)
	name := func(i int) string { return defs.Metrics[i].Name }
	for _, tc := range []struct{ search, first string }{
		{name(82), name(82)},
		{strings.ReplaceAll(name(82), "_", " "), name(82)},
		{"kpi120", name(120)},
		{strings.ToUpper(name(80)), name(80)},
	} {
		res, body := describe(t, s, agent, fmt.Sprintf(`{"search":%q}`, tc.search))
		require.NotNil(t, res.Catalog, tc.search)
		assert.LessOrEqual(t, len(body), app.MaxCatalogBytes)
		require.NotEmpty(t, res.Catalog.Summaries, tc.search)
		assert.Equal(t, tc.first, res.Catalog.Summaries[0].Name, tc.search)
		require.NotNil(t, res.Catalog.Total)
	}
	res, _ := describe(t, s, agent, `{"search":"region"}`)
	assert.Positive(t, *res.Catalog.Total, "dimension names are searched")
	res, _ = describe(t, s, agent, `{"search":"zzqx nothing matches"}`)
	assert.Equal(t, 0, *res.Catalog.Total)
	assert.Empty(t, res.Catalog.Summaries)
	assert.NotNil(t, res.Catalog.Summaries, "an empty list, not null")
}

func TestHiddenMetricsAreNeverFoundOrCounted(t *testing.T) {
	s, _ := scaleSurface(t, 1000, 40)
	defs, _ := apptest.ScaleDefinitions(1000, 40)
	hidden := defs.Metrics[9].Name // i%10 == 9: finance only
	res, _ := describe(t, s, finance, `{"search":"`+hidden+`"}`)
	require.NotEmpty(t, res.Catalog.Summaries)
	assert.Equal(t, hidden, res.Catalog.Summaries[0].Name)
	res, _ = describe(t, s, agent, `{"search":"`+hidden+`"}`)
	for _, m := range res.Catalog.Summaries {
		assert.NotEqual(t, hidden, m.Name)
	}
	hiddenRes, _ := describe(t, s, agent, `{"metrics":["`+hidden+`"]}`)
	unknownRes, _ := describe(t, s, agent, `{"metrics":["no_such_metric"]}`)
	require.NotNil(t, hiddenRes.Refusal)
	require.NotNil(t, unknownRes.Refusal)
	assert.Equal(t, domain.MetricUnknown, hiddenRes.Refusal.Code())
	assert.Equal(t, strings.ReplaceAll(unknownRes.Refusal.Detail(), "no_such_metric", hidden), hiddenRes.Refusal.Detail(),
		"hidden and unknown are told alike")
	_, ok := s.MetricDocument(agent, hidden)
	assert.False(t, ok)
	names, total := s.CompleteMetrics(agent, hidden[:len(hidden)-2])
	assert.NotContains(t, names, hidden)
	assert.Equal(t, len(names), total)
	dims, n := s.CompleteDimensions(agent, hidden, "")
	assert.Empty(t, dims)
	assert.Zero(t, n)
}

func TestMetricsByNameInFull(t *testing.T) {
	s, _ := scaleSurface(t, 1000, 40)
	res, body := describe(t, s, agent, `{"metrics":["sales_count_000","orders_count_001"]}`)
	require.NotNil(t, res.Catalog)
	assert.LessOrEqual(t, len(body), app.MaxCatalogBytes)
	require.Len(t, res.Catalog.Metrics, 2)
	assert.Equal(t, "sales_count_000", res.Catalog.Metrics[0].Name)
	assert.NotEmpty(t, res.Catalog.Metrics[0].Dimensions[0].Values, "full entries carry allowed values")
	assert.NotEmpty(t, res.Catalog.Glossary, "with the knowledge about them")
	assert.Nil(t, res.Catalog.Total)
}

func TestCursorsAreBoundToTheBundleAndTheListing(t *testing.T) {
	s, cat := scaleSurface(t, 1000, 40)
	res, _ := describe(t, s, agent, `{}`)
	next := res.Catalog.NextCursor
	require.NotEmpty(t, next)
	for name, args := range map[string]string{
		"another listing": `{"search":"sales","cursor":"` + next + `"}`,
		"forged":          `{"cursor":"` + next[:len(next)-2] + `AA"}`,
		"not base64":      `{"cursor":"%%%"}`,
	} {
		res, _ := describe(t, s, agent, args)
		require.NotNil(t, res.Failure, name)
		assert.Equal(t, app.CodeNotAQuestion, res.Failure.Code, name)
		assert.Contains(t, res.Failure.Detail, "cursor was not issued by this server", name)
	}
	_, err := cat.Swap(apptest.ScaleBundle(t, "v2", 1001, 40))
	require.NoError(t, err)
	res, _ = describe(t, s, agent, `{"cursor":"`+next+`"}`)
	require.NotNil(t, res.Failure)
	assert.Contains(t, res.Failure.Detail, "cursor was issued for an older catalogue")
	assert.NotContains(t, res.Failure.Detail, next)
}

func TestListMetricsPagesResources(t *testing.T) {
	s, _ := scaleSurface(t, 1000, 40)
	var names []string
	cursor := ""
	for {
		page, err := s.ListMetrics(agent, cursor, 100)
		require.NoError(t, err)
		assert.Equal(t, 900, page.Total)
		for _, m := range page.Summaries {
			names = append(names, m.Name)
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	assert.Len(t, names, 900)
	_, err := s.ListMetrics(agent, "bogus", 100)
	var fe *domain.FieldError
	require.ErrorAs(t, err, &fe)
}

func TestMetricDocumentAndPrompt(t *testing.T) {
	s, _, _ := newSurface(t, &apptest.System{}, 1, 0)
	doc, ok := s.MetricDocument(anon, "revenue")
	require.True(t, ok)
	for _, want := range []string{"# revenue", "> Revenue in euros.", "`city`", `"Lyon"`, "grains: month, year", "anchor: 42", "turnover"} {
		assert.Contains(t, doc, want)
	}
	_, ok = s.MetricDocument(anon, "secret_revenue")
	assert.False(t, ok)
	p, ok := s.AskAboutMetric(anon, "revenue", "city")
	require.True(t, ok)
	assert.Contains(t, p, "grouped by city")
	assert.Contains(t, p, "# revenue")
	_, ok = s.AskAboutMetric(anon, "revenue", "nope")
	assert.False(t, ok)
	_, ok = s.AskAboutMetric(anon, "secret_revenue", "")
	assert.False(t, ok)
	dims, n := s.CompleteDimensions(anon, "revenue", "c")
	assert.Equal(t, []string{"city"}, dims)
	assert.Equal(t, 1, n)
}

// BenchmarkDescribeSearch is the scale target of docs/contract.md §14: a
// search over 1,000 metrics, on the surface, reported with its median
// (p50-ms) and its largest response (max-bytes) (docs/performance.md).
func BenchmarkDescribeSearch(b *testing.B) {
	s, _ := scaleSurface(b, 1000, 40)
	searches := []string{"refunds margin by region", "kpi120", "subscriptions churn", "average value of orders per channel", "growth"}
	for _, q := range searches { // the index is built once per bundle
		s.Call(b.Context(), agent, domain.DescribeCatalog, json.RawMessage(`{"search":"`+q+`"}`))
	}
	b.ReportAllocs()
	var took []time.Duration
	largest := 0
	i := 0
	for b.Loop() {
		args := json.RawMessage(`{"search":"` + searches[i%len(searches)] + `"}`)
		i++
		start := time.Now()
		res := s.Call(b.Context(), agent, domain.DescribeCatalog, args)
		took = append(took, time.Since(start))
		if res.Catalog == nil || len(res.Catalog.Summaries) == 0 {
			b.Fatal("no summaries")
		}
		body, err := json.Marshal(res.Catalog)
		if err != nil {
			b.Fatal(err)
		}
		largest = max(largest, len(body))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(largest), "max-bytes")
}

// BenchmarkDescribePagedWalk walks the whole 1,000-metric listing, page
// by page, reporting the pages and the largest page (max-bytes).
func BenchmarkDescribePagedWalk(b *testing.B) {
	s, _ := scaleSurface(b, 1000, 40)
	pages, largest := 0, 0
	for b.Loop() {
		cursor := ""
		pages = 0
		for {
			args := `{}`
			if cursor != "" {
				args = `{"cursor":"` + cursor + `"}`
			}
			res := s.Call(b.Context(), agent, domain.DescribeCatalog, json.RawMessage(args))
			if res.Catalog == nil {
				b.Fatal("no catalogue")
			}
			body, _ := json.Marshal(res.Catalog)
			largest = max(largest, len(body))
			pages++
			if cursor = res.Catalog.NextCursor; cursor == "" {
				break
			}
		}
	}
	b.ReportMetric(float64(pages), "pages")
	b.ReportMetric(float64(largest), "max-bytes")
}

// TestDescribeIsSafeDuringARepin: callers of two classes describe the
// catalogue while it is re-pinned; each answer is one bundle's, whole
// (run with -race).
func TestDescribeIsSafeDuringARepin(t *testing.T) {
	s, cat := scaleSurface(t, 200, 8)
	next := apptest.ScaleBundle(t, "v2", 210, 8)
	done := make(chan struct{})
	errs := make(chan string, 64)
	for _, caller := range []app.Caller{agent, finance, agent, finance} {
		go func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				res := s.Call(context.Background(), caller, domain.DescribeCatalog, json.RawMessage(`{"search":"margin"}`))
				if res.Catalog == nil || res.Catalog.Total == nil {
					errs <- "no catalogue"
					return
				}
			}
		}()
	}
	_, err := cat.Swap(next)
	require.NoError(t, err)
	time.Sleep(50 * time.Millisecond)
	close(done)
	select {
	case e := <-errs:
		t.Fatal(e)
	default:
	}
	res, _ := describe(t, s, finance, `{}`)
	require.NotNil(t, res.Catalog)
	assert.Equal(t, next.Digest(), res.Catalog.DefinitionDigest)
	assert.Equal(t, 210, *res.Catalog.Total)
}

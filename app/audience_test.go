package app_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
)

// restrictedModels is the demo bundle with two models restricted to the
// audience finance: stores, which revenue reads its dimension store_city
// through, and payroll, which the metric wages is defined on.
func restrictedModels(t *testing.T) *domain.Bundle {
	t.Helper()
	finance := &domain.Audience{Restricted: []string{"finance"}}
	d := apptest.Definitions()
	d.Models[0].Columns = append(d.Models[0].Columns, domain.ModelColumn{Name: "store_id", Type: domain.TypeInteger})
	d.Models = append(d.Models,
		domain.Model{Name: "stores", Source: apptest.SourceName, Table: "stores", Audience: finance,
			Columns: []domain.ModelColumn{{Name: "store_id", Type: domain.TypeInteger}, {Name: "city", Type: domain.TypeText}}},
		domain.Model{Name: "payroll", Source: apptest.SourceName, Table: "payroll", Audience: finance,
			Columns: []domain.ModelColumn{{Name: "paid_on", Type: domain.TypeDate}, {Name: "amount", Type: domain.TypeInteger}}})
	d.Relationships = append(d.Relationships, domain.Relationship{Name: "sale_store", JoinType: domain.ManyToOne,
		Origin: domain.Endpoint{Model: "sales", Column: "store_id"}, Target: domain.Endpoint{Model: "stores", Column: "store_id"}})
	d.Metrics[0].Dimensions = append(d.Metrics[0].Dimensions,
		domain.Dimension{Name: "store_city", Column: "city", Via: []string{"sale_store"}, Filterable: true, Values: []string{"Lyon"}})
	d.Metrics = append(d.Metrics, domain.Metric{Name: "wages", Model: "payroll", TimeColumn: "paid_on", Grains: []domain.Grain{domain.Month},
		Measure: &domain.Measure{Simple: &domain.Term{Aggregate: domain.Sum, Column: "amount"}}})
	k := apptest.Knowledge()
	k.Caveats = append(k.Caveats, domain.Caveat{Name: "store_moves", About: []string{"revenue.store_city"}, Note: "Shops move."},
		// One visible and one hidden referent: the note may speak of the
		// hidden one, so only a caller who sees both is shown it.
		domain.Caveat{Name: "pay_day", About: []string{"revenue", "wages"}, Note: "Wages are paid on the 25th."})
	b, err := domain.NewBundle("v1", d, k)
	require.NoError(t, err)
	return b
}

// TestAModelsAudienceRestrictsItsMetricsAndDimensions: a caller outside a
// model's audience sees no metric on it (asked, it is a missing metric) and
// no dimension read through it (asked or filtered, it is a dimension the
// metric does not have), and describe_catalog shows neither.
func TestAModelsAudienceRestrictsItsMetricsAndDimensions(t *testing.T) {
	sys := &apptest.System{Generate: 1}
	s, _, _ := newSurface(t, sys, 2, 5*time.Second, func(cfg *app.Config) { cfg.Catalog = apptest.Catalog{Pinned: restrictedModels(t)} })
	agent := app.Caller{Principal: domain.Principal{Subject: "agent"}}
	cfo := app.Caller{Principal: domain.Principal{Subject: "cfo", Audiences: []string{"finance"}}}
	ask := func(caller app.Caller, js string) domain.Outcome {
		out, err := s.Answer(t.Context(), caller, question(t, js))
		require.NoError(t, err)
		return out
	}
	const rng = `"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"}`
	for _, tc := range []struct {
		name, hidden, missing string
		code                  domain.Code
	}{
		{"a metric on the model", `{"metrics":["wages"],` + rng + `}`, `{"metrics":["salaries"],` + rng + `}`, domain.MetricUnknown},
		{"a dimension through the model", `{"metrics":["revenue"],"dimensions":["store_city"],` + rng + `}`,
			`{"metrics":["revenue"],"dimensions":["store_town"],` + rng + `}`, domain.DimensionNotPermitted},
		{"a filter through the model", `{"metrics":["revenue"],"filters":[{"op":"eq","dimension":"store_city","value":"Lyon"}],` + rng + `}`,
			`{"metrics":["revenue"],"filters":[{"op":"eq","dimension":"store_town","value":"Lyon"}],` + rng + `}`, domain.DimensionNotPermitted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hidden, missing := ask(agent, tc.hidden), ask(agent, tc.missing)
			require.NotNil(t, hidden.Refusal)
			assert.Equal(t, tc.code, hidden.Refusal.Code())
			hj, err := json.Marshal(hidden)
			require.NoError(t, err)
			mj, err := json.Marshal(missing)
			require.NoError(t, err)
			want := string(mj)
			for _, pair := range [][2]string{{"salaries", "wages"}, {"store_town", "store_city"}} {
				want = strings.ReplaceAll(want, pair[0], pair[1])
			}
			assert.Equal(t, want, string(hj), "indistinguishable from what does not exist")
			assert.NotNil(t, ask(cfo, tc.hidden).Answer, "the model's audience sees it")
		})
	}

	view := s.DescribeCatalog(agent)
	var names []string
	for _, m := range view.Metrics {
		names = append(names, m.Name)
		for _, d := range m.Dimensions {
			names = append(names, m.Name+"."+d.Name)
		}
	}
	assert.Equal(t, []string{"revenue", "revenue.city", "revenue.note"}, names)
	assert.Empty(t, view.Caveats, "nor the knowledge about what is hidden, even where it names something visible too")
	full := s.DescribeCatalog(cfo)
	assert.Len(t, full.Metrics, 2+1, "revenue, secret_revenue and wages for the model's audience")
	require.Len(t, full.Caveats, 2)
	assert.Equal(t, "pay_day", full.Caveats[0].Name)
	assert.Equal(t, []string{"revenue", "wages"}, full.Caveats[0].About)
}

// TestRefusalsListOnlyWhatTheCallerMaySee: dimension_not_permitted and
// dimension_value_not_allowed list what the metric allows — for the
// caller: a dimension read through a model outside its audiences is not
// named, and the value asked for is never echoed.
func TestRefusalsListOnlyWhatTheCallerMaySee(t *testing.T) {
	s, _, _ := newSurface(t, &apptest.System{Generate: 1}, 2, 5*time.Second, func(cfg *app.Config) { cfg.Catalog = apptest.Catalog{Pinned: restrictedModels(t)} })
	agent := app.Caller{Principal: domain.Principal{Subject: "agent"}}
	cfo := app.Caller{Principal: domain.Principal{Subject: "cfo", Audiences: []string{"finance"}}}
	const rng = `"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"}`
	detail := func(caller app.Caller, js string) string {
		out, err := s.Answer(t.Context(), caller, question(t, js))
		require.NoError(t, err)
		require.NotNil(t, out.Refusal, js)
		return out.Refusal.Detail()
	}
	undeclared := `{"metrics":["revenue"],"dimensions":["zz_canary_dim"],` + rng + `}`
	assert.Equal(t, "metric revenue has no dimension zz_canary_dim; its dimensions are city, note", detail(agent, undeclared))
	assert.Equal(t, "metric revenue has no dimension zz_canary_dim; its dimensions are city, note, store_city", detail(cfo, undeclared))

	notAllowed := `{"metrics":["revenue"],"filters":[{"op":"in","dimension":"city","values":["Lyon","ZzCanary"]}],` + rng + `}`
	d := detail(agent, notAllowed)
	assert.Equal(t, "a value in the filter on dimension city is not on its allowlist; metric revenue allows Lyon, Paris", d)
	assert.NotContains(t, d, "ZzCanary")

	notFilterable := `{"metrics":["revenue"],"filters":[{"op":"eq","dimension":"note","value":"x"}],` + rng + `}`
	assert.Equal(t, "dimension note of metric revenue can be grouped by but not filtered on; it may be filtered on city", detail(agent, notFilterable))
	assert.Equal(t, "dimension note of metric revenue can be grouped by but not filtered on; it may be filtered on city, store_city", detail(cfo, notFilterable))
}

package engine_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
	engine "sutura.dev/exec-arrow"
	"sutura.dev/runtime"
)

// demoSurface is a surface over the demo catalogue with its models on
// the sources split names (model → alias), each source an engine over the
// demo files holding its models, the combine on a working set of its own.
func demoSurface(t *testing.T, split map[string]string) *app.Surface {
	t.Helper()
	b, err := conformance.SplitDemoBundle(split)
	require.NoError(t, err)
	sources := map[string]app.Source{}
	for _, alias := range split {
		if _, ok := sources[alias]; ok {
			continue
		}
		e, err := engine.New(context.Background(), engine.Config{Source: alias, Files: os.DirFS("../examples/demo/data"),
			Models: conformance.DemoModelsOn(*b.Definitions(), alias)})
		require.NoError(t, err)
		sources[alias] = app.Source{System: e, Posture: domain.SharedServiceUser}
	}
	comb, err := engine.NewCombiner(context.Background(), engine.CombinerConfig{})
	require.NoError(t, err)
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: 2, Timeout: time.Minute})
	require.NoError(t, err)
	s, err := app.New(app.Config{Catalog: apptest.Catalog{Pinned: b}, Sources: sources, Admission: adm,
		Audit: &apptest.Audit{}, Combiner: comb, RequestTimeout: 5 * time.Minute})
	require.NoError(t, err)
	return s
}

func oneSource() map[string]string {
	return map[string]string{"orders": "demo", "customers": "demo", "regions": "demo", "products": "demo"}
}

// The splits of the demo the federated suites run on.
var splits = map[string]map[string]string{
	// orders local, customers and products in another system; area's
	// chain crosses out and back.
	"stores remote": {"orders": "files", "regions": "files", "customers": "stores", "products": "stores"},
	// the reverse: orders in the other system, the store tables local.
	"orders remote": {"orders": "stores", "regions": "stores", "customers": "files", "products": "files"},
	// three sources: orders, customers with regions, products.
	"three sources": {"orders": "files", "customers": "crm", "regions": "crm", "products": "shop"},
	// four sources: every model on its own.
	"four sources": {"orders": "files", "customers": "crm", "regions": "geo", "products": "shop"},
	// only products remote: every count_distinct question stays local.
	"products remote": {"orders": "files", "customers": "files", "regions": "files", "products": "shop"},
}

// TestCombineMatchesOneSource asks 500 random valid questions of the demo
// split across data systems and of the demo in one, and requires the
// same outcome for each: answers cell for cell and in order, refusals and
// failures; only count_distinct through a crossing is refused, as it must
// be.
func TestCombineMatchesOneSource(t *testing.T) {
	ref := demoSurface(t, oneSource())
	for name, split := range splits {
		t.Run(name, func(t *testing.T) {
			tally := conformance.FederatedDifferential(t, demoSurface(t, split), ref, 500, 12)
			t.Logf("%v, %d federated; %d real cells, %d not byte-identical", tally.Outcomes, tally.Federated, tally.Reals, tally.InexactReals)
			assert.Greater(t, tally.Outcomes["answer"], 300)
			assert.Greater(t, tally.Federated, 80, "enough answers read several data systems")
		})
	}
}

// TestCorpusOnASplit runs the conformance corpus on the demo with products
// in another data system: every answer, refusal and failure as on one.
func TestCorpusOnASplit(t *testing.T) {
	conformance.Run(t, demoSurface(t, splits["products remote"]))
}

// TestFederatedProvenanceAndCost: a federated answer lists each source
// read once, in leg order, and its cost sums the legs'.
func TestFederatedProvenanceAndCost(t *testing.T) {
	s := demoSurface(t, splits["three sources"])
	q, err := domain.ParseQuestion([]byte(`{"metrics":["net_sales"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"},"dimensions":["area","product_category"]}`))
	require.NoError(t, err)
	out, cost, err := s.AnswerWithCost(context.Background(), app.Caller{Principal: domain.LocalOperator}, q)
	require.NoError(t, err)
	require.NotNil(t, out.Answer, "%v", out.Refusal)
	assert.Equal(t, []domain.ExecutedAs{{Source: "files", Posture: domain.SharedServiceUser},
		{Source: "crm", Posture: domain.SharedServiceUser}, {Source: "shop", Posture: domain.SharedServiceUser}}, out.Answer.Provenance.ExecutedAs)
	assert.Equal(t, []string{"files", "crm", "shop"}, cost.Sources)
	assert.True(t, cost.Measured)
	assert.GreaterOrEqual(t, cost.RowsScanned, int64(12000+500+4+25), "every leg's rows: orders, customers, regions, products")
	assert.Equal(t, len(out.Answer.Rows), cost.RowsReturned)
	assert.True(t, slices.IsSortedFunc(out.Answer.Rows, func(a, b []domain.Cell) int {
		if a[0].IsNull() != b[0].IsNull() {
			if a[0].IsNull() {
				return 1
			}
			return -1
		}
		switch {
		case a[0].Render() < b[0].Render():
			return -1
		case a[0].Render() > b[0].Render():
			return 1
		}
		return 0
	}))
}

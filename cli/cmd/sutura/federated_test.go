package main

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/adapters/postgres"
	"sutura.dev/adapters/postgres/pgtest"
	"sutura.dev/app"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
	"sutura.dev/examples/demo"
	engine "sutura.dev/exec-arrow"
	"sutura.dev/runtime"
)

// opener opens the data system of one source alias holding models.
type opener func(t *testing.T, alias string, models []domain.Model) app.DataSystem

// onFiles is the embedded engine over the demo files.
func onFiles(t *testing.T, alias string, models []domain.Model) app.DataSystem {
	e, err := engine.New(context.Background(), engine.Config{Source: alias, Files: demo.Data(), Models: models})
	require.NoError(t, err)
	return e
}

// onPostgres loads models' tables into a throwaway database.
func onPostgres(t *testing.T, alias string, models []domain.Model) app.DataSystem {
	d := pgtest.New(t)
	d.Load(t, demo.Data(), models)
	db, err := postgres.New(context.Background(), d.Config(alias, models))
	require.NoError(t, err)
	t.Cleanup(db.Close)
	return db
}

// federatedDemo is a surface over the demo catalogue with its models on
// the sources split names (model → alias), each opened by opens[alias],
// checked as start-up checks it (tables and anchors), with the engine's
// combine and an admission bound of its own.
func federatedDemo(t *testing.T, split map[string]string, opens map[string]opener, adm *runtime.Admission) *app.Surface {
	t.Helper()
	b, err := conformance.SplitDemoBundle(split)
	require.NoError(t, err)
	sources := map[string]app.Source{}
	for alias, open := range opens {
		sources[alias] = app.Source{System: open(t, alias, conformance.DemoModelsOn(*b.Definitions(), alias)), Posture: domain.SharedServiceUser}
	}
	require.NoError(t, app.CheckBundle(context.Background(), b, sources), "the split demo validates and its anchors reproduce")
	comb, err := engine.NewCombiner(context.Background(), engine.CombinerConfig{})
	require.NoError(t, err)
	if adm == nil {
		adm, err = runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: 2, Timeout: time.Minute})
		require.NoError(t, err)
	}
	s, err := app.New(app.Config{Catalog: fixedCatalog{b}, Sources: sources, Admission: adm, Audit: discardAudit{},
		Combiner: comb, RequestTimeout: 5 * time.Minute,
		Now: func() time.Time { return time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC) }})
	require.NoError(t, err)
	return s
}

// The splits of the demo the federated suites run on (model → alias).
var (
	// productsRemote keeps every count_distinct question local: the
	// corpus passes whole on it.
	productsRemote = map[string]string{"orders": "files", "customers": "files", "regions": "files", "products": "remote"}
	// storesRemote: orders local, customers and products elsewhere; the
	// area chain crosses out and back.
	storesRemote = map[string]string{"orders": "files", "regions": "files", "customers": "remote", "products": "remote"}
	// ordersRemote is the reverse: the facts elsewhere, the store tables
	// in files.
	ordersRemote = map[string]string{"orders": "remote", "regions": "remote", "customers": "files", "products": "files"}
)

// filesOnly is the demo on the embedded engine alone: the reference.
func filesOnly(t *testing.T) *app.Surface {
	return federatedDemo(t, map[string]string{"orders": "files", "customers": "files", "regions": "files", "products": "files"},
		map[string]opener{"files": onFiles}, nil)
}

// differential runs the federated differential on a split against the
// files-only reference and checks that it meant something.
func differential(t *testing.T, fed, ref *app.Surface, seed uint64) {
	t.Helper()
	tally := conformance.FederatedDifferential(t, fed, ref, 500, seed)
	t.Logf("outcomes of 500 questions: %v, %d answers from several data systems; %d real cells, %d not byte-identical",
		tally.Outcomes, tally.Federated, tally.Reals, tally.InexactReals)
	require.Greater(t, tally.Outcomes["answer"], 300, "most random questions are answered")
	require.Greater(t, tally.Federated, 80, "enough answers combine several data systems")
}

// TestFederatedEngineSplits asks 500 random questions of the demo split
// across engines over the files (each split a different federation: the
// store tables remote, the facts remote, three and four sources) and of
// the demo on one engine, requiring identical outcomes; and runs the
// corpus on the split that keeps count_distinct local.
func TestFederatedEngineSplits(t *testing.T) {
	ref := filesOnly(t)
	for name, split := range map[string]map[string]string{
		"stores remote": storesRemote,
		"orders remote": ordersRemote,
		"three sources": {"orders": "files", "customers": "crm", "regions": "crm", "products": "shop"},
		"four sources":  {"orders": "files", "customers": "crm", "regions": "geo", "products": "shop"},
	} {
		t.Run(name, func(t *testing.T) {
			opens := map[string]opener{}
			for _, alias := range split {
				opens[alias] = onFiles
			}
			differential(t, federatedDemo(t, split, opens, nil), ref, 12)
		})
	}
	t.Run("corpus", func(t *testing.T) {
		conformance.Run(t, federatedDemo(t, productsRemote, map[string]opener{"files": onFiles, "remote": onFiles}, nil))
	})
}

// TestFederatedProvenanceAndCost: a federated answer lists each source
// read once, in leg order, each in its posture, and its cost sums its
// legs'.
func TestFederatedProvenanceAndCost(t *testing.T) {
	split := map[string]string{"orders": "files", "customers": "crm", "regions": "crm", "products": "shop"}
	s := federatedDemo(t, split, map[string]opener{"files": onFiles, "crm": onFiles, "shop": onFiles}, nil)
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
}

// TestFederatedCorpusOnFilesAndPostgres runs the conformance corpus on the
// demo split across the embedded engine and Postgres: every answer, cell
// for cell and in order, every refusal and failure as on one system.
func TestFederatedCorpusOnFilesAndPostgres(t *testing.T) {
	conformance.Run(t, federatedDemo(t, productsRemote, map[string]opener{"files": onFiles, "remote": onPostgres}, nil))
}

// TestFederatedDifferentialOnFilesAndPostgres asks 500 random questions of
// each split of the demo across files and Postgres and of the demo on one
// system, and requires identical outcomes.
func TestFederatedDifferentialOnFilesAndPostgres(t *testing.T) {
	ref := filesOnly(t)
	for name, split := range map[string]map[string]string{"stores remote": storesRemote, "orders remote": ordersRemote} {
		t.Run(name, func(t *testing.T) {
			differential(t, federatedDemo(t, split, map[string]opener{"files": onFiles, "remote": onPostgres}, nil), ref, 2026)
		})
	}
}

// TestFederatedCancellationOnPostgres asks a question whose two lookup
// legs run on Postgres over views that cannot finish, cancels it while
// they run, and requires the call to end and the slot to come back within
// a second, with no statement left active at the server.
func TestFederatedCancellationOnPostgres(t *testing.T) {
	url := pgtest.URL(t)
	var pgDB *pgtest.Database
	slow := func(t *testing.T, alias string, models []domain.Model) app.DataSystem {
		pgDB = pgtest.New(t)
		// Each view counts 10^10 rows before it returns its first.
		pgDB.Exec(t, `CREATE VIEW customers AS SELECT g::bigint AS customer_id, 1::bigint AS region_id, 'consumer'::text AS segment,
			DATE '2024-01-01' AS signup_date FROM generate_series(1, (SELECT count(*)::int / 100000000 FROM generate_series(1, 100000) a
			CROSS JOIN generate_series(1, 100000) b)) g;
			CREATE VIEW products AS SELECT g::bigint AS product_id, 'p'::text AS product_name, 'Garden'::text AS category,
			1::bigint AS unit_price_cents FROM generate_series(1, (SELECT count(*)::int / 100000000 FROM generate_series(1, 100000) a
			CROSS JOIN generate_series(1, 100000) b)) g`)
		db, err := postgres.New(context.Background(), pgDB.Config(alias, models))
		require.NoError(t, err)
		t.Cleanup(db.Close)
		return db
	}
	b, err := conformance.SplitDemoBundle(storesRemote)
	require.NoError(t, err)
	sources := map[string]app.Source{
		"files":  {System: onFiles(t, "files", conformance.DemoModelsOn(*b.Definitions(), "files")), Posture: domain.SharedServiceUser},
		"remote": {System: slow(t, "remote", conformance.DemoModelsOn(*b.Definitions(), "remote")), Posture: domain.SharedServiceUser},
	}
	comb, err := engine.NewCombiner(context.Background(), engine.CombinerConfig{})
	require.NoError(t, err)
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: 1, Timeout: time.Second})
	require.NoError(t, err)
	s, err := app.New(app.Config{Catalog: fixedCatalog{b}, Sources: sources, Admission: adm, Audit: discardAudit{},
		Combiner: comb, RequestTimeout: 5 * time.Minute})
	require.NoError(t, err)

	watch, err := pgx.Connect(context.Background(), url)
	require.NoError(t, err)
	defer watch.Close(context.Background())
	active := func() int {
		var n int
		require.NoError(t, watch.QueryRow(context.Background(),
			"SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND pid <> pg_backend_pid()", pgDB.Name).Scan(&n))
		return n
	}

	q, err := domain.ParseQuestion([]byte(`{"metrics":["net_sales"],"grain":"month","range":{"start":"2025-01-01","end":"2026-01-01"},"dimensions":["customer_segment","product_category"]}`))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := s.Answer(ctx, app.Caller{Principal: domain.LocalOperator}, q); done <- err }()
	require.Eventually(t, func() bool { return active() >= 2 }, 30*time.Second, 20*time.Millisecond, "both lookup legs run at the server")
	require.Equal(t, 1, adm.InUse(), "the question holds its one slot")
	time.Sleep(200 * time.Millisecond)
	cancelled := time.Now()
	cancel()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(time.Second):
		t.Fatal("the question did not end within a second of its cancellation")
	}
	require.Eventually(t, func() bool { return adm.InUse() == 0 }, time.Second, 10*time.Millisecond, "the slot is back within a second")
	require.Eventually(t, func() bool { return active() == 0 }, time.Second, 20*time.Millisecond, "no statement is left active at the server")
	t.Logf("slot back and server idle %v after the cancellation", time.Since(cancelled))
	assert.Zero(t, active())
}

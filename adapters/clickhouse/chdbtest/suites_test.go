package chdbtest_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/adapters/clickhouse"
	"sutura.dev/adapters/clickhouse/chdbtest"
	"sutura.dev/adapters/clickhouse/chtest"
	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
	"sutura.dev/examples/demo"
	engine "sutura.dev/exec-arrow"
	"sutura.dev/runtime"
	"sutura.dev/semantic"
)

var (
	_ app.DataSystem   = (*chdbtest.System)(nil)
	_ app.CostReporter = (*chdbtest.System)(nil)

	_ app.DataSystem        = (*clickhouse.DB)(nil)
	_ app.Validator         = (*clickhouse.DB)(nil)
	_ app.CostReporter      = (*clickhouse.DB)(nil)
	_ app.PrincipalExecutor = (*clickhouse.DB)(nil)
	_ app.SQLRunner         = (*clickhouse.DB)(nil)
)

// now is the clock the corpus was computed against.
func now() time.Time { return time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC) }

// demoBundle is the demo catalogue, pinned.
func demoBundle(t testing.TB) *domain.Bundle {
	t.Helper()
	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	return b
}

// surface is an app.Surface over the demo bundle and sys.
func surface(t testing.TB, b *domain.Bundle, sys app.DataSystem) *app.Surface {
	t.Helper()
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: 2, Timeout: time.Minute})
	require.NoError(t, err)
	s, err := app.New(app.Config{
		Catalog: apptest.Catalog{Pinned: b}, Admission: adm, Audit: &apptest.Audit{}, RequestTimeout: 5 * time.Minute,
		Sources: map[string]app.Source{demo.SourceAlias: {System: sys, Posture: domain.SharedServiceUser}},
		Now:     now,
	})
	require.NoError(t, err)
	return s
}

// files is a Surface over the embedded engine on the demo files: the
// reference every other data system is compared with.
func files(t testing.TB, b *domain.Bundle) *app.Surface {
	t.Helper()
	eng, err := engine.New(context.Background(), engine.Config{Source: demo.SourceAlias, Files: demo.Data(), Models: b.Definitions().Models})
	require.NoError(t, err)
	return surface(t, b, eng)
}

var (
	chdbOnce sync.Once
	chdbSys  *chdbtest.System
	chdbErr  error
	chdbDir  string // the engine's files, removed when the tests end
)

// TestMain removes the directory chDB's engine kept its files in, which
// outlives every test of the binary (the engine is process-wide).
func TestMain(m *testing.M) {
	code := m.Run()
	if chdbDir != "" {
		_ = os.RemoveAll(chdbDir)
	}
	os.Exit(code)
}

// onChDB is the demo loaded into chDB's engine, once per test binary (the
// engine is process-wide and read-only once loaded).
func onChDB(t *testing.T, b *domain.Bundle) *chdbtest.System {
	t.Helper()
	lib := chdbtest.Tier.Value(t)
	chdbOnce.Do(func() {
		dir, err := os.MkdirTemp("", "sutura-chdb")
		if err != nil {
			chdbErr = err
			return
		}
		chdbDir = dir
		e, err := chdbtest.Open(lib, dir)
		if err != nil {
			chdbErr = err
			return
		}
		chdbSys, chdbErr = chdbtest.NewSystem(e, demo.SourceAlias, "demo", demo.Data(), b.Definitions().Models)
	})
	require.NoError(t, chdbErr)
	return chdbSys
}

// TestConformanceOnChDB runs the data-system contract suite with the
// clickhouse dialect's statements on a current ClickHouse engine: the
// same rows and refusals as the corpus, cell for cell.
func TestConformanceOnChDB(t *testing.T) {
	b := demoBundle(t)
	sys := onChDB(t, b)
	s := surface(t, b, sys)
	require.NoError(t, app.CheckBundle(context.Background(), b, map[string]app.Source{demo.SourceAlias: {System: sys, Posture: domain.SharedServiceUser}}),
		"the demo's anchors reproduce on the engine")
	conformance.Run(t, s)
}

// TestChDBMatchesTheEngine asks 500 random valid questions of the demo
// catalogue with the clickhouse dialect on chDB and on the embedded engine
// and compares them answer for answer, cell for cell, refusal for refusal.
func TestChDBMatchesTheEngine(t *testing.T) {
	b := demoBundle(t)
	tally := conformance.Differential(t, surface(t, b, onChDB(t, b)), files(t, b), 500, 16)
	t.Logf("outcomes of 500 questions: %v; %d real cells, %d not byte-identical", tally.Outcomes, tally.Reals, tally.InexactReals)
	require.Greater(t, tally.Outcomes["answer"], 300, "most random questions are answered, so the comparison means something")
}

// onServer loads the demo into a database of its own on the server of
// SUTURA_CH_URL and returns the adapter over it.
func onServer(t *testing.T, b *domain.Bundle) (*clickhouse.DB, *clickhouse.Server) {
	t.Helper()
	models := b.Definitions().Models
	d := chtest.New(t)
	d.Load(t, demo.Data(), models)
	db, err := clickhouse.New(context.Background(), d.Config(demo.SourceAlias, models))
	require.NoError(t, err)
	t.Cleanup(db.Close)
	require.NoError(t, db.Validate(context.Background()))
	srv, err := db.Server(context.Background())
	require.NoError(t, err)
	return db, srv
}

// multiJoin reports whether a plan needs more than one join, which a
// server before 20.1 cannot run.
func multiJoin(p *domain.Plan) bool { return len(p.Legs[0].Joins) > 1 }

// TestConformanceOnServer runs the contract suite through the adapter on
// the real server, over the wire. On a server that cannot run a statement
// with two joins (before 20.1; Debian's 18.16), the cases that need one
// are NOT RUN, each by name: the adapter refuses them there as
// federation_not_executable (adapters/clickhouse tests that refusal).
func TestConformanceOnServer(t *testing.T) {
	b := demoBundle(t)
	db, srv := onServer(t, b)
	s := surface(t, b, db)
	notRun := 0
	conformance.RunSkipping(t, s, func(c conformance.Case) string {
		if srv.MultipleJoins() {
			return ""
		}
		q, err := domain.ParseQuestion(c.Question)
		if err != nil {
			return ""
		}
		p := domain.LocalOperator
		if c.Principal == "anonymous" {
			p = domain.Principal{Subject: "anonymous"}
		}
		plan, why := semantic.Compile(b, p, q, domain.DateFromTime(now()))
		if why != nil || !multiJoin(plan) {
			return ""
		}
		notRun++
		return "ClickHouse " + srv.Version + " cannot run a statement with more than one join (20.1 and later can)"
	})
	t.Logf("ClickHouse %s: %d cases not run", srv.Version, notRun)
	// Every anchor is its metric alone, without a join: they all run.
	require.NoError(t, app.CheckBundle(context.Background(), b, map[string]app.Source{demo.SourceAlias: {System: db, Posture: domain.SharedServiceUser}}))
}

// TestServerMatchesTheEngine is the differential over the wire: the
// adapter's cells, as the driver reads them, against the embedded
// engine's. Questions a server before 20.1 cannot run (two joins) are
// counted as not run.
func TestServerMatchesTheEngine(t *testing.T) {
	b := demoBundle(t)
	db, srv := onServer(t, b)
	var notRun func(domain.Question) bool
	if !srv.MultipleJoins() {
		notRun = func(q domain.Question) bool {
			plan, why := semantic.Compile(b, domain.LocalOperator, q, domain.DateFromTime(now()))
			return why == nil && multiJoin(plan)
		}
	}
	tally := conformance.DifferentialSkipping(t, surface(t, b, db), files(t, b), 500, 16, notRun)
	t.Logf("ClickHouse %s, outcomes of 500 questions: %v; %d real cells, %d not byte-identical",
		srv.Version, tally.Outcomes, tally.Reals, tally.InexactReals)
	require.Greater(t, tally.Outcomes["answer"], 150, "enough random questions are answered for the comparison to mean something")
}

// federated is a Surface over the demo split: the models split names
// (model → alias) "files" on the embedded engine, those it names "remote"
// on remote, with the engine's combine.
func federated(t testing.TB, split map[string]string, remote app.DataSystem) *app.Surface {
	t.Helper()
	b, err := conformance.SplitDemoBundle(split)
	require.NoError(t, err)
	eng, err := engine.New(context.Background(), engine.Config{Source: "files", Files: demo.Data(), Models: conformance.DemoModelsOn(*b.Definitions(), "files")})
	require.NoError(t, err)
	comb, err := engine.NewCombiner(context.Background(), engine.CombinerConfig{})
	require.NoError(t, err)
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: 2, Timeout: time.Minute})
	require.NoError(t, err)
	s, err := app.New(app.Config{
		Catalog: apptest.Catalog{Pinned: b}, Admission: adm, Audit: &apptest.Audit{}, RequestTimeout: 5 * time.Minute, Combiner: comb,
		Sources: map[string]app.Source{"files": {System: eng, Posture: domain.SharedServiceUser}, "remote": {System: remote, Posture: domain.SharedServiceUser}},
		Now:     now,
	})
	require.NoError(t, err)
	return s
}

// The splits of the federated suites: customers and products on
// ClickHouse (no lookup leg needs a join, so a server before 20.1 runs
// every leg), only products there (the corpus passes whole on it), and
// the orders there with every store table in files (ClickHouse runs the
// base leg of partials).
var (
	storesRemote   = map[string]string{"orders": "files", "regions": "files", "customers": "remote", "products": "remote"}
	productsRemote = map[string]string{"orders": "files", "regions": "files", "customers": "files", "products": "remote"}
	ordersRemote   = map[string]string{"orders": "remote", "regions": "files", "customers": "files", "products": "files"}
)

// federatedDifferentials asks 500 random questions of the demo split with
// the store tables on ClickHouse, and 500 of the demo split with the
// orders there, each against the embedded engine alone (identical
// outcomes, conformance.FederatedDifferential); remote gives the
// ClickHouse system holding a split's remote models.
func federatedDifferentials(t *testing.T, b *domain.Bundle, label string, remote func(split map[string]string) app.DataSystem) {
	for _, c := range []struct {
		name  string
		split map[string]string
		seed  uint64
	}{{"store tables on ClickHouse", storesRemote, 17}, {"orders on ClickHouse", ordersRemote, 18}} {
		tally := conformance.FederatedDifferential(t, federated(t, c.split, remote(c.split)), files(t, b), 500, c.seed)
		t.Logf("%s, %s: outcomes of 500 questions: %v, %d federated; %d real cells, %d not byte-identical",
			label, c.name, tally.Outcomes, tally.Federated, tally.Reals, tally.InexactReals)
		require.Greater(t, tally.Federated, 80, c.name)
		require.Greater(t, tally.Outcomes["answer"], 150, "%s: enough questions are answered for the comparison to mean something", c.name)
	}
}

// remoteModels are the demo models on "remote" in split.
func remoteModels(t testing.TB, split map[string]string) []domain.Model {
	b, err := conformance.SplitDemoBundle(split)
	require.NoError(t, err)
	return conformance.DemoModelsOn(*b.Definitions(), "remote")
}

// aliased runs the plans of source alias on sys, whose own alias is
// source: the demo loaded once in chDB's engine serves the remote models
// of every split (a session has one current database, so one system).
type aliased struct {
	sys    app.DataSystem
	source string
}

func (a aliased) Execute(ctx context.Context, plan *domain.Plan) (*domain.RowSet, error) {
	p := *plan
	p.Legs = append([]domain.Leg(nil), plan.Legs...)
	p.Legs[0].Source = a.source
	return a.sys.Execute(ctx, &p)
}

// TestFederatedOnChDB runs the corpus on the demo with products on
// ClickHouse, and 500 random questions on the demo with customers and
// products there and 500 with the orders there, against the embedded
// engine alone: the legs the clickhouse dialect writes (base partials,
// lookups) combine to the single-system answers.
func TestFederatedOnChDB(t *testing.T) {
	b := demoBundle(t)
	remote := aliased{sys: onChDB(t, b), source: demo.SourceAlias}
	conformance.RunLegs(t, onChDB(t, b), demo.SourceAlias)
	conformance.Run(t, federated(t, productsRemote, remote))
	federatedDifferentials(t, b, "chDB", func(map[string]string) app.DataSystem { return remote })
}

// TestFederatedOnServer is TestFederatedOnChDB over the wire, through the
// adapter, on the server of SUTURA_CH_URL.
func TestFederatedOnServer(t *testing.T) {
	b := demoBundle(t)
	open := func(split map[string]string) *clickhouse.DB {
		models := remoteModels(t, split)
		d := chtest.New(t)
		d.Load(t, demo.Data(), models)
		db, err := clickhouse.New(context.Background(), d.Config("remote", models))
		require.NoError(t, err)
		t.Cleanup(db.Close)
		return db
	}
	db, _ := onServer(t, b)
	conformance.RunLegs(t, db, demo.SourceAlias)
	conformance.Run(t, federated(t, productsRemote, open(productsRemote)))
	federatedDifferentials(t, b, "server", func(split map[string]string) app.DataSystem { return open(split) })
}

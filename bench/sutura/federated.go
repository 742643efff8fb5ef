package sutura

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/adapters/postgres"
	"sutura.dev/bench/engine"
	"sutura.dev/domain"
	"sutura.dev/examples/demo"
	arrowengine "sutura.dev/exec-arrow"
	"sutura.dev/semantic"
)

// FederatedEngine answers benchmark cases as a federated deployment of
// the demo: orders in files read by sutura's engine, the store tables
// (customers, regions, products) in Postgres through sutura's adapter. A
// question through a dimension of the store tables runs its base leg on
// the files and its lookup legs on Postgres at once, and the engine's
// combine joins them (docs/contract.md §11), as the application does; Phases
// tells the legs' time from the combine's.
type FederatedEngine struct {
	name     string
	dir      string
	bundle   *domain.Bundle
	eng      *arrowengine.Engine
	db       *postgres.DB
	phases   map[string]time.Duration
	phasesMu sync.Mutex
	// maxLegRows is governance.max_leg_rows.
	maxLegRows int
}

// The split of the federated engine.
const (
	filesAlias  = "files"
	storesAlias = "stores"
)

// NewFederatedEngine loads the store tables of csvDir into a database of
// the server at pgURL (created once per data set and kept) and returns the
// engine over the orders of parquetDir and those tables, each leg bounded
// by maxLegRows (governance.max_leg_rows).
func NewFederatedEngine(ctx context.Context, name, parquetDir, csvDir, pgURL string, maxLegRows int) (*FederatedEngine, error) {
	demoBundle, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	if err != nil {
		return nil, err
	}
	defs := *demoBundle.Definitions()
	defs.Models = append([]domain.Model(nil), defs.Models...)
	var orders, stores []domain.Model
	for i := range defs.Models {
		defs.Models[i].Source = storesAlias
		if defs.Models[i].Name == "orders" {
			defs.Models[i].Source = filesAlias
			orders = append(orders, defs.Models[i])
			continue
		}
		stores = append(stores, defs.Models[i])
	}
	b, err := domain.NewBundle(demo.Version+"-federated", defs, *demoBundle.Knowledge())
	if err != nil {
		return nil, err
	}
	cfg, err := loadOnce(pgURL, "sutura_benchfed_", csvDir, stores)
	if err != nil {
		return nil, err
	}
	cfg.Source, cfg.MaxConns = storesAlias, 4
	db, err := postgres.New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	e := &FederatedEngine{name: name, dir: parquetDir, bundle: b, db: db, maxLegRows: maxLegRows}
	if e.eng, err = e.open(ctx, orders, false); err != nil {
		db.Close()
		return nil, err
	}
	return e, nil
}

func (e *FederatedEngine) open(ctx context.Context, models []domain.Model, fill bool) (*arrowengine.Engine, error) {
	return arrowengine.New(ctx, arrowengine.Config{Source: filesAlias, Files: os.DirFS(e.dir), Models: models, NoCacheFill: !fill})
}

// Name labels the engine in reports.
func (e *FederatedEngine) Name() string { return e.name }

// Run answers one case: compiled against the split catalogue, its legs
// run at once (the base leg on the files, each lookup leg on Postgres),
// then combined.
func (e *FederatedEngine) Run(ctx context.Context, c engine.Case) (engine.Result, error) {
	plan, err := compileCase(e.bundle, c)
	if err != nil {
		return engine.Result{}, err
	}
	systems := map[string]interface {
		Execute(context.Context, *domain.Plan) (*domain.RowSet, error)
	}{filesAlias: e.eng, storesAlias: e.db}
	start := time.Now()
	if !plan.Federated() {
		rs, err := systems[plan.Legs[0].Source].Execute(ctx, plan)
		if err != nil {
			return engine.Result{}, err
		}
		e.setPhases(map[string]time.Duration{"legs": time.Since(start)})
		return result(rs), nil
	}
	legs := make([]*domain.RowSet, len(plan.Legs))
	errs := make([]error, len(plan.Legs))
	var wg sync.WaitGroup
	for i := range plan.Legs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			legs[i], errs[i] = systems[plan.Legs[i].Source].Execute(ctx, plan.LegPlan(i, e.maxLegRows))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return engine.Result{}, err
		}
	}
	legsDone := time.Now()
	rs, err := e.eng.Combiner().Combine(ctx, plan, legs)
	if err != nil {
		return engine.Result{}, err
	}
	e.setPhases(map[string]time.Duration{"legs": legsDone.Sub(start), "combine": time.Since(legsDone)})
	return result(rs), nil
}

func (e *FederatedEngine) setPhases(p map[string]time.Duration) {
	e.phasesMu.Lock()
	e.phases = p
	e.phasesMu.Unlock()
}

// Phases returns the last Run's time in its legs (all of them, at once,
// from the start of the first to the end of the last) and in the
// combine.
func (e *FederatedEngine) Phases() map[string]time.Duration {
	e.phasesMu.Lock()
	defer e.phasesMu.Unlock()
	return e.phases
}

// Warm switches to an engine that fills its cache, asks c once and waits
// for the fill, so the next answers read the orders from the cache.
func (e *FederatedEngine) Warm(ctx context.Context, c engine.Case) error {
	var orders []domain.Model
	for _, m := range e.bundle.Definitions().Models {
		if m.Source == filesAlias {
			orders = append(orders, m)
		}
	}
	eng, err := e.open(ctx, orders, true)
	if err != nil {
		return err
	}
	e.eng = eng
	if _, err := e.Run(ctx, c); err != nil {
		return err
	}
	return eng.Settle(ctx)
}

// Footprint is the bytes the files engine holds after Warm.
func (e *FederatedEngine) Footprint() int64 {
	used, _ := e.eng.WorkingSet()
	return used
}

// Close closes the Postgres pool.
func (e *FederatedEngine) Close() error { e.db.Close(); return nil }

// compileCase parses and compiles a case's wire question against b.
func compileCase(b *domain.Bundle, c engine.Case) (*domain.Plan, error) {
	wire, err := jsonMarshal(c.Question)
	if err != nil {
		return nil, err
	}
	q, err := domain.ParseQuestion(wire)
	if err != nil {
		return nil, err
	}
	plan, reason := semantic.Compile(b, domain.LocalOperator, q, domain.DateOf(2026, 7, 1))
	if reason != nil {
		return nil, fmt.Errorf("refused (%s): %s", reason.Code(), reason.Detail())
	}
	return plan, nil
}

package sutura

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/app"
	"sutura.dev/bench/engine"
	"sutura.dev/cli/compose"
	"sutura.dev/domain"
	"sutura.dev/examples/demo"
	arrowengine "sutura.dev/exec-arrow"
)

// FederatedEngine answers benchmark cases as a federated deployment of
// the demo: orders in files read by sutura's engine, the store tables
// (customers, regions, products) in Postgres. It is the product itself —
// a configuration directory opened by the composition root (cli/compose),
// each question asked of app.Surface — so a question through a dimension
// of the store tables runs the product's own federation path
// (docs/contract.md §11): its legs at once under one admission slot and
// one deadline, each bounded by governance.max_leg_rows, then the engine's
// combine.
type FederatedEngine struct {
	name string
	dir  string // the configuration directory, removed by Close
	// proc is the product as `sutura serve` builds it: its first answer
	// streams the files and starts the cache fill, as a served process's
	// first answer does.
	proc *compose.Process
}

// The split of the federated engine.
const (
	filesAlias  = "files"
	storesAlias = "stores"
)

// NewFederatedEngine loads the store tables of csvDir into a database of
// the server at pgURL (created once per data set and kept), writes a
// configuration directory that serves the demo catalogue split between
// the orders of parquetDir and those tables, each leg bounded by
// maxLegRows (governance.max_leg_rows; 0 for the default), and opens it.
func NewFederatedEngine(ctx context.Context, name, parquetDir, csvDir, pgURL string, maxLegRows int) (*FederatedEngine, error) {
	demoBundle, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	if err != nil {
		return nil, err
	}
	defs := *demoBundle.Definitions()
	defs.Models = append([]domain.Model(nil), defs.Models...)
	defs.Metrics = append([]domain.Metric(nil), defs.Metrics...)
	var stores []domain.Model
	for i := range defs.Models {
		defs.Models[i].Source = storesAlias
		if defs.Models[i].Name == "orders" {
			defs.Models[i].Source = filesAlias
			continue
		}
		stores = append(stores, defs.Models[i])
	}
	// The demo's anchors are results over its own small data set, not over
	// a generated one of another size; the examples are not benchmarked.
	for i := range defs.Metrics {
		defs.Metrics[i].Anchor = nil
	}
	knowledge := *demoBundle.Knowledge()
	knowledge.Examples = nil
	files, err := mdcatalog.Documents(defs, knowledge)
	if err != nil {
		return nil, err
	}
	pg, err := loadOnce(pgURL, "sutura_benchfed_", csvDir, stores)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "sutura-bench-federated-")
	if err != nil {
		return nil, err
	}
	e := &FederatedEngine{name: name, dir: dir}
	if err := mdcatalog.WriteFiles(filepath.Join(dir, "catalog"), files); err != nil {
		e.Close()
		return nil, err
	}
	if err := writeFederatedConfig(dir, parquetDir, pg, maxLegRows); err != nil {
		e.Close()
		return nil, err
	}
	if e.proc, err = compose.Open(ctx, map[string]string{"SUTURA_CONFIG_DIR": dir}, io.Discard, compose.Options{}); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// writeFederatedConfig writes base.yaml (and the password file) of the
// federated deployment into dir.
func writeFederatedConfig(dir, parquetDir string, pg pgLogin, maxLegRows int) error {
	if err := os.WriteFile(filepath.Join(dir, "pg-password"), []byte(pg.password), 0o600); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "catalogs:\n  - {name: bench, kind: markdown, dir: catalog, version: %s-federated}\n", demo.Version)
	b.WriteString("security:\n  identity: single-user\n  single_user_because: the benchmark harness asks every question itself\n")
	b.WriteString("sources:\n")
	fmt.Fprintf(&b, "  %s:\n    kind: files\n    posture: shared-service-user\n    data_dir: %s\n", filesAlias, strconv.Quote(parquetDir))
	fmt.Fprintf(&b, "  %s:\n    kind: postgres\n    posture: shared-service-user\n    host: %s\n    port: %d\n    database: %s\n    user: %s\n    password_file: pg-password\n    transport_mode: plaintext\n",
		storesAlias, strconv.Quote(pg.host), pg.port, pg.database, strconv.Quote(pg.user))
	if maxLegRows > 0 {
		fmt.Fprintf(&b, "governance:\n  max_leg_rows: %d\n", maxLegRows)
	}
	return os.WriteFile(filepath.Join(dir, "base.yaml"), []byte(b.String()), 0o600)
}

// Name labels the engine in reports.
func (e *FederatedEngine) Name() string { return e.name }

// Run answers one case as a caller's question: parsed, compiled, planned,
// its legs run and combined by app.Surface.
func (e *FederatedEngine) Run(ctx context.Context, c engine.Case) (engine.Result, error) {
	wire, err := jsonMarshal(c.Question)
	if err != nil {
		return engine.Result{}, err
	}
	q, err := domain.ParseQuestion(wire)
	if err != nil {
		return engine.Result{}, err
	}
	out, err := e.proc.Surface.Answer(ctx, app.Caller{Principal: domain.LocalOperator}, q)
	switch {
	case err != nil:
		return engine.Result{}, err
	case out.Refusal != nil:
		return engine.Result{}, fmt.Errorf("refused (%s): %s", out.Refusal.Code(), out.Refusal.Detail())
	}
	return result(&out.Answer.RowSet), nil
}

// files is the process's files source.
func (e *FederatedEngine) files() *arrowengine.Engine {
	return e.proc.Sources[filesAlias].System.(*arrowengine.Engine)
}

// Warm asks c once and waits for the cache fill it starts, so the next
// answers read the orders from the cache.
func (e *FederatedEngine) Warm(ctx context.Context, c engine.Case) error {
	if _, err := e.Run(ctx, c); err != nil {
		return err
	}
	return e.files().Settle(ctx)
}

// Footprint is the bytes the files engine holds after Warm.
func (e *FederatedEngine) Footprint() int64 {
	used, _ := e.files().WorkingSet()
	return used
}

// Close closes the process and removes its configuration directory.
func (e *FederatedEngine) Close() error {
	if e.proc != nil {
		e.proc.Close()
	}
	return os.RemoveAll(e.dir)
}

// pgLogin is where loadOnce loaded the tables, and as whom to connect.
type pgLogin struct {
	host, database, user, password string
	port                           int
}

// loginOf is the login of the server at u for database.
func loginOf(u *url.URL, database string) pgLogin {
	port, _ := strconv.Atoi(u.Port())
	pass, _ := u.User.Password()
	return pgLogin{host: u.Hostname(), port: port, database: database, user: u.User.Username(), password: pass}
}

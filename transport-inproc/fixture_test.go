package inproc

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/domain"
	"sutura.dev/runtime"
)

// canary is a value planted in arguments; it must never come back.
const canary = "ZZ-canary-5b1e"

// testBundle is a small catalogue built by hand: one model, an open metric
// with a filterable and a group-by-only dimension, a restricted metric.
func testBundle(t testing.TB, version string) *domain.Bundle {
	t.Helper()
	defs := domain.Definitions{
		Models: []domain.Model{{Name: "sales", Source: "files", Table: "sales", Columns: []domain.ModelColumn{
			{Name: "sold_on", Type: domain.TypeDate}, {Name: "amount", Type: domain.TypeInteger},
			{Name: "city", Type: domain.TypeText}, {Name: "note", Type: domain.TypeText}}}},
		Metrics: []domain.Metric{{
			Name: "revenue", Model: "sales", TimeColumn: "sold_on", Grains: []domain.Grain{domain.Day, domain.Month, domain.Year},
			Description: "Revenue in euros.",
			Measure:     &domain.Measure{Simple: &domain.Term{Aggregate: domain.Sum, Column: "amount"}},
			Dimensions: []domain.Dimension{
				{Name: "city", Column: "city", Filterable: true, Values: []string{"Lyon", "Paris"}},
				{Name: "note", Column: "note"},
			},
		}, {
			Name: "secret_revenue", Model: "sales", TimeColumn: "sold_on", Grains: []domain.Grain{domain.Month},
			Measure:  &domain.Measure{Simple: &domain.Term{Aggregate: domain.Sum, Column: "amount"}},
			Audience: domain.Audience{Restricted: []string{"finance"}},
		}},
	}
	k := domain.Knowledge{Glossary: []domain.Glossary{{Term: "turnover", Means: domain.Meaning{Metric: "revenue"}}}}
	b, err := domain.NewBundle(version, defs, k)
	require.NoError(t, err)
	return b
}

// fakeSystem is a data system written by hand. It answers with n rows
// shaped to the plan's columns (2 when n is 0), fails with err, or blocks
// until its context ends.
type fakeSystem struct {
	n       int
	err     error
	block   bool
	started chan struct{} // one send per execution, when not full

	mu    sync.Mutex
	ended []error // the context's error when each blocked execution ended
}

func newFake() *fakeSystem { return &fakeSystem{started: make(chan struct{}, 64)} }

func (f *fakeSystem) Execute(ctx context.Context, plan *domain.Plan) (*domain.RowSet, error) {
	select {
	case f.started <- struct{}{}:
	default:
	}
	if f.block {
		<-ctx.Done()
		f.mu.Lock()
		f.ended = append(f.ended, ctx.Err())
		f.mu.Unlock()
		return nil, ctx.Err()
	}
	if f.err != nil {
		return nil, f.err
	}
	n := f.n
	if n == 0 {
		n = 2
	}
	rows := make([][]domain.Cell, n)
	for i := range rows {
		row := make([]domain.Cell, len(plan.Columns))
		for j, c := range plan.Columns {
			switch c.Role {
			case domain.RoleDimension:
				row[j] = domain.Text(fmt.Sprintf("%s-%05d", c.Name, i))
			case domain.RolePeriod:
				row[j] = domain.DateCell(plan.Range.Start)
			default:
				if i%7 == 3 {
					row[j] = domain.Null()
				} else {
					row[j] = domain.Int(int64(i * 10))
				}
			}
		}
		rows[i] = row
	}
	return &domain.RowSet{Columns: plan.Columns, Rows: rows}, nil
}

func (f *fakeSystem) endedWith() []error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]error(nil), f.ended...)
}

// meteredSystem is a fakeSystem that measures its work (app.CostReporter):
// it reports scanning 4 rows per row returned and 64 bytes per row scanned.
type meteredSystem struct{ *fakeSystem }

func (m meteredSystem) ExecuteWithCost(ctx context.Context, plan *domain.Plan) (*domain.RowSet, domain.Cost, error) {
	rows, err := m.Execute(ctx, plan)
	if err != nil {
		return nil, domain.Cost{RowsScanned: 1, BytesRead: 64}, err
	}
	scanned := int64(4 * len(rows.Rows))
	return rows, domain.Cost{RowsScanned: scanned, BytesRead: 64 * scanned}, nil
}

type memAudit struct {
	mu   sync.Mutex
	recs []domain.AuditRecord
}

func (m *memAudit) Write(_ context.Context, r domain.AuditRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs = append(m.recs, r)
	return nil
}

func (m *memAudit) records() []domain.AuditRecord {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]domain.AuditRecord(nil), m.recs...)
}

// envConfig shapes one test's process.
type envConfig struct {
	max              int
	admissionTimeout time.Duration
	requestTimeout   time.Duration
	catalog          app.Catalog
	conn             Config
}

type env struct {
	adm     *runtime.Admission
	audit   *memAudit
	surface *app.Surface
	conn    *Connection
}

// newEnv builds a process around sys the way the composition root does:
// one admission bound, handed to the surface and to the connection.
func newEnv(t testing.TB, sys app.DataSystem, cfg envConfig) *env {
	t.Helper()
	if cfg.max == 0 {
		cfg.max = 4
	}
	if cfg.admissionTimeout == 0 {
		cfg.admissionTimeout = time.Second
	}
	if cfg.requestTimeout == 0 {
		cfg.requestTimeout = 30 * time.Second
	}
	if cfg.catalog == nil {
		cat, err := app.NewSwappableCatalog(testBundle(t, "v1"))
		require.NoError(t, err)
		cfg.catalog = cat
	}
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: cfg.max, Timeout: cfg.admissionTimeout})
	require.NoError(t, err)
	audit := &memAudit{}
	surface, err := app.New(app.Config{Catalog: cfg.catalog, Sources: map[string]app.Source{"files": {System: sys, Posture: domain.SharedServiceUser}},
		Admission: adm, Audit: audit, RequestTimeout: cfg.requestTimeout})
	require.NoError(t, err)
	cc := cfg.conn
	cc.Surface, cc.Admission = surface, adm
	conn, err := New(cc)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return &env{adm: adm, audit: audit, surface: surface, conn: conn}
}

// The questions the tests send.
const (
	qAnswer  = `{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"},"dimensions":["city"]}`
	qRefusal = `{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"},"filters":[{"op":"eq","dimension":"city","value":"` + canary + `"}]}`
	qSlow    = `{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"}}`
)

// eventually waits up to a second for cond.
func eventually(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	require.Eventually(t, cond, time.Second, 5*time.Millisecond, msg)
}

package inproc

import (
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
	"sutura.dev/runtime"
)

// canary is a value planted in arguments; it must never come back.
const canary = "ZZ-canary-5b1e"

// newFake is a data system that answers every plan with 2 rows shaped to
// its columns (set Generate for more).
func newFake() *apptest.System { return &apptest.System{Generate: 2} }

// metered makes sys measure its work (app.CostReporter): 4 rows scanned
// per row returned and 64 bytes per row scanned, or 1 row and 64 bytes
// when it fails or refuses.
func metered(sys *apptest.System) apptest.Metered {
	return apptest.Metered{System: sys, Cost: func(rows *domain.RowSet, err error) domain.Cost {
		if err != nil {
			return domain.Cost{RowsScanned: 1, BytesRead: 64}
		}
		scanned := int64(4 * len(rows.Rows))
		return domain.Cost{RowsScanned: scanned, BytesRead: 64 * scanned}
	}}
}

// envConfig shapes one test's process.
type envConfig struct {
	max              int
	admissionTimeout time.Duration
	requestTimeout   time.Duration
	catalog          app.Catalog
	tools            []app.Tool
	logger           *slog.Logger
	conn             Config
	spend            app.Spend
}

type env struct {
	adm     *runtime.Admission
	audit   *apptest.Audit
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
		cat, err := app.NewSwappableCatalog(apptest.Bundle(t, "v1"))
		require.NoError(t, err)
		cfg.catalog = cat
	}
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: cfg.max, Timeout: cfg.admissionTimeout})
	require.NoError(t, err)
	audit := &apptest.Audit{}
	if cfg.tools == nil {
		cfg.tools = cfg.conn.Tools
	}
	surface, err := app.New(app.Config{Catalog: cfg.catalog, Sources: apptest.Sources(sys),
		Admission: adm, Audit: audit, RequestTimeout: cfg.requestTimeout, Tools: cfg.tools, Logger: cfg.logger, Spend: cfg.spend})
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

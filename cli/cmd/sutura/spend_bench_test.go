//go:build cgo

package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/adapters/clickhouse"
	"sutura.dev/adapters/clickhouse/chtest"
	"sutura.dev/adapters/duckdb"
	"sutura.dev/adapters/duckdb/ducktest"
	"sutura.dev/adapters/postgres"
	"sutura.dev/adapters/postgres/pgtest"
	"sutura.dev/app"
	"sutura.dev/app/budget"
	"sutura.dev/domain"
	"sutura.dev/examples/demo"
	engine "sutura.dev/exec-arrow"
	"sutura.dev/runtime"
)

// The abilities of docs/contract.md §15 each data system has.
var (
	_ app.Estimator = (*engine.Engine)(nil)
	_ app.Estimator = (*duckdb.DB)(nil)
	_ app.Estimator = (*postgres.DB)(nil)
	_ app.Estimator = (*clickhouse.DB)(nil)
	_ budget.Ledger = (*postgres.Ledger)(nil)
	_ budget.Pinger = (*postgres.Ledger)(nil)
)

// unestimated hides a data system's Estimator, keeping its cost reporting.
type unestimated struct{ app.DataSystem }

type unestimatedCost struct {
	app.DataSystem
	app.CostReporter
}

func withoutEstimate(sys app.DataSystem) app.DataSystem {
	if c, ok := sys.(app.CostReporter); ok {
		return unestimatedCost{sys, c}
	}
	return unestimated{sys}
}

// percentile is the p-th percentile of ds, which it sorts.
func percentile(ds []time.Duration, p float64) time.Duration {
	slices.Sort(ds)
	return ds[min(int(float64(len(ds))*p), len(ds)-1)]
}

// BenchmarkEstimationOverhead asks the demo's 2025 net sales by channel
// (docs/contract.md §15) through the surface on each data system, with
// its estimate and with the estimate hidden, and reports the p50 of each:
//
//	go test -run '^$' -bench EstimationOverhead -benchtime 300x ./cli/cmd/sutura
//
// Postgres and ClickHouse run where SUTURA_PG_URL and SUTURA_CH_URL are set.
func BenchmarkEstimationOverhead(b *testing.B) {
	bundle, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(b, err)
	models := bundle.Definitions().Models
	q, err := domain.ParseQuestion([]byte(`{"metrics":["net_sales"],"grain":"month","range":{"start":"2025-01-01","end":"2026-01-01"},"dimensions":["channel"]}`))
	require.NoError(b, err)
	systems := []struct {
		name string
		open func(b *testing.B) app.DataSystem
	}{
		{"files", func(b *testing.B) app.DataSystem {
			eng, err := engine.New(context.Background(), engine.Config{Source: demo.SourceAlias, Files: demo.Data(), Models: models})
			require.NoError(b, err)
			return eng
		}},
		{"duckdb", func(b *testing.B) app.DataSystem {
			db, err := duckdb.New(context.Background(), ducktest.Config(demo.SourceAlias, ducktest.Build(b, demo.Data(), models), models))
			require.NoError(b, err)
			b.Cleanup(db.Close)
			return db
		}},
		{"postgres", func(b *testing.B) app.DataSystem {
			d := pgtest.New(b)
			d.Load(b, demo.Data(), models)
			db, err := postgres.New(context.Background(), d.Config(demo.SourceAlias, models))
			require.NoError(b, err)
			b.Cleanup(db.Close)
			return db
		}},
		{"clickhouse", func(b *testing.B) app.DataSystem {
			d := chtest.New(b)
			d.Load(b, demo.Data(), models)
			return sqltestOpenClickHouse(b, d.Config(demo.SourceAlias, models))
		}},
	}
	for _, sys := range systems {
		b.Run(sys.name, func(b *testing.B) {
			raw := sys.open(b)
			with, without := benchSurface(b, bundle, raw), benchSurface(b, bundle, withoutEstimate(raw))
			ask := func(s *app.Surface) time.Duration {
				start := time.Now()
				out, err := s.Answer(context.Background(), app.Caller{Principal: domain.LocalOperator}, q)
				require.NoError(b, err)
				require.NotNil(b, out.Answer)
				return time.Since(start)
			}
			for range 10 {
				ask(with) // warm: the pool's connections, the engine's columns, the footers
				ask(without)
			}
			// Interleaved, so that the load of a shared machine falls on both.
			var dw, dn []time.Duration
			b.ResetTimer()
			for b.Loop() {
				dw = append(dw, ask(with))
				dn = append(dn, ask(without))
			}
			pw, pn := percentile(dw, 0.5), percentile(dn, 0.5)
			b.ReportMetric(float64(pw.Microseconds())/1000, "p50-ms-estimate")
			b.ReportMetric(float64(pn.Microseconds())/1000, "p50-ms-none")
			b.ReportMetric(100*float64(pw-pn)/float64(pn), "overhead-%")
		})
	}
}

func sqltestOpenClickHouse(b *testing.B, cfg clickhouse.Config) app.DataSystem {
	db, err := clickhouse.New(context.Background(), cfg)
	require.NoError(b, err)
	b.Cleanup(db.Close)
	return db
}

// benchSurface is a surface over bundle with sys as its one source, the
// default scan ceiling and no budget.
func benchSurface(b *testing.B, bundle *domain.Bundle, sys app.DataSystem) *app.Surface {
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: 8, Timeout: time.Minute})
	require.NoError(b, err)
	s, err := app.New(app.Config{Catalog: fixedCatalog{bundle}, Admission: adm, Audit: discardAudit{}, RequestTimeout: time.Minute,
		Sources: map[string]app.Source{demo.SourceAlias: {System: sys, Posture: domain.SharedServiceUser}},
		Now:     func() time.Time { return time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC) }})
	require.NoError(b, err)
	return s
}

// BenchmarkLedgerPostgres is the budget's cost per question on a
// PostgreSQL ledger (docs/contract.md §15): the check before execution
// (Meter.Admit: one SELECT) and the debit after the answer (one upsert),
// alone, and under 64 concurrent callers on a pool of 8 connections, for
// one caller (every debit on one row) and for 64 callers (a row each):
//
//	go test -run '^$' -bench LedgerPostgres -benchtime 6400x ./cli/cmd/sutura
func BenchmarkLedgerPostgres(b *testing.B) {
	d := pgtest.New(b)
	cfg := d.Config("ledger", nil)
	cfg.MaxConns = 8
	ledger, err := postgres.NewLedger(context.Background(), cfg)
	require.NoError(b, err)
	b.Cleanup(ledger.Close)
	limits := budget.Limits{Window: time.Hour, MaxBytes: 1 << 60, MaxQuestions: 1 << 40}
	m, err := budget.NewMeter(budget.Policy{Default: &limits}, ledger)
	require.NoError(b, err)
	for _, shape := range []struct {
		name              string
		subjects, workers int
	}{{"serial", 1, 1}, {"one-caller", 1, 64}, {"64-callers", 64, 64}} {
		b.Run(shape.name, func(b *testing.B) {
			workers := shape.workers
			var (
				mu sync.Mutex
				ds []time.Duration
				wg sync.WaitGroup
			)
			per := max(b.N/workers, 1)
			b.ResetTimer()
			for w := range workers {
				wg.Go(func() {
					p := domain.Principal{Subject: fmt.Sprintf("bench-%s-%d", shape.name, w%shape.subjects)}
					local := make([]time.Duration, 0, per)
					for range per {
						start := time.Now()
						why, err := m.Admit(context.Background(), p, 1000, time.Now())
						if err == nil && why == nil {
							err = m.Debit(context.Background(), p, 1000, time.Now())
						}
						if err != nil {
							b.Error(err)
							return
						}
						local = append(local, time.Since(start))
					}
					mu.Lock()
					ds = append(ds, local...)
					mu.Unlock()
				})
			}
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(percentile(ds, 0.5).Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(percentile(ds, 0.99).Microseconds())/1000, "p99-ms")
		})
	}
}

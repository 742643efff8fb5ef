package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/app"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
	"sutura.dev/examples/demo"
	engine "sutura.dev/exec-arrow"
	"sutura.dev/runtime"
)

var (
	_ app.DataSystem   = (*engine.Engine)(nil)
	_ app.CostReporter = (*engine.Engine)(nil)
)

type fixedCatalog struct{ b *domain.Bundle }

func (c fixedCatalog) Bundle() *domain.Bundle { return c.b }

type discardAudit struct{}

func (discardAudit) Write(context.Context, domain.AuditRecord) error { return nil }

// demoSurface is a surface over the demo bundle b with sys as its one
// source, as the local operator sees it on 2026-07-01, with an admission
// bound of its own.
func demoSurface(t *testing.T, b *domain.Bundle, sys app.DataSystem) *app.Surface {
	t.Helper()
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: 2, Timeout: time.Minute})
	require.NoError(t, err)
	s, err := app.New(app.Config{
		Catalog: fixedCatalog{b}, Admission: adm, Audit: discardAudit{}, RequestTimeout: 5 * time.Minute,
		Sources: map[string]app.Source{demo.SourceAlias: {System: sys, Posture: domain.SharedServiceUser}},
		Now:     func() time.Time { return time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC) },
	})
	require.NoError(t, err)
	return s
}

// TestEngineConformance runs the data-system contract suite against the
// embedded engine on the demo: every answer, cell and refusal must match
// the corpus DuckDB computed from the same files.
func TestEngineConformance(t *testing.T) {
	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	eng, err := engine.New(context.Background(), engine.Config{Source: demo.SourceAlias, Files: demo.Data(), Models: b.Definitions().Models})
	require.NoError(t, err)
	conformance.Run(t, demoSurface(t, b, eng))
}

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

// demoAgainstTheEngine loads the demo catalogue, opens a data system over
// its models with open, checks it as start-up does (its tables, and every
// anchor reproduces on it), and returns a surface over it and one over the
// embedded engine reading the demo files.
func demoAgainstTheEngine(t *testing.T, open func(models []domain.Model) app.DataSystem) (sut, files *app.Surface) {
	t.Helper()
	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	models := b.Definitions().Models
	sys := open(models)
	eng, err := engine.New(context.Background(), engine.Config{Source: demo.SourceAlias, Files: demo.Data(), Models: models})
	require.NoError(t, err)
	require.NoError(t, app.CheckBundle(context.Background(), b, map[string]app.Source{demo.SourceAlias: {System: sys, Posture: domain.SharedServiceUser}}),
		"the demo's tables validate and its anchors reproduce")
	return demoSurface(t, b, sys), demoSurface(t, b, eng)
}

// askAndCancel asks the 2025 net sales of the demo through a surface over
// sys with an admission bound of one, waits until running reports that
// the statement runs at the source, cancels the question, and checks that
// the call ends with the cancellation and the slot is back, each within a
// second. It returns the time from the cancellation to the free slot.
func askAndCancel(t *testing.T, sys app.DataSystem, running func() bool) time.Duration {
	t.Helper()
	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: 1, Timeout: time.Second})
	require.NoError(t, err)
	s, err := app.New(app.Config{Catalog: fixedCatalog{b}, Admission: adm, Audit: discardAudit{}, RequestTimeout: time.Minute,
		Sources: map[string]app.Source{demo.SourceAlias: {System: sys, Posture: domain.SharedServiceUser}}})
	require.NoError(t, err)
	q, err := domain.ParseQuestion([]byte(year2025))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := s.Answer(ctx, app.Caller{Principal: domain.LocalOperator}, q); done <- err }()
	require.Eventually(t, running, 10*time.Second, 20*time.Millisecond, "the slow statement runs at the source")
	require.Equal(t, 1, adm.InUse())
	cancelled := time.Now()
	cancel()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(time.Second):
		t.Fatal("the question did not end within a second of its cancellation")
	}
	require.Eventually(t, func() bool { return adm.InUse() == 0 }, time.Second, 10*time.Millisecond, "the slot is back within a second")
	return time.Since(cancelled)
}

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

package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
	"sutura.dev/runtime"
)

// asWho records the principal each plan ran as.
type asWho struct {
	apptest.System
	ranAs []string
}

func (a *asWho) ExecuteAs(ctx context.Context, p domain.Principal, plan *domain.Plan) (*domain.RowSet, error) {
	a.ranAs = append(a.ranAs, p.Subject)
	return a.Execute(ctx, plan)
}

func TestImpersonatingSourcesRunAsTheCaller(t *testing.T) {
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: 1, Timeout: time.Second})
	require.NoError(t, err)
	sources := func(sys app.DataSystem) map[string]app.Source {
		src := apptest.Sources(sys)
		for k, v := range src {
			v.Posture = domain.ImpersonationAtSource
			src[k] = v
		}
		return src
	}
	_, err = app.New(app.Config{Catalog: apptest.Catalog{Pinned: apptest.Bundle(t, "v1")}, Sources: sources(&apptest.System{}),
		Admission: adm, Audit: &apptest.Audit{}})
	require.Error(t, err, "an impersonating source needs a data system that can run as the caller")

	sys := &asWho{}
	s, err := app.New(app.Config{Catalog: apptest.Catalog{Pinned: apptest.Bundle(t, "v1")}, Sources: sources(sys),
		Admission: adm, Audit: &apptest.Audit{}})
	require.NoError(t, err)
	q, err := domain.ParseQuestion([]byte(`{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"}}`))
	require.NoError(t, err)
	out, err := s.Answer(context.Background(), app.Caller{Principal: domain.Principal{Subject: "alice"}}, q)
	require.NoError(t, err)
	require.NotNil(t, out.Answer)
	assert.Equal(t, []string{"alice"}, sys.ranAs)
	assert.Equal(t, domain.ImpersonationAtSource, out.Answer.Provenance.ExecutedAs[0].Posture)
	assert.Zero(t, sys.Calls()-len(sys.ranAs), "never through the service identity's Execute directly")
}

package app_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
	"sutura.dev/runtime"
)

// newSurface builds a surface over sys and the demo bundle (apptest), with
// max slots and the request timeout; edits adjust the configuration.
func newSurface(t *testing.T, sys app.DataSystem, max int, timeout time.Duration, edits ...func(*app.Config)) (*app.Surface, *apptest.Audit, *runtime.Admission) {
	t.Helper()
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: max, Timeout: time.Second})
	require.NoError(t, err)
	audit := &apptest.Audit{}
	cfg := app.Config{Catalog: apptest.Catalog{Pinned: apptest.Bundle(t, "v1")}, Sources: apptest.Sources(sys),
		Admission: adm, Audit: audit, RequestTimeout: timeout}
	for _, edit := range edits {
		edit(&cfg)
	}
	s, err := app.New(cfg)
	require.NoError(t, err)
	return s, audit, adm
}

// withSQL enables run_sql.
func withSQL(cfg *app.Config) { cfg.Tools = app.Tools(app.ToolOptions{RunSQL: true}) }

func question(t *testing.T, js string) domain.Question {
	t.Helper()
	q, err := domain.ParseQuestion([]byte(js))
	require.NoError(t, err)
	return q
}

var anon = app.Caller{Principal: domain.Principal{Subject: "agent"}, CorrelationID: "c-1"}

func TestAnswerIsAuditedWithProvenance(t *testing.T) {
	sys := &apptest.System{Rows: [][]domain.Cell{{domain.DateCell(domain.DateOf(2025, 1, 1)), domain.Int(42)}}}
	s, audit, adm := newSurface(t, sys, 2, 5*time.Second)
	out, err := s.Answer(context.Background(), anon, question(t, `{"metrics":["revenue"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`))
	require.NoError(t, err)
	require.NotNil(t, out.Answer)
	assert.Equal(t, "v1", out.Answer.Provenance.DefinitionVersion)
	assert.Equal(t, s.Bundle().Digest(), out.Answer.Provenance.DefinitionDigest)
	assert.Equal(t, []domain.ExecutedAs{{Source: "files", Posture: domain.SharedServiceUser}}, out.Answer.Provenance.ExecutedAs)
	recs := audit.Records()
	require.Len(t, recs, 1)
	rec := recs[0]
	assert.Equal(t, "answer", rec.Outcome)
	assert.Equal(t, 1, rec.Rows)
	assert.Equal(t, "c-1", rec.CorrelationID)
	assert.Equal(t, 0, adm.InUse(), "the slot is given back")
}

func TestRefusalsAreOutcomesAndAudited(t *testing.T) {
	sys := &apptest.System{}
	s, audit, _ := newSurface(t, sys, 2, 5*time.Second)
	for _, tc := range []struct {
		q    string
		code domain.Code
	}{
		{`{"metrics":["secret_revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-02-01"}}`, domain.MetricUnknown},
		{`{"metrics":["revenue"],"grain":"day","range":{"start":"2025-01-01","end":"2025-02-01"}}`, domain.GrainNotSupported},
		{`{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-02-01"},"filters":[{"op":"eq","dimension":"city","value":"Zz-Canary"}]}`, domain.DimensionValueNotAllowed},
	} {
		out, err := s.Answer(context.Background(), anon, question(t, tc.q))
		require.NoError(t, err)
		require.NotNil(t, out.Refusal)
		assert.Equal(t, tc.code, out.Refusal.Code())
		assert.NotContains(t, out.Refusal.Detail(), "Zz-Canary")
	}
	assert.Equal(t, 0, sys.Calls(), "refused questions never reach the data system")
	recs := audit.Records()
	require.Len(t, recs, 3)
	for _, r := range recs {
		assert.Equal(t, "refusal", r.Outcome)
	}
	assert.Equal(t, []string{"city"}, recs[2].FilterDimensions, "filter dimensions, never values")
}

func TestExecutionRefusalsAndFailures(t *testing.T) {
	q := `{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"}}`
	t.Run("data system refusal", func(t *testing.T) {
		s, _, _ := newSurface(t, &apptest.System{Err: &domain.RefusalError{Reason: domain.Refuse(domain.ResourcesExhausted, "too big")}}, 1, 5*time.Second)
		out, err := s.Answer(context.Background(), anon, question(t, q))
		require.NoError(t, err)
		assert.Equal(t, domain.ResourcesExhausted, out.Refusal.Code())
	})
	t.Run("failure hides driver text", func(t *testing.T) {
		s, audit, _ := newSurface(t, &apptest.System{Err: errors.New("driver: connection reset")}, 1, 5*time.Second)
		_, err := s.Answer(context.Background(), anon, question(t, q))
		require.ErrorIs(t, err, app.ErrUnavailable)
		assert.Equal(t, "failure", audit.Records()[0].Outcome)
	})
	t.Run("too many rows", func(t *testing.T) {
		rows := make([][]domain.Cell, domain.MaxRowCap+1)
		for i := range rows {
			rows[i] = []domain.Cell{domain.Null(), domain.Int(1)}
		}
		s, _, _ := newSurface(t, &apptest.System{Rows: rows}, 1, 5*time.Second)
		out, err := s.Answer(context.Background(), anon, question(t, q))
		require.NoError(t, err)
		assert.Equal(t, domain.ResultTooLarge, out.Refusal.Code())
	})
	t.Run("execution budget", func(t *testing.T) {
		s, _, adm := newSurface(t, &apptest.System{Block: true}, 1, 2*time.Second)
		start := time.Now()
		out, err := s.Answer(context.Background(), anon, question(t, q))
		require.NoError(t, err)
		assert.Equal(t, domain.DeadlineExceeded, out.Refusal.Code())
		assert.Less(t, time.Since(start), 1900*time.Millisecond, "execution gets the request timeout less the reply margin")
		assert.Equal(t, 0, adm.InUse())
	})
	t.Run("caller cancels", func(t *testing.T) {
		s, _, adm := newSurface(t, &apptest.System{Block: true}, 1, 30*time.Second)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		_, err := s.Answer(ctx, anon, question(t, q))
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, 0, adm.InUse(), "the slot is back once the work stopped")
	})
	t.Run("audit failure fails the answer", func(t *testing.T) {
		s, audit, _ := newSurface(t, &apptest.System{}, 1, 5*time.Second)
		audit.Fail(errors.New("disk full"))
		_, err := s.Answer(context.Background(), anon, question(t, q))
		require.ErrorIs(t, err, app.ErrInternal)
	})
}

func TestAtCapacity(t *testing.T) {
	sys := &apptest.System{Block: true}
	s, _, adm := newSurface(t, sys, 1, 30*time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	q := question(t, `{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"}}`)
	go func() { defer close(done); _, _ = s.Answer(ctx, anon, q) }()
	require.Eventually(t, func() bool { return adm.InUse() == 1 }, time.Second, 5*time.Millisecond)
	_, err := s.Answer(context.Background(), anon, q)
	require.ErrorIs(t, err, app.ErrAtCapacity)
	cancel()
	<-done
}

func TestDescribeHidesInvisibleMetrics(t *testing.T) {
	s, audit, _ := newSurface(t, &apptest.System{}, 1, 5*time.Second)
	v := s.DescribeCatalog(anon)
	require.Len(t, v.Metrics, 1)
	assert.Equal(t, "revenue", v.Metrics[0].Name)
	assert.Len(t, s.DescribeCatalog(app.Caller{Principal: domain.Principal{Subject: "cfo", Audiences: []string{"finance"}}}).Metrics, 2)
	assert.Empty(t, audit.Records(), "describe_catalog writes no audit record")
	prompt := app.RenderPrompt(v, app.PromptOptions{Prose: app.ProseQuoted})
	assert.Contains(t, prompt, "revenue")
	assert.NotContains(t, prompt, "secret_revenue")
	assert.True(t, strings.Contains(prompt, s.Bundle().Digest()))
}

func TestCheckBundleAnchors(t *testing.T) {
	b := apptest.Bundle(t, "v1")
	ok := &apptest.System{Rows: [][]domain.Cell{{domain.DateCell(domain.DateOf(2025, 1, 1)), domain.Int(42)}}}
	require.NoError(t, app.CheckBundle(context.Background(), b, map[string]app.Source{"files": {System: ok}}))
	wrong := &apptest.System{Rows: [][]domain.Cell{{domain.DateCell(domain.DateOf(2025, 1, 1)), domain.Int(41)}}}
	err := app.CheckBundle(context.Background(), b, map[string]app.Source{"files": {System: wrong}})
	var ae *app.AnchorError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "revenue", ae.Metric)
	assert.Equal(t, "42", ae.Expected)
	assert.Equal(t, "41", ae.Produced)
	err = app.CheckBundle(context.Background(), b, map[string]app.Source{})
	assert.ErrorContains(t, err, "model sales: its source files is not configured")
}

// postured is a data system whose own configuration holds its posture.
type postured struct {
	*apptest.System
	posture domain.Posture
}

func (p postured) Posture() domain.Posture { return p.posture }

func TestNewRefusesAPostureItsDataSystemDoesNotRun(t *testing.T) {
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: 1, Timeout: time.Second})
	require.NoError(t, err)
	build := func(src app.Source) error {
		_, err := app.New(app.Config{Catalog: apptest.Catalog{Pinned: apptest.Bundle(t, "v1")}, Admission: adm, Audit: &apptest.Audit{},
			Sources: map[string]app.Source{apptest.SourceName: src}})
		return err
	}
	require.NoError(t, build(app.Source{System: postured{&apptest.System{}, domain.SharedServiceUser}, Posture: domain.SharedServiceUser}))
	err = build(app.Source{System: postured{&apptest.System{}, domain.ImpersonationAtSource}, Posture: domain.SharedServiceUser})
	require.ErrorContains(t, err, "source files is configured shared-service-user, but its data system runs impersonation-at-source")
}

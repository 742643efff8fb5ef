package app

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/runtime"
)

// fakeSystem is a hand-written data system: it answers with fixed rows,
// fails, refuses, or blocks until its context ends.
type fakeSystem struct {
	rows  *domain.RowSet
	err   error
	block bool
	mu    sync.Mutex
	calls int
}

func (f *fakeSystem) Execute(ctx context.Context, plan *domain.Plan) (*domain.RowSet, error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	if f.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if f.err != nil {
		return nil, f.err
	}
	return &domain.RowSet{Columns: plan.Columns, Rows: f.rows.Rows}, nil
}

type memAudit struct {
	mu   sync.Mutex
	recs []domain.AuditRecord
	err  error
}

func (m *memAudit) Write(_ context.Context, r domain.AuditRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs = append(m.recs, r)
	return m.err
}

type fixedCatalog struct{ b *domain.Bundle }

func (c fixedCatalog) Bundle() *domain.Bundle { return c.b }

func testBundle(t *testing.T) *domain.Bundle {
	t.Helper()
	defs := domain.Definitions{
		Models: []domain.Model{{Name: "sales", Source: "files", Table: "sales", Columns: []domain.ModelColumn{
			{Name: "sold_on", Type: domain.TypeDate}, {Name: "amount", Type: domain.TypeInteger}, {Name: "city", Type: domain.TypeText}}}},
		Metrics: []domain.Metric{{
			Name: "revenue", Model: "sales", TimeColumn: "sold_on", Grains: []domain.Grain{domain.Month, domain.Year},
			Measure:    &domain.Measure{Simple: &domain.Term{Aggregate: domain.Sum, Column: "amount"}},
			Dimensions: []domain.Dimension{{Name: "city", Column: "city", Filterable: true, Values: []string{"Lyon", "Paris"}}},
			Anchor:     &domain.Anchor{Range: domain.Range{Start: domain.DateOf(2025, 1, 1), End: domain.DateOf(2026, 1, 1)}, Value: "42"},
		}, {
			Name: "secret_revenue", Model: "sales", TimeColumn: "sold_on", Grains: []domain.Grain{domain.Month},
			Measure:  &domain.Measure{Simple: &domain.Term{Aggregate: domain.Sum, Column: "amount"}},
			Audience: domain.Audience{Restricted: []string{"finance"}},
		}},
	}
	b, err := domain.NewBundle("v1", defs, domain.Knowledge{})
	require.NoError(t, err)
	return b
}

func newSurface(t *testing.T, sys DataSystem, max int, timeout time.Duration) (*Surface, *memAudit, *runtime.Admission) {
	t.Helper()
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: max, Timeout: time.Second})
	require.NoError(t, err)
	audit := &memAudit{}
	s, err := New(Config{Catalog: fixedCatalog{testBundle(t)}, Sources: map[string]Source{"files": {System: sys, Posture: domain.SharedServiceUser}},
		Admission: adm, Audit: audit, RequestTimeout: timeout})
	require.NoError(t, err)
	return s, audit, adm
}

func question(t *testing.T, js string) domain.Question {
	t.Helper()
	q, err := domain.ParseQuestion([]byte(js))
	require.NoError(t, err)
	return q
}

var anon = Caller{Principal: domain.Principal{Subject: "agent"}, CorrelationID: "c-1"}

func TestAnswerIsAuditedWithProvenance(t *testing.T) {
	sys := &fakeSystem{rows: &domain.RowSet{Rows: [][]domain.Cell{{domain.DateCell(domain.DateOf(2025, 1, 1)), domain.Int(42)}}}}
	s, audit, adm := newSurface(t, sys, 2, 5*time.Second)
	out, err := s.Answer(context.Background(), anon, question(t, `{"metrics":["revenue"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`))
	require.NoError(t, err)
	require.NotNil(t, out.Answer)
	assert.Equal(t, "v1", out.Answer.Provenance.DefinitionVersion)
	assert.Equal(t, s.Bundle().Digest(), out.Answer.Provenance.DefinitionDigest)
	assert.Equal(t, []domain.ExecutedAs{{Source: "files", Posture: domain.SharedServiceUser}}, out.Answer.Provenance.ExecutedAs)
	require.Len(t, audit.recs, 1)
	rec := audit.recs[0]
	assert.Equal(t, "answer", rec.Outcome)
	assert.Equal(t, 1, rec.Rows)
	assert.Equal(t, "c-1", rec.CorrelationID)
	assert.Equal(t, 0, adm.InUse(), "the slot is given back")
}

func TestRefusalsAreOutcomesAndAudited(t *testing.T) {
	sys := &fakeSystem{rows: &domain.RowSet{}}
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
	assert.Equal(t, 0, sys.calls, "refused questions never reach the data system")
	require.Len(t, audit.recs, 3)
	for _, r := range audit.recs {
		assert.Equal(t, "refusal", r.Outcome)
	}
	assert.Equal(t, []string{"city"}, audit.recs[2].FilterDimensions, "filter dimensions, never values")
}

func TestExecutionRefusalsAndFailures(t *testing.T) {
	q := `{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"}}`
	t.Run("data system refusal", func(t *testing.T) {
		s, _, _ := newSurface(t, &fakeSystem{err: &domain.RefusalError{Reason: domain.Refuse(domain.ResourcesExhausted, "too big")}}, 1, 5*time.Second)
		out, err := s.Answer(context.Background(), anon, question(t, q))
		require.NoError(t, err)
		assert.Equal(t, domain.ResourcesExhausted, out.Refusal.Code())
	})
	t.Run("failure hides driver text", func(t *testing.T) {
		s, audit, _ := newSurface(t, &fakeSystem{err: errors.New("driver: connection reset")}, 1, 5*time.Second)
		_, err := s.Answer(context.Background(), anon, question(t, q))
		require.ErrorIs(t, err, ErrUnavailable)
		assert.Equal(t, "failure", audit.recs[0].Outcome)
	})
	t.Run("too many rows", func(t *testing.T) {
		rows := make([][]domain.Cell, domain.MaxRowCap+1)
		for i := range rows {
			rows[i] = []domain.Cell{domain.Null(), domain.Int(1)}
		}
		s, _, _ := newSurface(t, &fakeSystem{rows: &domain.RowSet{Rows: rows}}, 1, 5*time.Second)
		out, err := s.Answer(context.Background(), anon, question(t, q))
		require.NoError(t, err)
		assert.Equal(t, domain.ResultTooLarge, out.Refusal.Code())
	})
	t.Run("execution budget", func(t *testing.T) {
		s, _, adm := newSurface(t, &fakeSystem{block: true}, 1, 2*time.Second)
		start := time.Now()
		out, err := s.Answer(context.Background(), anon, question(t, q))
		require.NoError(t, err)
		assert.Equal(t, domain.DeadlineExceeded, out.Refusal.Code())
		assert.Less(t, time.Since(start), 1900*time.Millisecond, "execution gets the request timeout less the reply margin")
		assert.Equal(t, 0, adm.InUse())
	})
	t.Run("caller cancels", func(t *testing.T) {
		s, _, adm := newSurface(t, &fakeSystem{block: true}, 1, 30*time.Second)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		_, err := s.Answer(ctx, anon, question(t, q))
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, 0, adm.InUse(), "the slot is back once the work stopped")
	})
	t.Run("audit failure fails the answer", func(t *testing.T) {
		s, audit, _ := newSurface(t, &fakeSystem{rows: &domain.RowSet{}}, 1, 5*time.Second)
		audit.err = errors.New("disk full")
		_, err := s.Answer(context.Background(), anon, question(t, q))
		require.ErrorIs(t, err, ErrInternal)
	})
}

func TestAtCapacity(t *testing.T) {
	sys := &fakeSystem{block: true}
	s, _, adm := newSurface(t, sys, 1, 30*time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	q := question(t, `{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"}}`)
	go func() { defer close(done); _, _ = s.Answer(ctx, anon, q) }()
	require.Eventually(t, func() bool { return adm.InUse() == 1 }, time.Second, 5*time.Millisecond)
	_, err := s.Answer(context.Background(), anon, q)
	require.ErrorIs(t, err, ErrAtCapacity)
	cancel()
	<-done
}

func TestDescribeHidesInvisibleMetrics(t *testing.T) {
	s, audit, _ := newSurface(t, &fakeSystem{}, 1, 5*time.Second)
	v := s.DescribeCatalog(anon)
	require.Len(t, v.Metrics, 1)
	assert.Equal(t, "revenue", v.Metrics[0].Name)
	assert.Len(t, s.DescribeCatalog(Caller{Principal: domain.Principal{Subject: "cfo", Audiences: []string{"finance"}}}).Metrics, 2)
	assert.Empty(t, audit.recs, "describe_catalog writes no audit record")
	prompt := RenderPrompt(v, PromptOptions{Prose: ProseQuoted})
	assert.Contains(t, prompt, "revenue")
	assert.NotContains(t, prompt, "secret_revenue")
	assert.True(t, strings.Contains(prompt, s.Bundle().Digest()))
}

func TestCheckBundleAnchors(t *testing.T) {
	b := testBundle(t)
	ok := &fakeSystem{rows: &domain.RowSet{Rows: [][]domain.Cell{{domain.DateCell(domain.DateOf(2025, 1, 1)), domain.Int(42)}}}}
	require.NoError(t, CheckBundle(context.Background(), b, map[string]Source{"files": {System: ok}}))
	wrong := &fakeSystem{rows: &domain.RowSet{Rows: [][]domain.Cell{{domain.DateCell(domain.DateOf(2025, 1, 1)), domain.Int(41)}}}}
	err := CheckBundle(context.Background(), b, map[string]Source{"files": {System: wrong}})
	var ae *AnchorError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "revenue", ae.Metric)
	assert.Equal(t, "42", ae.Expected)
	assert.Equal(t, "41", ae.Produced)
	err = CheckBundle(context.Background(), b, map[string]Source{})
	assert.ErrorContains(t, err, "model sales: its source files is not configured")
}

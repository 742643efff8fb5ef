package app_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
	"sutura.dev/runtime"
)

// combiner is a fake app.Combiner: it records the legs' rows it was
// given and answers with one row, or fails with err.
type combiner struct {
	mu   sync.Mutex
	legs [][]*domain.RowSet
	err  error
}

func (c *combiner) Combine(ctx context.Context, plan *domain.Plan, legs []*domain.RowSet) (*domain.RowSet, error) {
	c.mu.Lock()
	c.legs = append(c.legs, legs)
	c.mu.Unlock()
	if c.err != nil {
		return nil, c.err
	}
	row := make([]domain.Cell, len(plan.Columns))
	return &domain.RowSet{Columns: plan.Columns, Rows: [][]domain.Cell{row}}, nil
}

// federated builds a surface over the federated bundle (apptest) with
// sales, stores and regions as its three data systems.
func federated(t *testing.T, sales, stores, regions app.DataSystem, comb app.Combiner, edits ...func(*app.Config)) (*app.Surface, *apptest.Audit, *runtime.Admission) {
	t.Helper()
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: 1, Timeout: time.Second})
	require.NoError(t, err)
	audit := &apptest.Audit{}
	cfg := app.Config{Catalog: apptest.Catalog{Pinned: apptest.FederatedBundle(t, "v1")}, Sources: apptest.FederatedSources(sales, stores, regions),
		Admission: adm, Audit: audit, RequestTimeout: 10 * time.Second, Combiner: comb}
	for _, e := range edits {
		e(&cfg)
	}
	s, err := app.New(cfg)
	require.NoError(t, err)
	return s, audit, adm
}

const byZone = `{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"},"dimensions":["zone","city"]}`

// TestLegsRunAtOnceInOneSlot: the three legs of a question run together
// under its one admission slot, each on its source, and the combine gets
// their rows in leg order.
func TestLegsRunAtOnceInOneSlot(t *testing.T) {
	sales, stores, regions := &apptest.System{Block: true, Generate: 3}, &apptest.System{Block: true, Generate: 2}, &apptest.System{Block: true, Generate: 1}
	comb := &combiner{}
	s, audit, adm := federated(t, sales, stores, regions, comb)
	done := make(chan domain.Outcome, 1)
	go func() {
		out, err := s.Answer(context.Background(), anon, question(t, byZone))
		assert.NoError(t, err)
		done <- out
	}()
	for _, sys := range []*apptest.System{sales, stores, regions} {
		select {
		case <-sys.Started():
		case <-time.After(5 * time.Second):
			t.Fatal("a leg did not start while the others ran")
		}
	}
	assert.Equal(t, 1, adm.InUse(), "one slot for the whole question")
	for _, sys := range []*apptest.System{sales, stores, regions} {
		sys.Release()
	}
	out := <-done
	require.NotNil(t, out.Answer)
	assert.Equal(t, []domain.ExecutedAs{{Source: "files", Posture: domain.SharedServiceUser}, {Source: "shops", Posture: domain.SharedServiceUser},
		{Source: "geo", Posture: domain.SharedServiceUser}}, out.Answer.Provenance.ExecutedAs)
	require.Len(t, comb.legs, 1)
	var sizes []int
	for _, rs := range comb.legs[0] {
		sizes = append(sizes, len(rs.Rows))
	}
	assert.Equal(t, []int{3, 2, 1}, sizes, "the rows of each leg, in leg order")
	assert.Equal(t, out.Answer.Provenance.ExecutedAs, audit.Records()[0].ExecutedAs)
	assert.Zero(t, adm.InUse())
}

// TestALegFailingStopsTheOthers: the first leg to fail cancels the legs
// still running; the question ends with that leg's outcome, never with
// the cancellation it caused, and only once every leg has stopped.
func TestALegFailingStopsTheOthers(t *testing.T) {
	refused := &domain.RefusalError{Reason: domain.Refuse(domain.SourceRefused, "no grant on stores")}
	sales, regions := &apptest.System{Block: true}, &apptest.System{Block: true}
	s, _, adm := federated(t, sales, &apptest.System{Err: refused}, regions, &combiner{})
	out, err := s.Answer(context.Background(), anon, question(t, byZone))
	require.NoError(t, err)
	require.NotNil(t, out.Refusal)
	assert.Equal(t, domain.SourceRefused, out.Refusal.Code())
	assert.Equal(t, []error{context.Canceled}, sales.Ended(), "the base leg was cancelled")
	assert.Equal(t, []error{context.Canceled}, regions.Ended(), "the other lookup leg was cancelled")
	assert.Zero(t, adm.InUse())

	down := errors.New("connection refused")
	s, _, _ = federated(t, &apptest.System{Block: true}, &apptest.System{Err: down}, &apptest.System{}, &combiner{})
	_, err = s.Answer(context.Background(), anon, question(t, byZone))
	var f *app.Failure
	require.ErrorAs(t, err, &f)
	assert.Equal(t, app.CodeUnavailable, f.Code)
}

// TestCancellingAFederatedQuestionStopsEveryLeg: the caller going away
// cancels every leg, and the slot comes back.
func TestCancellingAFederatedQuestionStopsEveryLeg(t *testing.T) {
	sales, stores, regions := &apptest.System{Block: true}, &apptest.System{Block: true}, &apptest.System{Block: true}
	s, _, adm := federated(t, sales, stores, regions, &combiner{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := s.Answer(ctx, anon, question(t, byZone)); done <- err }()
	for _, sys := range []*apptest.System{sales, stores, regions} {
		<-sys.Started()
	}
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	for _, sys := range []*apptest.System{sales, stores, regions} {
		assert.Equal(t, []error{context.Canceled}, sys.Ended())
	}
	assert.Zero(t, adm.InUse())
}

// TestFederatedBounds: a leg over governance.max_leg_rows is refused as
// result_too_large, whatever the data system did with the bound it was
// given; so is an answer over the row cap; a combine that cannot join is
// the refusal it returns; without a combine, the question is not
// executable.
func TestFederatedBounds(t *testing.T) {
	s, _, _ := federated(t, &apptest.System{Generate: 3}, &apptest.System{Generate: 2}, &apptest.System{}, &combiner{},
		func(c *app.Config) { c.Governance = app.Governance{MaxLegRows: 2} })
	out, err := s.Answer(context.Background(), anon, question(t, byZone))
	require.NoError(t, err)
	require.NotNil(t, out.Refusal)
	assert.Equal(t, domain.ResultTooLarge, out.Refusal.Code())
	assert.Contains(t, out.Refusal.Detail(), "governance.max_leg_rows")

	notWell := &domain.RefusalError{Reason: domain.Refuse(domain.FederatedAnswerNotWellFormed, "a key twice")}
	s, _, _ = federated(t, &apptest.System{}, &apptest.System{}, &apptest.System{}, &combiner{err: notWell})
	out, err = s.Answer(context.Background(), anon, question(t, byZone))
	require.NoError(t, err)
	assert.Equal(t, domain.FederatedAnswerNotWellFormed, out.Refusal.Code())

	s, _, _ = federated(t, &apptest.System{}, &apptest.System{}, &apptest.System{}, &combiner{err: errors.New("a defect")})
	_, err = s.Answer(context.Background(), anon, question(t, byZone))
	var f *app.Failure
	require.ErrorAs(t, err, &f)
	assert.Equal(t, app.CodeInternal, f.Code, "a combine that fails is a defect, not a data system down")

	s, _, _ = federated(t, &apptest.System{}, &apptest.System{}, &apptest.System{}, nil)
	out, err = s.Answer(context.Background(), anon, question(t, byZone))
	require.NoError(t, err)
	assert.Equal(t, domain.FederationNotExecutable, out.Refusal.Code())

	sources := apptest.FederatedSources(&apptest.System{}, &apptest.System{}, &apptest.System{})
	delete(sources, apptest.RegionsSource)
	s, _, _ = federated(t, nil, nil, nil, &combiner{}, func(c *app.Config) { c.Sources = sources })
	out, err = s.Answer(context.Background(), anon, question(t, byZone))
	require.NoError(t, err)
	assert.Equal(t, domain.SourceUnavailable, out.Refusal.Code(), "a lookup leg's source is not open")

	_, err = app.New(app.Config{Catalog: apptest.Catalog{Pinned: apptest.FederatedBundle(t, "v1")}, Admission: s.Admission(),
		Audit: &apptest.Audit{}, Governance: app.Governance{MaxLegRows: domain.MaxLegRowCap + 1}})
	require.Error(t, err)
}

// TestGovernanceCeilings: the surface plans under the configured
// ceilings.
func TestGovernanceCeilings(t *testing.T) {
	for _, tc := range []struct {
		gov  app.Governance
		code domain.Code
	}{
		{app.Governance{}, ""},
		{app.Governance{LookupLegCeiling: 1}, domain.PlanNeedsTooManyLookupLegs},
		{app.Governance{SourceCeiling: 2}, domain.PlanSpansTooManySources},
		{app.Governance{LookupLegCeiling: 2, SourceCeiling: 3}, ""},
	} {
		s, _, _ := federated(t, &apptest.System{}, &apptest.System{}, &apptest.System{}, &combiner{}, func(c *app.Config) { c.Governance = tc.gov })
		out, err := s.Answer(context.Background(), anon, question(t, byZone))
		require.NoError(t, err)
		if tc.code == "" {
			assert.NotNil(t, out.Answer, "%+v: %v", tc.gov, out.Refusal)
			continue
		}
		require.NotNil(t, out.Refusal, "%+v", tc.gov)
		assert.Equal(t, tc.code, out.Refusal.Code())
	}
}

// TestFederatedCostIsTheSumOfItsLegs: rows scanned and bytes read add up
// over the legs, each source read is listed once, and one leg that cannot
// measure makes the cost unmeasured.
func TestFederatedCostIsTheSumOfItsLegs(t *testing.T) {
	metered := func(rows int64) apptest.Metered {
		return apptest.Metered{System: &apptest.System{}, Cost: func(*domain.RowSet, error) domain.Cost {
			return domain.Cost{RowsScanned: rows, BytesRead: 10 * rows}
		}}
	}
	s, _, _ := federated(t, metered(100), metered(20), metered(3), &combiner{})
	_, cost, err := s.AnswerWithCost(context.Background(), anon, question(t, byZone))
	require.NoError(t, err)
	assert.Equal(t, int64(123), cost.RowsScanned)
	assert.Equal(t, int64(1230), cost.BytesRead)
	assert.Equal(t, []string{"files", "shops", "geo"}, cost.Sources)
	assert.True(t, cost.Measured)
	assert.Positive(t, cost.Elapsed)

	s, _, _ = federated(t, metered(100), &apptest.System{}, metered(3), &combiner{})
	_, cost, err = s.AnswerWithCost(context.Background(), anon, question(t, byZone))
	require.NoError(t, err)
	assert.False(t, cost.Measured)
}

// TestEachLegInItsOwnPosture: an impersonating source runs its leg as the
// caller, a shared one as the service, and executed_as says which.
func TestEachLegInItsOwnPosture(t *testing.T) {
	stores := &asWho{}
	sources := apptest.FederatedSources(&apptest.System{}, stores, &apptest.System{})
	sources[apptest.StoresSource] = app.Source{System: stores, Posture: domain.ImpersonationAtSource}
	s, _, _ := federated(t, nil, nil, nil, &combiner{}, func(c *app.Config) { c.Sources = sources })
	out, err := s.Answer(context.Background(), app.Caller{Principal: domain.Principal{Subject: "alice"}},
		question(t, `{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"},"dimensions":["store_region"]}`))
	require.NoError(t, err)
	require.NotNil(t, out.Answer)
	assert.Equal(t, []string{"alice"}, stores.ranAs)
	assert.Equal(t, []domain.ExecutedAs{{Source: "files", Posture: domain.SharedServiceUser}, {Source: "shops", Posture: domain.ImpersonationAtSource}},
		out.Answer.Provenance.ExecutedAs)
}

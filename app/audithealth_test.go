package app_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
)

// TestNothingIsAnsweredUnaudited: once the audit sink has failed a write
// (the answer of that call was withheld as internal), every later call is
// refused unavailable before any work — the data system is not asked —
// and Ready says why, until the sink writes again; then calls are
// answered and audited as before.
func TestNothingIsAnsweredUnaudited(t *testing.T) {
	sys := &apptest.System{}
	s, audit, _ := newSurface(t, sys, 2, 5*time.Second)
	const q = `{"metrics":["revenue"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`
	require.NoError(t, s.Ready(context.Background()))

	audit.Fail(errors.New("no space left on device"))
	_, err := s.Answer(context.Background(), anon, question(t, q))
	require.ErrorIs(t, err, app.ErrInternal, "the write that fails withholds its answer")
	calls := sys.Calls()

	for range 3 {
		_, err = s.Answer(context.Background(), anon, question(t, q))
		var f *app.Failure
		require.ErrorAs(t, err, &f)
		assert.Equal(t, app.CodeUnavailable, f.Code)
		assert.Contains(t, f.Detail, "the audit log cannot be written")
	}
	assert.Equal(t, calls, sys.Calls(), "refused before the data system is asked")
	assert.ErrorContains(t, s.Ready(context.Background()), "the audit log cannot be written")

	audit.Fail(nil)
	require.NoError(t, s.Ready(context.Background()))
	out, err := s.Answer(context.Background(), anon, question(t, q))
	require.NoError(t, err)
	require.NotNil(t, out.Answer)
	recs := audit.Records()
	require.NotEmpty(t, recs)
	assert.Equal(t, "answer", recs[len(recs)-1].Outcome)
}

// withdrawing is a data system whose readiness a deferred check withdrew
// (app.ReadinessProber).
type withdrawing struct {
	*apptest.System
	err error
}

func (w *withdrawing) Ready(context.Context) error { return w.err }

// TestReadyAsksTheDataSystems: a data system that withdrew its readiness
// makes Ready fail as unavailable, its reason (file, column, line) in the
// detail on one line; one that did not leaves Ready nil.
func TestReadyAsksTheDataSystems(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"ready", nil, ""},
		{"withdrawn", errors.Join(errors.New("model a: file a.csv, column n, line 70001: not an integer"), errors.New("model b: file b.csv, column d, line 9: not a date")),
			"cannot answer every question: model a: file a.csv, column n, line 70001: not an integer; model b: file b.csv, column d, line 9: not a date"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _, _ := newSurface(t, &withdrawing{System: &apptest.System{}, err: tc.err}, 2, 5*time.Second)
			err := s.Ready(context.Background())
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			var f *app.Failure
			require.ErrorAs(t, err, &f)
			assert.Equal(t, app.CodeUnavailable, f.Code)
			assert.Contains(t, f.Detail, tc.want)
		})
	}
}

// TestAnchorsOfDifferentSourcesRunAtOnce: the start-up anchors of two
// sources run at the same time (each source's system holds its anchor
// until both are running), and each source's anchors one at a time.
func TestAnchorsOfDifferentSourcesRunAtOnce(t *testing.T) {
	defs := apptest.Definitions()
	other := defs.Models[0]
	other.Name, other.Source, other.Table = "sales_elsewhere", "elsewhere", "sales_elsewhere"
	rev := defs.Metrics[0]
	rev2, rev3 := rev, rev
	rev2.Name, rev2.Model = "revenue_elsewhere", other.Name
	rev3.Name = "revenue_again"
	defs.Models = append(defs.Models, other)
	defs.Metrics = []domain.Metric{rev, rev2, rev3}
	b, err := domain.NewBundle("v1", defs, domain.Knowledge{})
	require.NoError(t, err)
	row := [][]domain.Cell{{domain.DateCell(domain.DateOf(2025, 1, 1)), domain.Int(42)}}
	here := &apptest.System{Rows: row, Block: true}
	there := &apptest.System{Rows: row, Block: true}
	sources := apptest.Sources(here)
	sources["elsewhere"] = app.Source{System: there, Posture: domain.SharedServiceUser}

	done := make(chan error, 1)
	go func() {
		done <- app.CheckBundleWith(context.Background(), b, sources, app.Governance{}, domain.DateOf(2026, 1, 1))
	}()
	require.Eventually(t, func() bool { return here.Running() == 1 && there.Running() == 1 }, 10*time.Second, time.Millisecond,
		"both sources' anchors run at once")
	here.Release()
	there.Release()
	require.NoError(t, <-done)
	assert.Equal(t, 1, here.MaxRunning(), "one source's anchors run one at a time")
	assert.Equal(t, 2, here.Calls())
	assert.Equal(t, 1, there.Calls())
}

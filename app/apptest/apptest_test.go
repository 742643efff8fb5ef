package apptest_test

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
)

// plan is a plan over the demo bundle with the given columns.
func plan(cols ...domain.Column) *domain.Plan {
	return &domain.Plan{Columns: cols, Range: domain.Range{Start: domain.DateOf(2025, 1, 1), End: domain.DateOf(2025, 3, 1)}}
}

var (
	period = domain.Column{Name: "period", Role: domain.RolePeriod}
	city   = domain.Column{Name: "city", Role: domain.RoleDimension}
	value  = domain.Column{Name: "revenue", Role: domain.RoleMetric}
)

func TestSystemAnswers(t *testing.T) {
	fixed := [][]domain.Cell{{domain.DateCell(domain.DateOf(2025, 1, 1)), domain.Int(42)}}
	refusal := &domain.RefusalError{Reason: domain.Refuse(domain.ResourcesExhausted, "full")}
	for _, tc := range []struct {
		name    string
		sys     *apptest.System
		plan    *domain.Plan
		want    [][]domain.Cell
		wantErr error
	}{
		{"zero answers no rows", &apptest.System{}, plan(period, value), nil, nil},
		{"fixed rows of the plan's shape", &apptest.System{Rows: fixed}, plan(period, value), fixed, nil},
		{"fixed rows of another shape", &apptest.System{Rows: fixed}, plan(city, period, value), nil, nil},
		{"generated", &apptest.System{Rows: fixed, Generate: 4}, plan(city, period, value), [][]domain.Cell{
			{domain.Text("city-00000"), domain.DateCell(domain.DateOf(2025, 1, 1)), domain.Int(0)},
			{domain.Text("city-00001"), domain.DateCell(domain.DateOf(2025, 1, 1)), domain.Int(10)},
			{domain.Text("city-00002"), domain.DateCell(domain.DateOf(2025, 1, 1)), domain.Int(20)},
			{domain.Text("city-00003"), domain.DateCell(domain.DateOf(2025, 1, 1)), domain.Null()},
		}, nil},
		{"failure, typed as a data system's", &apptest.System{Rows: fixed, Err: errors.New("down")}, plan(period, value), nil,
			errors.New("the data system is unavailable: down")},
		{"failure of a kind", &apptest.System{Err: domain.ErrRejected}, plan(period, value), nil, domain.ErrRejected},
		{"refusal", &apptest.System{Err: refusal}, plan(period, value), nil, refusal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.plan
			got, err := tc.sys.Execute(t.Context(), p)
			if tc.wantErr != nil {
				require.EqualError(t, err, tc.wantErr.Error())
				assert.Nil(t, got)
			} else {
				require.NoError(t, err)
				assert.Equal(t, p.Columns, got.Columns)
				assert.Equal(t, tc.want, got.Rows)
			}
			assert.Equal(t, 1, tc.sys.Calls())
			assert.Equal(t, 0, tc.sys.Running())
			assert.Equal(t, 1, tc.sys.MaxRunning())
		})
	}
}

func TestSystemBlocks(t *testing.T) {
	t.Run("until its context ends", func(t *testing.T) {
		sys := &apptest.System{Block: true}
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
		defer cancel()
		_, err := sys.Execute(ctx, plan(period, value))
		require.ErrorIs(t, err, context.DeadlineExceeded)
		ended := sys.Ended()
		require.Len(t, ended, 1)
		assert.ErrorIs(t, ended[0], context.DeadlineExceeded)
	})
	t.Run("until released, counting overlaps", func(t *testing.T) {
		const n = 3
		sys := &apptest.System{Block: true, Rows: [][]domain.Cell{{domain.Int(1)}}}
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				rows, err := sys.Execute(t.Context(), plan(value))
				assert.NoError(t, err)
				assert.Len(t, rows.Rows, 1)
			})
		}
		for range n {
			select {
			case <-sys.Started():
			case <-time.After(5 * time.Second):
				t.Fatal("an execution did not start")
			}
		}
		assert.Equal(t, n, sys.Running())
		sys.Release()
		sys.Release()
		wg.Wait()
		assert.Equal(t, n, sys.MaxRunning())
		assert.Equal(t, 0, sys.Running())
		assert.Equal(t, n, sys.Calls())
		assert.Empty(t, sys.Ended(), "released, not cancelled")
		_, err := sys.Execute(t.Context(), plan(value))
		assert.NoError(t, err, "a later execution does not block")
	})
}

func TestMetered(t *testing.T) {
	var plain app.DataSystem = &apptest.System{}
	_, ok := plain.(app.CostReporter)
	assert.False(t, ok, "a System alone cannot measure")

	sys := &apptest.System{Generate: 3}
	var m app.DataSystem = apptest.Metered{System: sys, Cost: func(rows *domain.RowSet, err error) domain.Cost {
		if err != nil {
			return domain.Cost{RowsScanned: 1}
		}
		return domain.Cost{RowsScanned: int64(len(rows.Rows))}
	}}
	cr, ok := m.(app.CostReporter)
	require.True(t, ok)
	rows, cost, err := cr.ExecuteWithCost(t.Context(), plan(value))
	require.NoError(t, err)
	assert.Len(t, rows.Rows, 3)
	assert.Equal(t, int64(3), cost.RowsScanned)
	sys.Err = errors.New("down")
	_, cost, err = cr.ExecuteWithCost(t.Context(), plan(value))
	require.Error(t, err)
	assert.Equal(t, int64(1), cost.RowsScanned, "reported with the error")
	_, cost, err = apptest.Metered{System: &apptest.System{}}.ExecuteWithCost(t.Context(), plan(value))
	require.NoError(t, err)
	assert.Zero(t, cost)
}

func TestAudit(t *testing.T) {
	a := &apptest.Audit{}
	require.NoError(t, a.Write(t.Context(), domain.AuditRecord{CorrelationID: "1"}))
	a.Fail(errors.New("disk full"))
	require.EqualError(t, a.Write(t.Context(), domain.AuditRecord{CorrelationID: "2"}), "disk full")
	a.Fail(nil)
	require.NoError(t, a.Write(t.Context(), domain.AuditRecord{CorrelationID: "3"}))
	recs := a.Records()
	require.Len(t, recs, 2, "a failed write stores nothing")
	assert.Equal(t, "1", recs[0].CorrelationID)
	assert.Equal(t, "3", recs[1].CorrelationID)
	recs[0].CorrelationID = "changed"
	assert.Equal(t, "1", a.Records()[0].CorrelationID, "a copy")
}

func TestCatalogAndBundle(t *testing.T) {
	v1, v2 := apptest.Bundle(t, "v1"), apptest.Bundle(t, "v2")
	assert.Equal(t, "v2", v2.Version())
	assert.Equal(t, v1.Digest(), v2.Digest())
	var cat app.Catalog = apptest.Catalog{Pinned: v1}
	assert.Same(t, v1, cat.Bundle())
	_, ok := cat.(app.CatalogNotifier)
	assert.False(t, ok, "a fixed catalogue cannot tell of swaps")

	sys := &apptest.System{}
	sources := apptest.Sources(sys)
	assert.Equal(t, map[string]app.Source{apptest.SourceName: {System: sys, Posture: domain.SharedServiceUser}}, sources)
	require.NoError(t, app.CheckBundle(t.Context(), v1, map[string]app.Source{apptest.SourceName: {System: &apptest.System{
		Rows: [][]domain.Cell{{domain.DateCell(domain.DateOf(2025, 1, 1)), domain.Int(42)}}}}}), "the anchor reproduces")

	open := app.DescribeBundle(v1, domain.Principal{Subject: "agent"})
	require.Len(t, open.Metrics, 1, "the restricted metric is hidden")
	assert.Equal(t, "revenue", open.Metrics[0].Name)
	assert.Len(t, app.DescribeBundle(v1, domain.Principal{Subject: "cfo", Audiences: []string{"finance"}}).Metrics, 2)

	defs := apptest.Definitions()
	defs.Metrics = defs.Metrics[:1]
	assert.Len(t, apptest.Definitions().Metrics, 2, "a fresh copy each call")
}

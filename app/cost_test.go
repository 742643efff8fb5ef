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

// metered measures the work of sys: 10 rows scanned and 100 bytes read per
// execution, reported even when it refuses, with rows returned and sources
// the surface must not take from it.
func metered(sys *apptest.System) apptest.Metered {
	return apptest.Metered{System: sys, Cost: func(*domain.RowSet, error) domain.Cost {
		return domain.Cost{RowsScanned: 10, BytesRead: 100, RowsReturned: 999, Sources: []string{"ignored"}}
	}}
}

func TestAnswerWithCost(t *testing.T) {
	q := `{"metrics":["revenue"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`
	rows := [][]domain.Cell{{domain.DateCell(domain.DateOf(2025, 1, 1)), domain.Int(42)}}
	t.Run("measured by the data system", func(t *testing.T) {
		s, audit, _ := newSurface(t, metered(&apptest.System{Rows: rows}), 1, 5*time.Second)
		assert.True(t, s.MeasuresCost())
		out, cost, err := s.AnswerWithCost(context.Background(), anon, question(t, q))
		require.NoError(t, err)
		require.NotNil(t, out.Answer)
		assert.Equal(t, int64(10), cost.RowsScanned)
		assert.Equal(t, int64(100), cost.BytesRead)
		assert.Equal(t, 1, cost.RowsReturned, "counted by the surface, not taken from the data system")
		assert.Equal(t, []string{"files"}, cost.Sources)
		assert.Positive(t, cost.Elapsed)
		assert.True(t, cost.Measured)
		require.Len(t, audit.Records(), 1, "one audit record, as Answer writes")
	})
	t.Run("not measurable", func(t *testing.T) {
		s, _, _ := newSurface(t, &apptest.System{Rows: rows}, 1, 5*time.Second)
		assert.False(t, s.MeasuresCost())
		_, cost, err := s.AnswerWithCost(context.Background(), anon, question(t, q))
		require.NoError(t, err)
		assert.False(t, cost.Measured)
		assert.Zero(t, cost.RowsScanned)
		assert.Equal(t, 1, cost.RowsReturned)
	})
	t.Run("refused before execution", func(t *testing.T) {
		s, _, _ := newSurface(t, metered(&apptest.System{Rows: rows}), 1, 5*time.Second)
		out, cost, err := s.AnswerWithCost(context.Background(), anon, question(t,
			`{"metrics":["revenue"],"grain":"day","range":{"start":"2025-01-01","end":"2025-02-01"}}`))
		require.NoError(t, err)
		require.NotNil(t, out.Refusal)
		assert.Equal(t, domain.Cost{Sources: []string{}, Measured: true}, cost)
	})
	t.Run("refused by the data system", func(t *testing.T) {
		sys := metered(&apptest.System{Err: &domain.RefusalError{Reason: domain.Refuse(domain.ResourcesExhausted, "full")}})
		s, _, _ := newSurface(t, sys, 1, 5*time.Second)
		out, cost, err := s.AnswerWithCost(context.Background(), anon, question(t, q))
		require.NoError(t, err)
		require.NotNil(t, out.Refusal)
		assert.Equal(t, int64(10), cost.RowsScanned, "what was spent until it stopped")
		assert.Zero(t, cost.RowsReturned)
	})
	t.Run("failure", func(t *testing.T) {
		s, _, _ := newSurface(t, metered(&apptest.System{Err: errors.New("down")}), 1, 5*time.Second)
		_, cost, err := s.AnswerWithCost(context.Background(), anon, question(t, q))
		require.Error(t, err)
		assert.Zero(t, cost)
	})
	t.Run("no sources", func(t *testing.T) {
		_, _, adm := newSurface(t, &apptest.System{}, 1, 5*time.Second)
		s, err := app.New(app.Config{Catalog: apptest.Catalog{Pinned: apptest.Bundle(t, "v1")}, Admission: adm, Audit: &apptest.Audit{}})
		require.NoError(t, err)
		assert.False(t, s.MeasuresCost())
	})
}

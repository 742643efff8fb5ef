package app

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

// meteredSystem measures its work: 10 rows scanned and 100 bytes read per
// execution, reported even when it refuses.
type meteredSystem struct{ *fakeSystem }

func (m meteredSystem) ExecuteWithCost(ctx context.Context, plan *domain.Plan) (*domain.RowSet, domain.Cost, error) {
	rows, err := m.Execute(ctx, plan)
	return rows, domain.Cost{RowsScanned: 10, BytesRead: 100, RowsReturned: 999, Sources: []string{"ignored"}}, err
}

func TestAnswerWithCost(t *testing.T) {
	q := `{"metrics":["revenue"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`
	rows := &domain.RowSet{Rows: [][]domain.Cell{{domain.DateCell(domain.DateOf(2025, 1, 1)), domain.Int(42)}}}
	t.Run("measured by the data system", func(t *testing.T) {
		s, audit, _ := newSurface(t, meteredSystem{&fakeSystem{rows: rows}}, 1, 5*time.Second)
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
		require.Len(t, audit.recs, 1, "one audit record, as Answer writes")
	})
	t.Run("not measurable", func(t *testing.T) {
		s, _, _ := newSurface(t, &fakeSystem{rows: rows}, 1, 5*time.Second)
		assert.False(t, s.MeasuresCost())
		_, cost, err := s.AnswerWithCost(context.Background(), anon, question(t, q))
		require.NoError(t, err)
		assert.False(t, cost.Measured)
		assert.Zero(t, cost.RowsScanned)
		assert.Equal(t, 1, cost.RowsReturned)
	})
	t.Run("refused before execution", func(t *testing.T) {
		s, _, _ := newSurface(t, meteredSystem{&fakeSystem{rows: rows}}, 1, 5*time.Second)
		out, cost, err := s.AnswerWithCost(context.Background(), anon, question(t,
			`{"metrics":["revenue"],"grain":"day","range":{"start":"2025-01-01","end":"2025-02-01"}}`))
		require.NoError(t, err)
		require.NotNil(t, out.Refusal)
		assert.Equal(t, domain.Cost{Sources: []string{}, Measured: true}, cost)
	})
	t.Run("refused by the data system", func(t *testing.T) {
		sys := meteredSystem{&fakeSystem{err: &domain.RefusalError{Reason: domain.Refuse(domain.ResourcesExhausted, "full")}}}
		s, _, _ := newSurface(t, sys, 1, 5*time.Second)
		out, cost, err := s.AnswerWithCost(context.Background(), anon, question(t, q))
		require.NoError(t, err)
		require.NotNil(t, out.Refusal)
		assert.Equal(t, int64(10), cost.RowsScanned, "what was spent until it stopped")
		assert.Zero(t, cost.RowsReturned)
	})
	t.Run("failure", func(t *testing.T) {
		s, _, _ := newSurface(t, meteredSystem{&fakeSystem{err: errors.New("down")}}, 1, 5*time.Second)
		_, cost, err := s.AnswerWithCost(context.Background(), anon, question(t, q))
		require.Error(t, err)
		assert.Zero(t, cost)
	})
	t.Run("no sources", func(t *testing.T) {
		_, _, adm := newSurface(t, &fakeSystem{}, 1, 5*time.Second)
		s, err := New(Config{Catalog: fixedCatalog{testBundle(t)}, Admission: adm, Audit: &memAudit{}})
		require.NoError(t, err)
		assert.False(t, s.MeasuresCost())
	})
}

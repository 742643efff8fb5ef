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

// spanned is a data system that tells the span of sales.sold_on and counts
// how often it is asked.
type spanned struct {
	*apptest.System
	asked int
	err   error
}

func (s *spanned) DataSpan(_ context.Context, model, column string) (first, last domain.Date, ok bool, err error) {
	s.asked++
	if s.err != nil {
		return 0, 0, false, s.err
	}
	if model != "sales" || column != "sold_on" {
		return 0, 0, false, nil
	}
	return domain.DateOf(2024, 1, 1), domain.DateOf(2026, 6, 30), true, nil
}

func anchored() *apptest.System {
	return &apptest.System{Rows: [][]domain.Cell{{domain.DateCell(domain.DateOf(2025, 1, 1)), domain.Int(42)}}}
}

func TestDataSpansAreReadOnceAtStart(t *testing.T) {
	sys := &spanned{System: anchored()}
	s, _, _ := newSurface(t, sys, 2, 5*time.Second)
	_, ok := s.MetricSpan("revenue")
	assert.False(t, ok, "nothing is known before the start-up validation")

	require.NoError(t, s.Check(context.Background()))
	assert.Equal(t, 1, sys.asked, "two metrics over one model and time column: one question to the data system")
	span, ok := s.MetricSpan("revenue")
	require.True(t, ok)
	assert.Equal(t, app.DataSpan{First: domain.DateOf(2024, 1, 1), Last: domain.DateOf(2026, 6, 30)}, span)
	assert.True(t, span.Overlaps(domain.Range{Start: domain.DateOf(2026, 6, 30), End: domain.DateOf(2026, 7, 1)}))
	assert.False(t, span.Overlaps(domain.Range{Start: domain.DateOf(2026, 7, 1), End: domain.DateOf(2026, 10, 1)}))
	assert.False(t, span.Overlaps(domain.Range{Start: domain.DateOf(2023, 1, 1), End: domain.DateOf(2024, 1, 1)}))

	v := s.DescribeCatalog(anon)
	require.NotEmpty(t, v.Metrics)
	for _, m := range v.Metrics {
		require.NotNil(t, m.DataSpan, m.Name)
		assert.Equal(t, app.DataSpanView{First: "2024-01-01", Last: "2026-06-30"}, *m.DataSpan)
	}
	_, ok = s.MetricSpan("no_such_metric")
	assert.False(t, ok)
}

func TestDataSpansAreOptional(t *testing.T) {
	t.Run("a data system without the ability", func(t *testing.T) {
		s, _, _ := newSurface(t, anchored(), 2, 5*time.Second)
		require.NoError(t, s.Check(context.Background()))
		_, ok := s.MetricSpan("revenue")
		assert.False(t, ok)
		assert.Nil(t, s.DescribeCatalog(anon).Metrics[0].DataSpan)
	})
	t.Run("a data system that cannot tell does not stop the start", func(t *testing.T) {
		s, _, _ := newSurface(t, &spanned{System: anchored(), err: errors.New("unreadable")}, 2, 5*time.Second)
		require.NoError(t, s.Check(context.Background()))
		_, ok := s.MetricSpan("revenue")
		assert.False(t, ok)
	})
	t.Run("spans of another bundle are not shown", func(t *testing.T) {
		s, _, _ := newSurface(t, anchored(), 2, 5*time.Second)
		defs := apptest.Definitions()
		defs.Metrics[0].Description = "another meaning"
		other, err := domain.NewBundle("v2", defs, apptest.Knowledge())
		require.NoError(t, err)
		s.SetSpans(other, app.Spans{})
		sys := &spanned{System: anchored()}
		spans, err := app.ReadSpans(context.Background(), other, apptest.Sources(sys))
		require.NoError(t, err)
		s.SetSpans(other, spans)
		_, ok := s.MetricSpan("revenue")
		assert.False(t, ok, "the bundle in force has another digest")
	})
	t.Run("a cancelled read is an error", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := app.ReadSpans(ctx, apptest.Bundle(t, "v1"), apptest.Sources(&spanned{System: anchored()}))
		assert.ErrorIs(t, err, context.Canceled)
	})
}

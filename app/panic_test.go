package app_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/domain"
)

// panicking is a data system with a defect.
type panicking struct{}

func (panicking) Execute(context.Context, *domain.Plan) (*domain.RowSet, error) {
	panic("planted defect ZZ-panic")
}

// TestAPanicIsAnAuditedInternalFailure: a panic while answering becomes an
// internal failure with the fixed sentence; the caller never sees the
// panic, the log has it with its stack, the record is written, the slot
// comes back and the surface keeps answering.
func TestAPanicIsAnAuditedInternalFailure(t *testing.T) {
	var log bytes.Buffer
	s, audit, adm := newSurface(t, panicking{}, 1, 5*time.Second, func(cfg *app.Config) {
		cfg.Logger = slog.New(slog.NewTextHandler(&log, nil))
	})
	for range 2 {
		res := s.Call(t.Context(), anon, domain.AskMetric, []byte(`{"metrics":["revenue"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`))
		require.NotNil(t, res.Failure)
		assert.Equal(t, app.CodeInternal, res.Failure.Code)
		assert.Equal(t, app.TextInternal, res.Failure.Detail)
		assert.NotContains(t, res.Failure.Detail, "ZZ-panic")
		assert.Equal(t, 0, adm.InUse(), "the slot is given back")
	}
	recs := audit.Records()
	require.Len(t, recs, 2)
	assert.Equal(t, "internal", recs[1].Code)
	assert.Contains(t, log.String(), "ZZ-panic")
	assert.Contains(t, log.String(), "stack=", "the log has the stack")
	assert.Contains(t, log.String(), "panic_test.go", "and the stack reaches the defect")
	assert.NotNil(t, s.Call(t.Context(), anon, domain.DescribeCatalog, nil).Catalog, "the surface keeps answering")
}

// defective is a data system whose worker goroutine panicked: it recovered
// the panic itself (no caller could) and says so with domain.ErrDefect.
type defective struct{}

func (defective) Execute(context.Context, *domain.Plan) (*domain.RowSet, error) {
	return nil, fmt.Errorf("%w: a worker panicked: ZZ-worker", domain.ErrDefect)
}

// TestADefectOfADataSystemIsInternal: a data system's recovered panic is
// an internal failure, logged with its text, never an unavailable data
// system (which would send an operator to the database).
func TestADefectOfADataSystemIsInternal(t *testing.T) {
	var log bytes.Buffer
	s, audit, _ := newSurface(t, defective{}, 1, 5*time.Second, func(cfg *app.Config) {
		cfg.Logger = slog.New(slog.NewTextHandler(&log, nil))
	})
	res := s.Call(t.Context(), anon, domain.AskMetric, []byte(`{"metrics":["revenue"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`))
	require.NotNil(t, res.Failure)
	assert.Equal(t, app.CodeInternal, res.Failure.Code)
	assert.NotContains(t, res.Failure.Detail, "ZZ-worker")
	recs := audit.Records()
	require.Len(t, recs, 1)
	assert.Equal(t, "internal", recs[0].Code)
	assert.Contains(t, log.String(), "ZZ-worker")
}

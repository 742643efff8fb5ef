package engine

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/kernel"
)

// TestAPanicInAWorkerIsADefect plants a panic in a scan worker, a
// goroutine of its own: the question fails with domain.ErrDefect (the
// panic's value and stack in the error, for the log), the process goes
// on, and the next question is answered as before.
func TestAPanicInAWorkerIsADefect(t *testing.T) {
	dir := t.TempDir()
	writeShop(t, dir, shopOptions{rows: 20_000, rowGroup: 5_000})
	e, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), NoCacheFill: true})
	require.NoError(t, err)
	plan := mkPlan(t, domain.Year, "2024-01-01", "2026-01-01", shopLeg(false, metric("net", sum("net_amount"))))
	want := run(t, e, plan)

	kernel.WorkerHook = func() { panic("planted") }
	_, err = e.Execute(context.Background(), plan)
	kernel.WorkerHook = nil
	require.Error(t, err)
	assert.True(t, errors.Is(err, domain.ErrDefect), "a worker's panic is a defect: %v", err)
	assert.Contains(t, err.Error(), "planted")
	assert.Contains(t, err.Error(), "guard.go", "the stack is kept for the log")

	assert.Equal(t, want, run(t, e, plan), "the engine answers after a worker panicked")
}

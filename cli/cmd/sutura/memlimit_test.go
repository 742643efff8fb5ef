package main

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	engine "sutura.dev/exec-arrow"
)

// TestOneShotCommandsLimitMemory: `ask`, `query` and `validate` open the
// catalogue's sources as `serve` does, and set Go's soft memory limit as
// it does (docs/operations.md, "Memory under load"); before, only the
// serving commands did, and a one-shot distinct count over 100 M rows
// peaked at 1,967 MiB, over the documented ceiling.
func TestOneShotCommandsLimitMemory(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	for _, args := range [][]string{
		{"ask", "net_sales", "--grain", "month", "--from", "2026-01-01", "--to", "2026-02-01", "--json"},
		{"validate"},
	} {
		debug.SetMemoryLimit(math.MaxInt64)
		code, _, stderr := runCLI(t, nil, args...)
		require.Equal(t, 0, code, "%v: %s", args, stderr)
		assert.Equal(t, engine.SoftMemoryLimit(0), debug.SetMemoryLimit(-1), "%v sets the soft memory limit", args)
	}
}

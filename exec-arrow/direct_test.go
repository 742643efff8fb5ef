package engine

import (
	"os"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/kernel"
)

// TestDirectKernelMatchesTheStages: questions the direct kernel may
// answer (no dimension, no join, one set of required filters, counts and
// integer sums) get the same answers, streamed and cached, with the
// kernel as without it; its batches include text filters of cached and
// streamed dictionaries, a boolean filter, a caller filter, and batches it
// must leave to the stages (a nullable filter column, a range's edges).
func TestDirectKernelMatchesTheStages(t *testing.T) {
	dir := t.TempDir()
	writeShop(t, dir, shopOptions{rows: 60_000, rowGroup: 1_000})
	returned := domain.RequiredFilter{Op: domain.IsTrue, Column: "is_returned"}
	monthly := shopLeg(false, metric("net", sum("net_amount"), shopNotCancelled, returned),
		metric("n", count("status"), shopNotCancelled, returned), metric("avg", simple(domain.Avg, "net_amount"), shopNotCancelled, returned))
	monthly.Filters = []domain.FilterRef{filter(domain.OpEq, "t0", "channel", "online")}
	paid := shopLeg(false, metric("net", sum("net_amount"), shopPaid))
	extremes := []domain.MetricRef{metric("largest", simple(domain.Max, "net_amount"), shopNotCancelled, returned),
		metric("net", sum("net_amount"), shopNotCancelled, returned), metric("smallest", simple(domain.Min, "net_amount"), shopNotCancelled, returned),
		metric("n", count("status"), shopNotCancelled, returned)}
	plans := []*domain.Plan{
		mkPlan(t, domain.Month, "2024-02-10", "2025-11-20", monthly),
		mkPlan(t, domain.Day, "2025-01-01", "2026-01-01", shopLeg(false, metric("orders", count("status"), shopNotCancelled))),
		mkPlan(t, domain.Quarter, "2024-01-01", "2026-01-01", paid),
		mkPlan(t, domain.Year, "2024-01-01", "2026-01-01", shopLeg(false, metric("rows", count("order_date")))),
		// Minima and maxima: alone, under a filter most rows fail, beside
		// a sum and a count, by months (batches across two) and years.
		mkPlan(t, domain.Year, "2024-01-01", "2026-01-01", shopLeg(false,
			metric("largest", simple(domain.Max, "net_amount"), shopPaid), metric("smallest", simple(domain.Min, "net_amount"), shopPaid))),
		mkPlan(t, domain.Month, "2024-02-10", "2025-11-20", shopLeg(false, extremes...)),
		mkPlan(t, domain.Year, "2024-01-01", "2026-01-01", shopLeg(false, extremes...)),
	}

	kernel.DirectOff = true
	want := answers(t, newEngine(t, os.DirFS(dir)), append(plans, plans...), true)
	kernel.DirectOff = false

	var batches atomic.Int64
	kernel.DirectHook = func() { batches.Add(1) }
	defer func() { kernel.DirectHook = nil }()
	streamed := answers(t, newEngine(t, os.DirFS(dir)), plans, false)
	require.Positive(t, batches.Load(), "the direct kernel aggregated streamed batches")
	require.Equal(t, want[:len(plans)], streamed)

	batches.Store(0)
	e := newEngine(t, os.DirFS(dir))
	answers(t, e, plans, true)
	cached := answers(t, e, plans, false)
	require.Positive(t, batches.Load(), "the direct kernel aggregated cached batches")
	require.Equal(t, want[len(plans):], cached)
	for i := range plans {
		require.NotEmpty(t, cached[i], "question %d has rows", i)
	}
}

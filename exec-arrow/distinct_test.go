package engine

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/distinct"
	"sutura.dev/exec-arrow/internal/kernel"
)

// TestDistinctAtHighCardinality counts 200 000 distinct text and 150 000
// distinct integer values per week, streamed (past the codebook's 65 536
// values, into distinct sets), with a working set that holds them and with
// one so small that the sets spill to disk (the codebook made small too:
// streaming the CSV file takes ~35 MiB of the 56 by itself, each worker's
// test of which records are in the range included): the counts
// are exact either way, and every byte is given back.
func TestDistinctAtHighCardinality(t *testing.T) {
	if testing.Short() {
		t.Skip("NOT RUN: -short skips counting 300 000 rows")
	}
	dir := t.TempDir()
	const rows = 300_000
	var b strings.Builder
	b.WriteString("day,sess,uid\n")
	sess := map[int]map[string]bool{}
	uid := map[int]map[int]bool{}
	for i := range rows {
		d := i % 28 // 2025-01-06 is a Monday: four whole weeks
		w := d / 7
		s := fmt.Sprintf("s%06x", (i*7919)%200_003)
		u := (i * 31) % 150_001
		if sess[w] == nil {
			sess[w], uid[w] = map[string]bool{}, map[int]bool{}
		}
		sess[w][s], uid[w][u] = true, true
		fmt.Fprintf(&b, "%s,%s,%d\n", time.Date(2025, 1, 6+d, 0, 0, 0, 0, time.UTC).Format(time.DateOnly), s, u)
	}
	write(t, dir, "ev.csv", b.String())
	var want [][]string
	for w := range 4 {
		want = append(want, []string{time.Date(2025, 1, 6+7*w, 0, 0, 0, 0, time.UTC).Format(time.DateOnly), fmt.Sprint(len(sess[w])), fmt.Sprint(len(uid[w]))})
	}
	plan := mkPlan(t, domain.Week, "2025-01-06", "2025-02-03", domain.Leg{
		Base:       tbl("ev", "t0", col("day", domain.TypeDate), col("sess", domain.TypeText), col("uid", domain.TypeInteger)),
		TimeColumn: "day",
		Metrics: []domain.MetricRef{metric("sessions", simple(domain.CountDistinct, "sess")),
			metric("users", simple(domain.CountDistinct, "uid"))}})
	tests := []struct {
		name  string
		limit int64
		spill bool
	}{
		{name: "in memory", limit: 0},
		{name: "spilled", limit: 56 << 20, spill: true},
	}
	t.Run("cached", func(t *testing.T) {
		// From the cache, the column's own codes; too many for bitsets,
		// they go to a distinct set as well.
		defer func(n int64) { kernel.DistinctBitsetMaxBytes = n }(kernel.DistinctBitsetMaxBytes)
		kernel.DistinctBitsetMaxBytes = 0
		e, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), Parallelism: 2})
		require.NoError(t, err)
		require.Equal(t, want, run(t, e, plan))
		require.NoError(t, e.Settle(context.Background()))
		reads := e.cache.Stats().Reads
		require.Equal(t, want, run(t, e, plan))
		assert.Equal(t, reads, e.cache.Stats().Reads, "answered from the cache")
	})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), WorkingSetMaxBytes: tc.limit,
				Parallelism: 2, NoCacheFill: true})
			require.NoError(t, err)
			if tc.spill {
				defer func(n int) { kernel.DistinctBookMax = n }(kernel.DistinctBookMax)
				kernel.DistinctBookMax = 4096
			}
			before := distinct.Spills.Load()
			require.Equal(t, want, run(t, e, plan))
			assert.Equal(t, tc.spill, distinct.Spills.Load() > before, "spilled")
			if tc.limit > 0 {
				assert.LessOrEqual(t, e.cache.Stats().Peak, tc.limit)
			}
			assert.Zero(t, e.cache.Stats().Used, "every byte given back")
		})
	}
}

package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

// TestValidateSamplesTextAndDefersTheRest: start-up parses the first
// SampleRows records of a large CSV or NDJSON file and defers the rest; a
// bad value past the sample passes Validate, then CheckDeferred names its
// file, column and line (never the value), Ready reports it, and questions
// reading that model fail as unavailable while another model answers. A
// bad value inside the sample still stops Validate; a small file is read
// whole and nothing is deferred.
func TestValidateSamplesTextAndDefersTheRest(t *testing.T) {
	rows := SampleRows + 5000
	csvRows := func(bad int) string {
		var b strings.Builder
		b.WriteString("day,amount\n")
		for i := range rows {
			v := fmt.Sprint(i % 100)
			if i == bad {
				v = "secret-value"
			}
			fmt.Fprintf(&b, "2025-01-%02d,%s\n", 1+i%28, v)
		}
		return b.String()
	}
	ndjsonRows := func(bad int) string {
		var b strings.Builder
		for i := range rows {
			v := fmt.Sprint(i % 100)
			if i == bad {
				v = `"secret-value"`
			}
			fmt.Fprintf(&b, "{\"day\":\"2025-01-%02d\",\"amount\":%s}\n", 1+i%28, v)
		}
		return b.String()
	}
	tests := []struct {
		name, file, content string
		validate, deferred  string // errors expected ("" none)
	}{
		{"csv, bad line past the sample", "big.csv", csvRows(rows - 10), "", "file big.csv, column amount, line " + fmt.Sprint(rows-10+2)},
		{"ndjson, bad line past the sample", "big.ndjson", ndjsonRows(rows - 10), "", "file big.ndjson, column amount, line " + fmt.Sprint(rows-10+1)},
		{"csv, bad line in the sample", "big.csv", csvRows(10), "line 12", ""},
		{"csv, every line parses", "big.csv", csvRows(-1), "", ""},
		{"small csv read whole", "big.csv", "day,amount\n2025-01-01,x\n", "line 2", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, tc.file, tc.content)
			write(t, dir, "small.csv", "day,amount\n2025-01-02,5\n")
			big := domain.Model{Name: "big", Source: "files", Table: "big", Columns: []domain.ModelColumn{
				col("day", domain.TypeDate), col("amount", domain.TypeInteger)}}
			small := big
			small.Name, small.Table = "small", "small"
			e := newEngine(t, os.DirFS(dir), big, small)
			ctx := context.Background()
			err := e.Validate(ctx)
			if tc.validate != "" {
				require.ErrorContains(t, err, tc.validate)
				assert.NotContains(t, err.Error(), "secret-value")
				return
			}
			require.NoError(t, err)
			require.NoError(t, e.Ready(ctx), "ready before the deferred check")
			assert.Equal(t, len(tc.content) > 1000, e.CheckPending())

			err = e.CheckDeferred(ctx)
			leg := func(m domain.Model) domain.Leg {
				return domain.Leg{Base: tbl(m.Name, "t0", m.Columns...), TimeColumn: "day",
					Metrics: []domain.MetricRef{metric("total", sum("amount"))}}
			}
			plan := func(m domain.Model) *domain.Plan { return mkPlan(t, domain.Month, "2025-01-01", "2025-02-01", leg(m)) }
			assert.Equal(t, [][]string{{"2025-01-01", "5"}}, run(t, e, plan(small)), "another model answers")
			if tc.deferred == "" {
				require.NoError(t, err)
				require.NoError(t, e.Ready(ctx))
				_, err := e.Execute(ctx, plan(big))
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.deferred)
			require.ErrorContains(t, e.Ready(ctx), tc.deferred)
			assert.NotContains(t, e.Ready(ctx).Error(), "secret-value")
			assert.False(t, e.CheckPending())
			_, err = e.Execute(ctx, plan(big))
			require.ErrorIs(t, err, domain.ErrUnavailable)
			assert.ErrorContains(t, err, tc.deferred)
			assert.False(t, errors.Is(err, domain.ErrDefect))
		})
	}
}

// TestDataSpanOfALargeTextTableAfterTheDeferredRead: a CSV table over
// SpanReadMaxBytes has no span at start (only a sample was read), and its
// exact span once CheckDeferred read it whole; a small one has its span
// from Validate's whole read without reading it again.
func TestDataSpanOfALargeTextTableAfterTheDeferredRead(t *testing.T) {
	old := spanReadMax
	spanReadMax = 1 << 10
	t.Cleanup(func() { spanReadMax = old })
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("day,amount\n")
	for i := range SampleRows + 10 {
		day := fmt.Sprintf("2025-01-%02d", 2+i%20)
		if i == SampleRows+5 {
			day = "2025-03-09" // past the sample: only the whole read sees it
		}
		fmt.Fprintf(&b, "%s,%d\n", day, i)
	}
	write(t, dir, "big.csv", b.String())
	write(t, dir, "small.csv", "day,amount\n2024-05-06,1\n,2\n2024-05-01,3\n")
	big := domain.Model{Name: "big", Source: "files", Table: "big", Columns: []domain.ModelColumn{
		col("day", domain.TypeDate), col("amount", domain.TypeInteger)}}
	small := big
	small.Name, small.Table = "small", "small"
	e := newEngine(t, os.DirFS(dir), big, small)
	ctx := context.Background()
	require.NoError(t, e.Validate(ctx))
	reads := e.cache.Stats().Reads

	first, last, ok, err := e.DataSpan(ctx, "small", "day")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, []domain.Date{day(t, "2024-05-01"), day(t, "2024-05-06")}, []domain.Date{first, last})
	_, _, ok, err = e.DataSpan(ctx, "big", "day")
	require.NoError(t, err)
	assert.False(t, ok, "only sampled, and over the bound")
	assert.Equal(t, reads, e.cache.Stats().Reads, "no file read for a span")

	require.NoError(t, e.CheckDeferred(ctx))
	first, last, ok, err = e.DataSpan(ctx, "big", "day")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, []domain.Date{day(t, "2025-01-02"), day(t, "2025-03-09")}, []domain.Date{first, last})
}

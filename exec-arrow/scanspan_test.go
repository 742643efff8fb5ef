package engine

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

// TestDataSpanFromACompleteScan: a text table too large for DataSpan to
// read (and only sampled by Validate) has its exact span once a question
// or a union of questions scanned it to the end, though the question's
// range held few of its records: every record's time is parsed, in a
// block narrowed to the range (the time field first) and in a block read
// whole (the time field last), CSV and NDJSON, dates and timestamps. A
// scan that fails records nothing, and files changed since the scan have
// no span until read again.
func TestDataSpanFromACompleteScan(t *testing.T) {
	old := spanReadMax
	spanReadMax = 1 << 10
	t.Cleanup(func() { spanReadMax = old })
	rows := SampleRows + 5000
	// The days run from 2024-03-01 over a year: a month's range holds
	// fewer than a quarter of a block's records. One record past the
	// sample falls on 2025-09-30, outside every range asked.
	dayOf := func(i int) string {
		if i == rows-7 {
			return "2025-09-30"
		}
		return day(t, "2024-03-01").AddDays(i % 365).String()
	}
	csvTimeFirst := func() string {
		var b strings.Builder
		b.WriteString("day,status,amount\n")
		for i := range rows {
			fmt.Fprintf(&b, "%s,paid,%d\n", dayOf(i), i%7)
		}
		return b.String()
	}
	csvTimeLast := func() string {
		var b strings.Builder
		b.WriteString("amount,day\n")
		for i := range rows {
			fmt.Fprintf(&b, "%d,%s\n", i%7, dayOf(i))
		}
		return b.String()
	}
	ndjson := func() string {
		var b strings.Builder
		for i := range rows {
			fmt.Fprintf(&b, "{\"day\":\"%sT23:30:00-02:00\",\"amount\":%d}\n", dayOf(i), i%7)
		}
		return b.String()
	}
	for _, tc := range []struct {
		name, file, content string
		typ                 domain.ColumnType
		first, last         string
		union               bool // asked by Prepare, two questions at once
		ranged              bool // read in ranges by the workers
	}{
		{"csv, time field first", "big.csv", csvTimeFirst(), domain.TypeDate, "2024-03-01", "2025-09-30", false, false},
		{"csv, time field last", "big.csv", csvTimeLast(), domain.TypeDate, "2024-03-01", "2025-09-30", false, false},
		{"csv, read in ranges", "big.csv", csvTimeFirst(), domain.TypeDate, "2024-03-01", "2025-09-30", false, true},
		{"csv, a union", "big.csv", csvTimeFirst(), domain.TypeDate, "2024-03-01", "2025-09-30", true, false},
		{"ndjson, timestamps", "big.ndjson", ndjson(), domain.TypeTimestamp, "2024-03-02", "2025-10-01", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.ranged {
				oldRange := rangeBytes
				rangeBytes = 16 << 10
				t.Cleanup(func() { rangeBytes = oldRange })
			}
			dir := t.TempDir()
			write(t, dir, tc.file, tc.content)
			big := domain.Model{Name: "big", Source: "files", Table: "big", Columns: []domain.ModelColumn{
				col("day", tc.typ), col("amount", domain.TypeInteger)}}
			e := newEngine(t, os.DirFS(dir), big)
			ctx := context.Background()
			require.NoError(t, e.Validate(ctx))
			require.True(t, e.CheckPending(), "only sampled")
			_, _, ok, err := e.DataSpan(ctx, "big", "day")
			require.NoError(t, err)
			require.False(t, ok, "sampled, and over the bound DataSpan reads")

			leg := domain.Leg{Base: tbl("big", "t0", big.Columns...), TimeColumn: "day",
				Metrics: []domain.MetricRef{metric("total", sum("amount"))}}
			january := mkPlan(t, domain.Month, "2025-01-01", "2025-02-01", leg)
			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			_, err = e.Execute(cancelled, january)
			require.Error(t, err)
			_, _, ok, err = e.DataSpan(ctx, "big", "day")
			require.NoError(t, err)
			require.False(t, ok, "a scan that failed records nothing")

			if tc.union {
				april := mkPlan(t, domain.Month, "2024-04-01", "2024-05-01", leg)
				e.Prepare(ctx, []*domain.Plan{january, april})
			} else {
				run(t, e, january)
			}
			first, last, ok, err := e.DataSpan(ctx, "big", "day")
			require.NoError(t, err)
			require.True(t, ok, "the scan met every record")
			assert.Equal(t, []domain.Date{day(t, tc.first), day(t, tc.last)}, []domain.Date{first, last})

			write(t, dir, tc.file, tc.content+tc.content[len(tc.content)-40:])
			_, _, ok, err = e.DataSpan(ctx, "big", "day")
			require.NoError(t, err)
			assert.False(t, ok, "the files changed since the scan")
		})
	}
}

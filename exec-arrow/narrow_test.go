package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

// TestNarrowAndWideColumnsAnswerAlike: integers that fit 32 bits, text
// of at most 256 values and dates within 89 years of the first are held
// narrow (int32 values, byte indexes, two-byte days), and past them wide
// (a last row of 2^40, a text of 300 values, a last date in 2300), read
// from Parquet and from CSV. A sum by the text, a distinct
// count of the integers and a filter on each answer as computed here,
// streamed and then from the cache, whose columns have the width said.
func TestNarrowAndWideColumnsAnswerAlike(t *testing.T) {
	const n = 30_000
	for _, wide := range []bool{false, true} {
		kinds := 7
		if wide {
			kinds = 300
		}
		row := func(i int) (int32, string, string, int64) {
			amount, d := int64(i%1000)-300, 19_723+int32(i%366)
			if wide && i == n-1 {
				amount, d = 1<<40, 120_000 // 2298-07-20, out of the range asked
			}
			return d, fmt.Sprintf("k%03d", i%kinds), "", amount
		}
		sums, distinct, filtered := map[string]int64{}, map[int64]bool{}, int64(0)
		var csv strings.Builder
		csv.WriteString("d,kind,shipped,amount\n")
		for i := range n {
			d, kind, _, amount := row(i)
			if d >= 19_723+366 {
				fmt.Fprintf(&csv, "%s,%s,,%d\n", domain.Date(d), kind, amount)
				continue // out of 2024
			}
			sums[kind] += amount
			distinct[amount] = true
			if kind == "k003" && amount != 7 {
				filtered++
			}
			fmt.Fprintf(&csv, "%s,%s,,%d\n", domain.Date(d), kind, amount)
		}
		for _, format := range []string{"parquet", "csv"} {
			name := fmt.Sprintf("wide %v, %s", wide, format)
			dir := t.TempDir()
			if format == "parquet" {
				writeOrdersParquet(t, filepath.Join(dir, "orders.parquet"), n, row)
			} else {
				write(t, dir, "orders.csv", csv.String())
			}
			base := tbl("orders", "t0", col("d", domain.TypeDate), col("kind", domain.TypeText), col("amount", domain.TypeInteger))
			byKind := domain.Leg{Base: base, TimeColumn: "d", Metrics: []domain.MetricRef{metric("total", sum("amount"))},
				Dimensions: []domain.DimensionRef{dim("kind", "t0", "kind")}}
			distinctLeg := domain.Leg{Base: base, TimeColumn: "d", Metrics: []domain.MetricRef{metric("amounts", simple(domain.CountDistinct, "amount"))}}
			kept := domain.Leg{Base: base, TimeColumn: "d", Metrics: []domain.MetricRef{metric("rows", count("amount"))},
				Filters: []domain.FilterRef{filter(domain.OpEq, "t0", "kind", "k003"), filter(domain.OpNotIn, "t0", "amount", "7")}}
			plans := []*domain.Plan{
				mkPlan(t, domain.Year, "2024-01-01", "2025-01-01", byKind),
				mkPlan(t, domain.Year, "2024-01-01", "2025-01-01", distinctLeg),
				mkPlan(t, domain.Year, "2024-01-01", "2025-01-01", kept),
			}
			e := newEngine(t, os.DirFS(dir))
			for round := range 2 { // streamed, then cached
				got := run(t, e, plans[0])
				require.Len(t, got, kinds, "%s, round %d", name, round)
				for _, r := range got {
					assert.Equal(t, strconv.FormatInt(sums[r[0]], 10), r[2], "%s, round %d: the total of %s", name, round, r[0])
				}
				assert.Equal(t, [][]string{{"2024-01-01", strconv.Itoa(len(distinct))}}, run(t, e, plans[1]), "%s, round %d", name, round)
				assert.Equal(t, [][]string{{"2024-01-01", strconv.FormatInt(filtered, 10)}}, run(t, e, plans[2]), "%s, round %d", name, round)
				require.NoError(t, e.Settle(context.Background()))
			}
			widths := map[string]bool{}
			for w, ce := range e.cache.Cached("orders") {
				switch w.Name {
				case "kind":
					widths["kind"] = ce.Col.Idx != nil
					require.True(t, ce.Col.Idx != nil || ce.Col.Idx8 != nil, name)
				case "amount":
					if !w.ValidOnly {
						widths["amount"] = ce.Col.Ints != nil
						require.True(t, ce.Col.Ints != nil || ce.Col.Ints32 != nil, name)
					}
				case "d":
					widths["d"] = ce.Col.Days != nil
					require.True(t, ce.Col.Days != nil || ce.Col.Days16 != nil, name)
				}
			}
			assert.Equal(t, map[string]bool{"kind": wide, "amount": wide, "d": wide}, widths, "%s: the cached columns' widths", name)
		}
	}
}

// TestTextDatesEstimatedNarrowAfterTheWholeRead: the fill's estimate
// counts the dates of a CSV table past the start-up sample two bytes a
// row once the checks' whole read of the file found them within 32,767
// days of each other, and four before that read ends or when they span
// more (one date past the sample, 175 years on).
func TestTextDatesEstimatedNarrowAfterTheWholeRead(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"near", "far"} {
		var b strings.Builder
		b.WriteString("day,amount\n")
		for i := range SampleRows + 10 {
			day := fmt.Sprintf("2025-01-%02d", 1+i%28)
			if name == "far" && i == SampleRows+5 {
				day = "2200-01-01"
			}
			fmt.Fprintf(&b, "%s,%d\n", day, i)
		}
		write(t, dir, name+".csv", b.String())
	}
	model := func(name string) domain.Model {
		return domain.Model{Name: name, Source: "files", Table: name, Columns: []domain.ModelColumn{
			col("day", domain.TypeDate), col("amount", domain.TypeInteger)}}
	}
	e := newEngine(t, os.DirFS(dir), model("near"), model("far"))
	ctx := context.Background()
	require.NoError(t, e.Validate(ctx))
	dayNarrow := func(name string) bool {
		t.Helper()
		leg := domain.Leg{Base: tbl(name, "t0", col("day", domain.TypeDate), col("amount", domain.TypeInteger)),
			TimeColumn: "day", Metrics: []domain.MetricRef{metric("total", sum("amount"))}}
		q, err := e.bind(ctx, mkPlan(t, domain.Month, "2025-01-01", "2025-02-01", leg), nil, true)
		require.NoError(t, err)
		defer q.release()
		narrow := e.narrowSlots(q)
		for i, c := range q.Base {
			if c.Name == "day" {
				return narrow[i]
			}
		}
		t.Fatal("the day column is not among the base slots")
		return false
	}
	assert.False(t, dayNarrow("near"), "only the sample read: estimated wide")
	assert.False(t, dayNarrow("far"))
	require.NoError(t, e.CheckDeferred(ctx))
	assert.True(t, dayNarrow("near"), "every day within a month")
	assert.False(t, dayNarrow("far"), "a day 175 years on")
}

// TestFillRefusedBeforeTheWholeReadIsRetriedAfterIt: a question over a
// CSV table past the start-up sample, asked before the whole read of the
// file, streams and is not cached (its dates estimated four bytes a row
// do not fit); once CheckDeferred has read the file whole, its fill is
// scheduled again with the dates estimated at two, and the same question
// is answered from the cache.
func TestFillRefusedBeforeTheWholeReadIsRetriedAfterIt(t *testing.T) {
	const rows = 1_000_000 // a margin of a byte a row each side (below) outweighs how the working memory varies
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("day,amount\n")
	for i := range rows {
		fmt.Fprintf(&b, "2025-%02d-%02d,%d\n", 1+i%12, 1+i%28, i%1000)
	}
	write(t, dir, "sales.csv", b.String())
	m := domain.Model{Name: "sales", Source: "files", Table: "sales", Columns: []domain.ModelColumn{
		col("day", domain.TypeDate), col("amount", domain.TypeInteger)}}
	leg := domain.Leg{Base: tbl("sales", "t0", col("day", domain.TypeDate), col("amount", domain.TypeInteger)),
		TimeColumn: "day", Metrics: []domain.MetricRef{metric("total", sum("amount"))}}
	plan := mkPlan(t, domain.Month, "2025-01-01", "2026-01-01", leg)
	ctx := context.Background()
	open := func(limit int64, fill bool) *Engine {
		e, err := New(ctx, Config{Source: "files", Files: os.DirFS(dir), Models: []domain.Model{m},
			WorkingSetMaxBytes: limit, NoCacheFill: !fill, Parallelism: 1})
		require.NoError(t, err)
		require.NoError(t, e.Validate(ctx))
		return e
	}
	streaming := open(0, false)
	want := run(t, streaming, plan)
	need := streaming.cache.Stats().Peak

	// Room for the question beside the columns estimated with two-byte
	// days (50 bits a row with the 32-bit amounts), not with four (66).
	limit := need + 58*rows/8
	e := open(limit, true)
	assert.Equal(t, want, run(t, e, plan))
	require.NoError(t, e.Settle(ctx))
	used, _ := e.WorkingSet()
	require.Zero(t, used, "estimated with four-byte days, the fill does not fit")

	require.NoError(t, e.CheckDeferred(ctx))
	require.NoError(t, e.Settle(ctx))
	used, _ = e.WorkingSet()
	require.Positive(t, used, "the fill was scheduled again once the file was read whole")
	reads := e.cache.Stats().Reads
	assert.Equal(t, want, run(t, e, plan))
	assert.Equal(t, reads, e.cache.Stats().Reads, "answered from the cache")
	assert.LessOrEqual(t, e.cache.Stats().Peak, limit)
}

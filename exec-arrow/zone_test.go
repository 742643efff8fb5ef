package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/kernel"
)

func TestZonesSkipSegmentsOutsideTheRange(t *testing.T) {
	const n = 5*column.ChunkRows + 123
	b := array.NewDate32Builder(memory.DefaultAllocator)
	first := domain.DateOf(2024, 1, 1)
	for i := 0; i < n; i++ {
		if i%1000 == 7 {
			b.AppendNull()
			continue
		}
		b.Append(arrow.Date32(first + domain.Date(i/1000)))
	}
	c := column.New("day", domain.TypeDate, b.NewArray())
	var segs []column.Segment
	for lo := 0; lo < n; lo += column.ChunkRows {
		segs = append(segs, column.Segment{Lo: lo, Hi: min(lo+column.ChunkRows, n), Group: lo / column.ChunkRows})
	}
	z := column.NewDerived(c, nil).Zones(segs)
	require.Len(t, z, 6)
	assert.Equal(t, column.DayZone{Min: int32(first), Max: int32(first) + (column.ChunkRows-1)/1000}, z[0])
	inRange := func(q *kernel.Query) []int {
		var out []int
		for i, zz := range z {
			if q.Meets(zz) {
				out = append(out, i)
			}
		}
		return out
	}
	q := &kernel.Query{Start: int32(first) + 150, Span: 10} // segment 2 holds days 131..196
	assert.Equal(t, []int{2}, inRange(q), "only the segment holding the range is scanned")
	q = &kernel.Query{Start: int32(first) - 100, Span: 50}
	assert.Empty(t, inRange(q))
}

// TestPruningKeepsAnswers compares the same rows stored in time order
// (most chunks pruned) and shuffled (none pruned).
func TestPruningKeepsAnswers(t *testing.T) {
	const n = 6 * column.ChunkRows
	rng := rand.New(rand.NewPCG(1, 2))
	lines := make([]string, n)
	first := domain.DateOf(2024, 1, 1)
	for i := range lines {
		d := first + domain.Date(i*730/n)
		lines[i] = d.String() + "," + strconv.Itoa(rng.IntN(1000))
	}
	sorted := t.TempDir()
	write(t, sorted, "t.csv", "day,amount\n"+strings.Join(lines, "\n")+"\n")
	rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	shuffled := t.TempDir()
	write(t, shuffled, "t.csv", "day,amount\n"+strings.Join(lines, "\n")+"\n")
	model := domain.Model{Name: "t", Source: "files", Table: "t", Columns: []domain.ModelColumn{col("day", domain.TypeDate), col("amount", domain.TypeInteger)}}
	leg := domain.Leg{Base: tbl("t", "t0", model.Columns...), TimeColumn: "day",
		Metrics: []domain.MetricRef{metric("total", sum("amount")), metric("n", count("amount"))}}
	for _, rg := range [][2]string{{"2024-03-01", "2024-05-01"}, {"2025-06-01", "2026-06-01"}, {"2023-01-01", "2023-02-01"}} {
		p := mkPlan(t, domain.Month, rg[0], rg[1], leg)
		a := run(t, newEngine(t, os.DirFS(sorted), model), p)
		b := run(t, newEngine(t, os.DirFS(shuffled), model), p)
		assert.Equal(t, b, a, "range %v", rg)
	}
}

// TestDayIndexKeepsAnswers asks questions over a few days of two years of
// times stored in no order — a count by day, a distinct count by week, and
// a sum of floats of every magnitude by week (its bits depend on the order
// of its rows), over a timestamp column and over a date column — from the
// files and then from the cache, where their rows are read through the
// time column's day index (column.DayIndexes counts it built): the answers
// are the same, to the bit.
func TestDayIndexKeepsAnswers(t *testing.T) {
	// Plain float sums make the sum's bits depend on the order of its rows
	// more often than compensated ones do.
	kernel.PlainFloatSums = true
	defer func() { kernel.PlainFloatSums = false }()
	const n = 5 * column.ChunkRows
	rng := rand.New(rand.NewPCG(3, 4))
	lines := make([]string, n)
	for i := range lines {
		d, at := momentOfTwoYears(rng)
		price := strconv.FormatFloat((rng.Float64()-0.3)*math.Pow(10, float64(rng.IntN(61)-30)), 'g', -1, 64)
		lines[i] = d.String() + "," + at + ",u" + strconv.Itoa(rng.IntN(5000)) + "," + strconv.Itoa(rng.IntN(1000)) + "," + price
	}
	dir := t.TempDir()
	write(t, dir, "t.csv", "day,at,user,amount,price\n"+strings.Join(lines, "\n")+"\n")
	cols := []domain.ModelColumn{col("day", domain.TypeDate), col("at", domain.TypeTimestamp), col("user", domain.TypeText), col("amount", domain.TypeInteger), col("price", domain.TypeFloat)}
	model := domain.Model{Name: "t", Source: "files", Table: "t", Columns: cols}
	var plans []*domain.Plan
	for _, timeColumn := range []string{"at", "day"} {
		for _, q := range []struct {
			g          domain.Grain
			start, end string
			m          domain.MetricRef
		}{
			{domain.Day, "2025-03-03", "2025-03-08", metric("n", count("amount"))},
			{domain.Week, "2024-06-03", "2024-06-17", metric("users", simple(domain.CountDistinct, "user"))},
			{domain.Week, "2025-08-04", "2025-08-18", metric("takings", simple(domain.Sum, "price"))},
		} {
			plans = append(plans, mkPlan(t, q.g, q.start, q.end, domain.Leg{Base: tbl("t", "t0", cols...), TimeColumn: timeColumn, Metrics: []domain.MetricRef{q.m}}))
		}
	}
	streamed, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), Models: []domain.Model{model}, NoCacheFill: true})
	require.NoError(t, err)
	cached := newEngine(t, os.DirFS(dir), model)
	built := column.DayIndexes.Load()
	for k, p := range plans {
		want := run(t, streamed, p)
		require.NotEmpty(t, want)
		run(t, cached, p) // loads the columns
		require.NoError(t, cached.Settle(context.Background()))
		name := fmt.Sprintf("%s by %s over %s", p.Legs[0].Metrics[0].Name, p.Grain, p.Legs[0].TimeColumn)
		// The first question from the cache starts the index's build and
		// reads its rows as before; the next reads them by day.
		assert.Equal(t, want, run(t, cached, p), "from the cache, %s", name)
		indexes := built + int64(1+k/3) // three questions over each time column
		require.Eventually(t, func() bool { return column.DayIndexes.Load() >= indexes }, 10*time.Second, time.Millisecond, "the index of %s's time column is built", name)
		assert.Equal(t, want, run(t, cached, p), "from the cache by day, %s", name)
	}
	assert.Equal(t, int64(2), column.DayIndexes.Load()-built, "one index for each time column")
}

// TestFillBuildsTheDayIndex streams a question over a few days of times
// stored in no order: the fill that follows it caches the columns and
// builds the time column's day index before Settle returns, so the first
// question from the cache already reads by day, with the same answer. A
// question over most of the days leaves no index to build.
func TestFillBuildsTheDayIndex(t *testing.T) {
	const n = 3 * column.ChunkRows
	rng := rand.New(rand.NewPCG(5, 6))
	lines := make([]string, n)
	for i := range lines {
		_, at := momentOfTwoYears(rng)
		lines[i] = at + "," + strconv.Itoa(rng.IntN(1000))
	}
	dir := t.TempDir()
	write(t, dir, "t.csv", "at,amount\n"+strings.Join(lines, "\n")+"\n")
	cols := []domain.ModelColumn{col("at", domain.TypeTimestamp), col("amount", domain.TypeInteger)}
	model := domain.Model{Name: "t", Source: "files", Table: "t", Columns: cols}
	leg := domain.Leg{Base: tbl("t", "t0", cols...), TimeColumn: "at", Metrics: []domain.MetricRef{metric("total", sum("amount"))}}
	ctx := context.Background()

	wide := newEngine(t, os.DirFS(dir), model)
	built := column.DayIndexes.Load()
	run(t, wide, mkPlan(t, domain.Month, "2024-01-01", "2025-10-01", leg))
	require.NoError(t, wide.Settle(ctx))
	assert.Zero(t, column.DayIndexes.Load()-built, "a range over most of the days builds no index")

	few := mkPlan(t, domain.Day, "2025-03-03", "2025-03-10", leg)
	e := newEngine(t, os.DirFS(dir), model)
	want := run(t, e, few)
	require.NotEmpty(t, want)
	require.NoError(t, e.Settle(ctx))
	assert.Equal(t, int64(1), column.DayIndexes.Load()-built, "the fill built the index before Settle returned")
	assert.Equal(t, want, run(t, e, few), "the first question from the cache, by day")
	assert.Equal(t, int64(1), column.DayIndexes.Load()-built, "one index")
}

// momentOfTwoYears is a day of 2024–2025 drawn from rng and an RFC 3339
// moment of it: times in no order over two years.
func momentOfTwoYears(rng *rand.Rand) (domain.Date, string) {
	d := domain.DateOf(2024, 1, 1) + domain.Date(rng.IntN(730))
	return d, time.Unix(int64(d)*86400+rng.Int64N(86400), 0).UTC().Format(time.RFC3339)
}

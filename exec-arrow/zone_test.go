package engine

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

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

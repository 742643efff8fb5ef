package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

// A CSV file of several megabytes whose every text field is quoted —
// holding commas, doubled quotes and now and then a line end — is read
// record by record wherever its buffers end (a read ends inside a quoted
// field every megabyte or so), or in ranges: streamed and from the cache,
// a count and a sum by month are the ones written.
func TestCSVQuotedFieldsAcrossBuffers(t *testing.T) {
	const n = 100_000
	rng := rand.New(rand.NewPCG(11, 12))
	var b strings.Builder
	b.WriteString("day,amount,note\n")
	counts, sums := map[int]int{}, map[int]int64{}
	for range n {
		month := 1 + rng.IntN(12)
		amount := rng.Int64N(1000)
		counts[month]++
		sums[month] += amount
		note := strings.Repeat("x", rng.IntN(40)) + `, said ""so"" ` + strings.Repeat("y", rng.IntN(40))
		if rng.IntN(50) == 0 {
			note += "\nand more"
		}
		fmt.Fprintf(&b, "2025-%02d-%02d,%d,\"%s\"\n", month, 1+rng.IntN(28), amount, note)
	}
	var want [][]string
	for m := 1; m <= 12; m++ {
		want = append(want, []string{fmt.Sprintf("2025-%02d-01", m), fmt.Sprint(counts[m]), fmt.Sprint(sums[m])})
	}
	dir := t.TempDir()
	write(t, dir, "t.csv", b.String())
	require.Greater(t, b.Len(), 4<<20)
	cols := []domain.ModelColumn{col("day", domain.TypeDate), col("amount", domain.TypeInteger), col("note", domain.TypeText)}
	model := domain.Model{Name: "t", Source: "files", Table: "t", Columns: cols}
	p := mkPlan(t, domain.Month, "2025-01-01", "2026-01-01", domain.Leg{Base: tbl("t", "t0", cols...), TimeColumn: "day",
		Metrics: []domain.MetricRef{metric("n", count("amount")), metric("total", simple(domain.Sum, "amount"))}})
	streamedAndCached(t, dir, model, p, want)
	// Read by the workers in ranges of 64 KiB, most of which start inside
	// a quoted field.
	defer func(b int64) { rangeBytes = b }(rangeBytes)
	rangeBytes = 64 << 10
	streamedAndCached(t, dir, model, p, want)
}

// A carriage return before the one a line feed drops belongs to the
// field, as encoding/csv reads it ("b\r\r\n" ends in "b\r"); the stream
// cut it off records holding one, so "b" and "b\r" were one value
// streamed and two from the cache. Both now count two places by day. The
// blank lines before the header are skipped, as encoding/csv skips them
// (the stream refused the file).
func TestCSVCarriageReturnsKeptAsEncodingCSVKeepsThem(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "t.csv", "\n\r\nday,place\r\n2025-01-01,b\r\n2025-01-01,b\r\r\n2025-01-02,b\r\r\n2025-01-02,b\r")
	cols := []domain.ModelColumn{col("day", domain.TypeDate), col("place", domain.TypeText)}
	model := domain.Model{Name: "t", Source: "files", Table: "t", Columns: cols}
	p := mkPlan(t, domain.Day, "2025-01-01", "2025-01-03", domain.Leg{Base: tbl("t", "t0", cols...), TimeColumn: "day",
		Metrics: []domain.MetricRef{metric("places", simple(domain.CountDistinct, "place"))}})
	want := [][]string{{"2025-01-01", "2"}, {"2025-01-02", "2"}}
	streamedAndCached(t, dir, model, p, want)
}

// streamedAndCached asks p of model, whose files are in dir, streamed by
// an engine that fills no cache, then from a cache filled by the first
// answer: both must be want.
func streamedAndCached(t *testing.T, dir string, model domain.Model, p *domain.Plan, want [][]string) {
	t.Helper()
	streamed, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), Models: []domain.Model{model}, NoCacheFill: true})
	require.NoError(t, err)
	assert.Equal(t, want, run(t, streamed, p), "streamed")
	cached := newEngine(t, os.DirFS(dir), model)
	run(t, cached, p)
	require.NoError(t, cached.Settle(context.Background()))
	assert.Equal(t, want, run(t, cached, p), "from the cache")
}
